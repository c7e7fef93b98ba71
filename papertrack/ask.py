"""Ask: an answer to a question made of the best sentences of the best papers, cited.

Offline and without a model. Papers are ranked against the question with BM25
over the full-text index (:mod:`papertrack.fulltext`; title words weigh four
times abstract words), newest first among equally relevant ones. Their abstracts
are cut into sentences; each sentence is scored by the question words it holds
(weighted by how rare each word is in the store), plus a little for its paper's
rank. Sentences are then taken best first, skipping any that says nearly the same
as one already taken (most of its words shared) and taking at most two from one
paper. Each is cited ``[n]`` to its paper.

:func:`context_pack` is the same retrieval as a prompt for any model: the question,
the instruction to answer only from the numbered papers with ``[n]`` citations,
and the papers. :func:`check_citations` marks the citations of a model's answer
that name no paper of the pack.

Nothing here prints or reads the clock; :mod:`papertrack.cli.ask` does the rest.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from papertrack.models import Paper, paper_date_key

if TYPE_CHECKING:
    from papertrack.store import Store

__all__ = [
    "Answer",
    "Cited",
    "Person",
    "Sentence",
    "answer_question",
    "answer_who",
    "asks_new",
    "asks_places",
    "asks_who",
    "check_citations",
    "context_pack",
    "question_words",
    "reference",
    "rank_papers",
]

#: Words that carry no topic: left out of the question before it is looked up.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing done during each
    few for from further had has have having he her here how i if in into is it its
    itself just me more most my no nor not of off on once only or other our out over own
    same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who
    whom why will with would you your paper papers work works study studies approach
    approaches method methods use used using recent new propose proposed show shown
    existing based ways way well also may might across via do does kind kinds many much
    give gives make makes get gets one two lot like main exist exists""".split()
)

#: Papers of the index's best groups read from the store at a time (topic, date).
POOL = 200
#: Of papers the index scores alike, at most about this many (the newest) are read
#: to be told apart by their text: a tie of "agent memory" held 422 of 83,510 real
#: papers, and one of a million papers could span every week file.
TIED = 2_000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"'])")
# A stop with no space after it, between a word and a capitalized one: a line break
# lost from the abstract ("real-world deployments.Unlike general VLM ...").
_GLUED_END = re.compile(r"(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
# What a stop ends without ending a sentence: abbreviations and initials.
_ABBREVIATION_END = re.compile(
    r"(?:^|[\s(])(?:e\.g|i\.e|et al|vs|cf|Dr|Mr|Ms|Mrs|Prof|Fig|Figs|Eq|Eqs|Sec|No|approx|"
    r"resp|[A-Z])\.$"
)
#: A sentence that points somewhere ("Project page: https://…", "code at github.com/…"):
#: it says where the work is, not what it found, and is never an answer's sentence.
_LINK = re.compile(r"https?://|www\.|github\.com|huggingface\.co", re.IGNORECASE)
_TOO_SIMILAR = 0.5
#: A sentence that points back at the one before it ("These signals are integrated
#: into the training loop.", "Such methods fail when ..."): quoted alone it names
#: nothing, so it is taken only over sentences that say much less.
_LEANS_BACK = re.compile(
    r"(?:These|Those|Such|They|It|Its|Their|This(?! (?:paper|work|study|article|survey|"
    r"thesis|report|position|benchmark|dataset|framework|tutorial|review)\b))\b"
)
_LEANING = 0.6
_PER_PAPER = 2


def question_words(question: str) -> list[str]:
    """The folded words of ``question`` that say what it is about, each once, in order.

    A question about what is new (:func:`asks_new`) says so in words that are not
    what it is about ("latest progress in GUI grounding"): those are left out, or
    they drew on sentences of "task progress" and "advanced agents", and "latest"
    was said to be in none of the papers quoted."""
    from papertrack.query import tokenize

    news = _NEWS_WORDS if asks_new(question) else frozenset()
    words = [
        w
        for w in tokenize(question)
        if w not in STOPWORDS and w not in news and (len(w) > 1 or w.isdigit())
    ]
    return list(dict.fromkeys(words))


def asked_words(question: str) -> list[str]:
    """:func:`question_words` that can say what a paper is about: three letters or more,
    and not a number alone."""
    return [w for w in question_words(question) if len(w) >= 3 and not w.isdigit()]


def _stem(word: str) -> str:
    """A crude common prefix of a word's forms (agents, agentic -> agent), for prefix lookup."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


#: What may follow a stem in a form of the same word ("agent": agents, agentic;
#: "screen": screens, screening), as against a longer word that only begins alike
#: ("code": codebooks; "author": authoritarian), and after a stem's final "e" is
#: dropped ("code": coding; "generate": generation).
_ENDINGS = frozenset("s es ed ing ings er ers ation ations ic ive".split()) | {""}
_AFTER_E = frozenset("ing ings ed ion ions ation ations ive".split())
#: How much a word that only begins like a question word counts against one of its
#: forms, in a sentence's score.
_PREFIX_ONLY = 0.3


def _form_of(word: str, stem: str, candidate: str) -> bool:
    """Whether ``candidate`` is a form of the question word ``word`` (stem ``stem``)."""
    if candidate == word:
        return True
    if candidate.startswith(stem) and candidate[len(stem) :] in _ENDINGS:
        return True
    # The stem cut a word's own ending ("weakness" to "weaknes"): its forms follow
    # the whole word ("weaknesses").
    if candidate.startswith(word) and candidate[len(word) :] in _ENDINGS:
        return True
    base = stem[:-1] if stem.endswith("e") else None
    return base is not None and (candidate.startswith(base) and candidate[len(base) :] in _AFTER_E)


def _fts_terms(words: Sequence[str]) -> list[str]:
    """FTS5 terms for the question's words: a prefix of each word's stem (4 letters or more).

    Also asking for each word's forms as whole words, so that a paper with the word
    itself outranked one whose longer word only begins alike ("code", "codebooks"),
    put more judged-relevant papers in the top 10 of ``bench/ask_eval.py`` (P@10
    0.49 to 0.52) but the first of them lower (MRR 0.84 to 0.78): left out. A
    sentence still counts such a word at a third (:data:`_PREFIX_ONLY`), so the
    answer quotes the papers with the word itself.
    """
    terms = []
    for word in words:
        stem = _stem(word)
        quoted = '"' + stem.replace('"', '""') + '"'
        terms.append(quoted + " *" if len(stem) >= 4 else quoted)
    return list(dict.fromkeys(terms))


@dataclass(frozen=True, slots=True)
class Ranked:
    paper: Paper
    #: Higher is better (see :meth:`TextIndex.ranked`).
    score: float


def rank_papers(
    store: Store,
    question: str,
    *,
    topic: str | None = None,
    since: datetime | None = None,
    limit: int = 8,
    progress: Callable[[int, int], None] | None = None,
    until: datetime | None = None,
) -> list[Ranked]:
    """The ``limit`` stored papers that best answer ``question`` (of ``topic``, dated
    since ``since`` and before ``until``)."""
    words = question_words(question)
    if not words:
        return []
    from papertrack.fulltext import IndexDamaged

    text = store.text_index(progress)
    ranked = None
    if text is not None:
        try:
            ranked = _index_rank(
                store, text.ranked(_fts_terms(words)), topic, (since, until), limit
            )
        except IndexDamaged as exc:
            store.text_index_broke(exc)
        finally:
            text.close()
    if ranked is None:
        # Scored here with each word's count: best first, then the newest.
        ranked = _scan_rank(store, words, topic, (since, until))
        ranked.sort(key=lambda r: (round(r.score, 3), *paper_date_key(r.paper)))
    else:
        # Best first; among papers the index scores alike (to 3 decimals), the ones
        # that say the question's words more often for their length, then the newest.
        stems = [_stem(w) for w in words]
        ranked.sort(
            key=lambda r: (round(r.score, 3), _depth(r.paper, stems), *paper_date_key(r.paper))
        )
    ranked.reverse()
    return ranked[:limit]


def day_end(day: date) -> datetime | None:
    """The moment ``day`` ends in UTC, the ``until`` of an --as-of ``day``: papers dated
    before it are of that day or earlier (None for the calendar's last day, which
    every paper is before)."""
    if day == date.max:
        return None
    after = day + timedelta(days=1)
    return datetime(after.year, after.month, after.day, tzinfo=UTC)


def last_day(until: datetime) -> date:
    """The day an ``until`` (:func:`day_end`) ends: the --as-of day."""
    return (until - timedelta(microseconds=1)).astimezone(UTC).date()


def _dated(paper: Paper, dates: tuple[datetime | None, datetime | None]) -> bool:
    """Whether ``paper`` is dated on or after the first of ``dates`` and before the
    second (either None: no bound)."""
    since, until = dates
    return paper.dated_from(since) and paper.dated_before(until)


def _depth(paper: Paper, stems: Sequence[str]) -> float:
    """How much of ``paper`` is about the words ``stems``: BM25's saturating term
    frequency of each (title words counted 4 times, as the index weighs them), with
    the length of a typical abstract (180 words) as the norm.

    The index keeps no counts, so it scores every paper that holds the same words in
    the same fields alike: "agent memory" tied 422 of the 83,510 real papers at the
    top, and the newest 8 of them, all of the last three days, were the answer.
    """
    from papertrack.query import tokenize

    body = tokenize(paper.title) * 4 + tokenize(paper.abstract)
    norm = 0.25 + 0.75 * len(body) / 180
    total = 0.0
    for stem in stems:
        tf = sum(1 for w in body if w.startswith(stem))
        total += tf * 2.2 / (tf + 1.2 * norm)
    return round(total, 6)


def _index_rank(
    store: Store,
    groups: Iterable[list[tuple[str, str, float]]],
    topic: str | None,
    dates: tuple[datetime | None, datetime | None],
    limit: int,
) -> list[Ranked]:
    """The best papers of the index's groups of equal score (best first) that are of
    ``topic`` and dated within ``dates`` (since, before; :func:`_dated`): whole
    groups, until ``limit`` are found.

    The topic and the date are known only from the papers themselves, so cutting
    the index's list first left a question about a topic with a few of its papers,
    or none. Papers are read in batches, each 4 times the last, so a week file is
    read a few times at most; weeks outside ``dates``, and weeks the store's index
    says hold no paper of ``topic``, are not read at all.
    """
    from papertrack.index import week_before
    from papertrack.store import UNDATED, week_of

    since, until = dates
    since_week = week_of(since) if since else None
    until_week = week_before(until) if until else None
    held = store.topic_weeks(topic) if topic is not None else None
    ranked: list[Ranked] = []
    batch: list[tuple[str, str, float]] = []
    size = POOL

    # With a topic: each week's papers of the topic, once its file is read. Batches
    # grow 4 times over and reach the same weeks again: a question about a narrow
    # topic read week files 131 times over 40 weeks (6.5 s against 1-2 s without).
    of_topic: dict[str, dict[str, Paper]] = {}

    def read() -> None:
        if topic is not None:
            for week in dict.fromkeys(week for _, week, _ in batch):
                if week not in of_topic:
                    found = store.search_week(week, topic=topic)
                    of_topic[week] = {paper.arxiv_id: paper for paper in found}
            for pid, week, score in batch:
                paper = of_topic[week].get(pid)
                if paper is not None and _dated(paper, dates):
                    ranked.append(Ranked(paper, score))
            batch.clear()
            return
        within: dict[str, set[str]] = {}
        for pid, week, _ in batch:
            within.setdefault(week, set()).add(pid)
        scores = {pid: score for pid, _, score in batch}
        for paper in store.papers_within(within):
            if _dated(paper, dates):
                ranked.append(Ranked(paper, scores[paper.arxiv_id]))
        batch.clear()

    for group in groups:
        # A whole group, whose papers the index scores alike: rank_papers tells them
        # apart by their text, and the best of them may be the oldest; but of a huge
        # tie, :data:`TIED` papers looked at (the newest) are enough once ``limit``
        # are found.
        looked = 0
        for at, (pid, week, score) in enumerate(group):
            if since_week is not None and (week == UNDATED or week < since_week):
                continue  # undated, or a week wholly before --since
            if until_week is not None and (week == UNDATED or week > until_week):
                continue  # undated, or a week wholly after --as-of
            if held is not None and week not in held:
                continue  # no paper of the topic in that week
            batch.append((pid, week, score))
            looked += 1
            # Read at the end of a week, so a week file is read once a batch.
            if (len(batch) >= size or looked >= TIED) and (
                at + 1 == len(group) or group[at + 1][1] != week
            ):
                if len(batch) >= size:
                    size *= 4
                read()
                if looked >= TIED and len(ranked) >= limit:
                    return ranked
        read()
        if len(ranked) >= limit:
            return ranked
    return ranked


def _scan_rank(
    store: Store,
    words: Sequence[str],
    topic: str | None,
    dates: tuple[datetime | None, datetime | None],
) -> list[Ranked]:
    """BM25 computed here over every stored paper: for a store without a usable index."""
    from papertrack.query import tokenize

    stems = [_stem(w) for w in words]
    docs: list[tuple[Paper, dict[str, int], int]] = []
    df = dict.fromkeys(stems, 0)
    total_len = 0
    scanned = 0
    for _, paper in store.search(lambda *_: True):
        if topic is not None and topic not in paper.tags:
            continue
        if not _dated(paper, dates):
            continue
        scanned += 1
        title = tokenize(paper.title)
        body = title * 4 + tokenize(paper.abstract)
        counts: dict[str, int] = {}
        for stem in stems:
            n = sum(1 for w in body if w.startswith(stem))
            if n:
                counts[stem] = n
                df[stem] += 1
        total_len += len(body)
        if counts:
            docs.append((paper, counts, len(body)))
    # Every paper in scope counts, as in the full-text index: counting only the
    # papers that match made a word in all of them weigh almost nothing.
    average = total_len / max(1, scanned)
    ranked = []
    for paper, counts, length in docs:
        score = 0.0
        for stem, tf in counts.items():
            saturation = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / max(average, 1)))
            score += bm25_idf(scanned, df[stem]) * saturation
        ranked.append(Ranked(paper, score))
    return ranked


# --------------------------------------------------------------------------- answers


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    #: The number of the cited paper (1-based, in :attr:`Answer.papers`).
    cite: int


@dataclass(frozen=True, slots=True)
class Cited:
    n: int
    paper: Paper
    score: float


@dataclass(frozen=True, slots=True)
class Person:
    """An author, or an affiliation, and their papers among those counted."""

    name: str
    #: Their papers counted.
    count: int
    #: The numbers of the first of them (newest first), in :attr:`Answer.papers`.
    cites: tuple[int, ...]


@dataclass
class Answer:
    question: str
    topic: str | None
    sentences: list[Sentence] = field(default_factory=list)
    #: The cited papers, in the order they are first cited.
    papers: list[Cited] = field(default_factory=list)
    #: Every paper considered (ranked), cited or not.
    considered: list[Ranked] = field(default_factory=list)
    #: What the question names that no paper quoted holds (:func:`unmatched`; of the
    #: papers considered when no sentence is quoted).
    unmatched: list[str] = field(default_factory=list)
    #: The question's words when each is in a paper quoted but no paper quoted holds
    #: them all (:func:`apart`).
    apart: list[str] = field(default_factory=list)
    #: A question about people (:func:`answer_who`): the authors and affiliations
    #: with the most of the ``counted`` papers, and the words they were found by.
    who: bool = False
    people: list[Person] = field(default_factory=list)
    affiliations: list[Person] = field(default_factory=list)
    counted: int = 0
    #: Whether more papers matched than :data:`PEOPLE_POOL`, the best of them counted.
    capped: bool = False
    about: list[str] = field(default_factory=list)

    def numbered(self) -> list[Ranked]:
        """Every paper considered, numbered as the answer numbers them: the cited
        papers first in the order they are cited, then the others best first."""
        cited = [c.paper.arxiv_id for c in self.papers]
        order = {pid: n for n, pid in enumerate(cited)}
        return sorted(self.considered, key=lambda r: order.get(r.paper.arxiv_id, len(order)))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question,
            "topic": self.topic,
            "answer": [{"text": s.text, "cite": s.cite} for s in self.sentences],
            "unmatched": self.unmatched,
            "apart": self.apart,
        }
        if self.who:

            def listed(people: list[Person]) -> list[dict[str, Any]]:
                return [{"name": p.name, "papers": p.count, "cite": list(p.cites)} for p in people]

            out["counted"] = self.counted
            out["capped"] = self.capped
            out["people"] = listed(self.people)
            out["affiliations"] = listed(self.affiliations)
        # With nothing cited (no author named twice), the papers drawn on, as the text
        # lists them: a script got "papers": [] under three listed papers.
        drawn = self.papers or [
            Cited(n, r.paper, r.score) for n, r in enumerate(self.considered, start=1)
        ]
        out["papers"] = [{"n": c.n, "score": round(c.score, 3), **c.paper.to_dict()} for c in drawn]
        return out


def sentences_of(text: str) -> list[str]:
    """The sentences of an abstract (joined lines, whitespace squeezed).

    A stop after an abbreviation ("e.g. GPT", "Dr. GRPO", "vs. RL", "et al. (2024)")
    or an initial ("J. Smith") ends no sentence: "by integrating SD-GRPO into Dr."
    was quoted as a sentence of its own. About 1,450 of 83,510 real abstracts have
    such a stop before a capital.
    """
    flat = " ".join(text.split())
    parts: list[str] = []
    for part in _SENTENCE_END.split(flat):
        if parts and _ABBREVIATION_END.search(parts[-1]):
            parts[-1] += " " + part
        else:
            parts.append(part)
    # Then each at its glued stops, as written (no space added), unless after an
    # abbreviation: "deployments.Unlike ... mitigation.To bridge" was one sentence.
    split: list[str] = []
    for part in parts:
        pieces = _GLUED_END.split(part)
        split.append(pieces[0])
        for piece in pieces[1:]:
            if _ABBREVIATION_END.search(split[-1]):
                split[-1] += piece
            else:
                split.append(piece)
    return [s.strip() for s in split if len(s.strip()) > 20]


def _frequencies(store: Store, words: Iterable[str]) -> tuple[int, dict[str, int]] | None:
    """(papers indexed, word -> papers holding it), or None without a text index."""
    from papertrack.fulltext import IndexDamaged

    text = store.text_index()
    if text is None:
        return None
    try:
        return text.document_frequency(words)
    except IndexDamaged as exc:
        store.text_index_broke(exc)
        return None
    finally:
        text.close()


def bm25_idf(total: int, df: int) -> float:
    """BM25's inverse document frequency of a word in ``df`` of ``total`` papers."""
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def answer_question(
    store: Store,
    question: str,
    *,
    topic: str | None = None,
    since: datetime | None = None,
    papers: int = 8,
    sentences: int = 5,
    progress: Callable[[int, int], None] | None = None,
    new: bool = False,
    until: datetime | None = None,
) -> Answer:
    """The answer to ``question``: the best ``sentences`` of the best ``papers``, cited.
    ``new`` (a question about what is new: :func:`asks_new`) favours the sentences that
    say what a paper brings ("we propose ...") over those that set the scene. Papers
    are those dated since ``since`` and before ``until``."""
    from papertrack.query import tokenize

    answer = Answer(question, topic)
    words = question_words(question)
    if not words and new and topic is not None:
        # "what's new?" asked of a topic names nothing else: its newest papers, and
        # what each brings.
        latest = store.latest(topic, limit=papers, since=since, until=until)
        answer.considered = [Ranked(p, 0.0) for p in latest]
    else:
        answer.considered = rank_papers(
            store, question, topic=topic, since=since, limit=papers, progress=progress, until=until
        )
    if not answer.considered:
        return answer
    stems = {_stem(w): w for w in words}
    # One look-up for both: the stems' weights and the words common in the store.
    found = _frequencies(store, [*stems, *words])
    total, counts = found or (0, {})
    weight = {s: bm25_idf(total, counts.get(s, 0)) if found else 1.0 for s in stems}
    if topic is not None:
        _discount_shared(weight, stems, answer.considered)
    best = answer.considered[0].score or 1.0
    candidates: list[tuple[float, int, str, set[str]]] = []
    for rank, ranked in enumerate(answer.considered):
        for sentence in sentences_of(ranked.paper.abstract):
            if _LINK.search(sentence):
                continue  # "Code is available at https://…": where, not what
            held = _with_spelled_out(set(tokenize(sentence)))
            coverage = 0.0
            for stem, word in stems.items():
                if any(_form_of(word, stem, w) for w in held):
                    coverage += weight[stem]
                elif any(w.startswith(stem) for w in held):
                    coverage += _PREFIX_ONLY * weight[stem]
            brings = new and _CONTRIBUTION.search(sentence) is not None
            if not stems and brings:
                coverage = 1.0  # nothing asked but what is new: what each paper brings
            if not coverage:
                continue
            length = max(8, len(held))
            score = coverage / math.sqrt(length / 8) + 0.5 * max(ranked.score, 0) / best
            if _LEANS_BACK.match(sentence):
                score *= _LEANING
            if brings:
                score *= _CONTRIBUTES
            candidates.append((score, rank, sentence, held))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    chosen: list[tuple[int, str, set[str]]] = []
    per_paper: dict[int, int] = {}
    for _score, rank, sentence, held in candidates:
        if len(chosen) >= sentences:
            break
        if per_paper.get(rank, 0) >= _PER_PAPER:
            continue
        if any(_overlap(held, other) > _TOO_SIMILAR for _, _, other in chosen):
            continue  # says what a chosen sentence says
        chosen.append((rank, sentence, held))
        per_paper[rank] = per_paper.get(rank, 0) + 1
    numbers: dict[int, int] = {}
    for rank, sentence, _ in chosen:
        if rank not in numbers:
            numbers[rank] = len(numbers) + 1
            ranked = answer.considered[rank]
            answer.papers.append(Cited(numbers[rank], ranked.paper, ranked.score))
        answer.sentences.append(Sentence(sentence, numbers[rank]))
    # Of the papers the answer quotes: those it draws on, though the others hold a word.
    quoted = [Ranked(c.paper, c.score) for c in answer.papers] or answer.considered
    common = {w for w in words if found and counts.get(w, 0) >= _COMMON * total}
    common -= _written_as_names(question)
    answer.unmatched = unmatched(question, quoted, common)
    if not answer.unmatched and answer.papers:
        answer.apart = apart(question, quoted, common)
    return answer


#: Words that ask for people, and those that only say how ("which research groups",
#: "who is working on", "the most prolific authors"): not what the papers are about.
_PEOPLE = frozenset(
    """author authors people person researcher researchers scientist scientists group
    groups lab labs laboratory laboratories team teams institution institutions
    university universities company companies organization organizations organisation
    organisations""".split()
)
_PLACES = _PEOPLE - frozenset(
    "author authors people person researcher researchers scientist scientists".split()
)
#: Words between "which" and the people asked for: "which research groups".
_ASKING = frozenset("research top leading main most active prolific known".split())
_WHO_ONLY = (
    _PEOPLE
    | _ASKING
    | frozenset(
        """whose whom researching working studying publishing publish publishes published
    writing writes wrote write written study studies studied think thinks thought say
    says saying said doing best lead leads""".split()
    )
)
#: Papers counted for a question about people: the best that match its words, or
#: the newest of its topic.
PEOPLE_POOL = 200
#: Authors and affiliations an answer names, at most; and papers it cites for each.
PEOPLE_SHOWN = 10
CITES_EACH = 3


#: A question about what is new: "what is new in GUI agents?", "what's the latest on
#: world models?", "recent advances in agentic RL".
_NEWS = r"(?:work|papers?|advances?|developments?|progress|results?|trends?|ideas?|findings?)"
_ASKS_NEW = re.compile(
    r"^\W*what(?:'s|\u2019s|\s+is|\s+are)\s+(?:the\s+)?(?:new|newest|latest|recent)\b|"
    rf"\b(?:latest|newest|recent)\s+{_NEWS}\s+(?:in|on|about|for|with)\b|"
    rf"^\W*(?:latest|newest|recent)\s+{_NEWS}\W*$",
    re.IGNORECASE,
)
#: What a question about what is new draws on: the papers of this many days up to the
#: newest stored one (the momentum window), unless --since says otherwise.
NEW_DAYS = 28
#: A sentence saying what a paper brings ("we propose", "we introduce") weighs this
#: much more in the answer to what is new.
_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:\w+\s+){0,2}?(?:propose|present|introduce|develop|"
    r"release|build|design|show|find|demonstrate)s?\b",
    re.IGNORECASE,
)
_CONTRIBUTES = 1.5
#: The words a question about what is new says it with (:data:`_ASKS_NEW`).
_NEWS_WORDS = frozenset(
    "new newest latest recent work papers paper advances advance developments "
    "development progress results result trends trend ideas idea findings finding".split()
)


#: A query field in a question ("author:lecun world models"): ask reads words.
_FIELD = re.compile(
    # A phrase or a group whole: 'author:"Yann' was offered as a search, which failed.
    r"(?<![\w-])(title|abstract|author|category|ti|abs|au|cat):\s*"
    r"(\"[^\"]*\"?|\([^)]*\)?|\S*)",
    re.IGNORECASE,
)


def without_fields(question: str) -> tuple[str, str | None]:
    """``question`` with query fields left out (``author:lecun world models`` asks
    about "lecun world models": answered as written, it drew on papers that say
    "authored"), and the first field's text, or None when there was none."""
    field = _FIELD.search(question)
    if field is None:
        return question, None
    return " ".join(_FIELD.sub(r"\2", question).split()) or question, field.group(0)


def new_since(store: Store, until: datetime | None = None) -> datetime | None:
    """Where a question about what is new (:func:`asks_new`) starts: :data:`NEW_DAYS`
    days up to the newest stored paper, or up to the day before ``until`` (an
    --as-of: the topic page's window of that day, whatever the store holds) (None:
    no dated paper). "what is new in GUI Agents?", which the topic page offers,
    drew on papers of nine months back."""
    newest = store.newest_day()
    if newest is None:
        return None
    if until is not None:
        newest = last_day(until)
    # (An --as-of in the calendar's first days starts at its first.)
    first = max(newest, date.min + timedelta(days=NEW_DAYS - 1)) - timedelta(days=NEW_DAYS - 1)
    return datetime(first.year, first.month, first.day, tzinfo=UTC)


def check_question(question: str, *, topic: bool, for_model: bool = False) -> None:
    """Refuse a question with no word to look up ("the of and" said that no paper
    matched its words), unless it asks what is new or who of a ``topic``, which its
    papers answer. ``for_model``: the papers are for a model to answer from (``ask
    --context``/``--llm``), which takes a question about people as any other.

    Raises:
        UsageError: saying what to ask instead.
    """
    from papertrack.errors import UsageError
    from papertrack.query import tokenize
    from papertrack.text import visible

    new, who = asks_new(question), asks_who(question)
    if who and not for_model and not topic and not about_whom(question):
        # "who works?": nothing to count authors of, and no topic to take them from.
        raise UsageError(
            "the question asks who, but not about what. Name it: 'who works on GUI "
            "agents?', or give a topic: papertrack ask gui-agents 'who works on this?'"
        )
    if question_words(question):
        return
    if topic and (new or who):
        return
    if new:
        raise UsageError(
            "new in what? Name it, 'what is new in world models?', or give a topic: "
            "papertrack ask gui-agents 'what is new?'"
        )
    said = ", ".join(repr(w) for w in dict.fromkeys(tokenize(question)))
    raise UsageError(
        f"the question has no word to look up: {visible(said)} "
        f"{'is' if ',' not in said else 'are'} too common to tell papers apart. "
        "Ask about something, e.g. 'how are GUI agents trained?'"
        if said
        else "the question has no words. Ask something, e.g. 'how are agents trained?'"
    )


def respond(
    store: Store,
    question: str,
    *,
    topic: str | None = None,
    since: datetime | None = None,
    papers: int = 8,
    progress: Callable[[int, int], None] | None = None,
    until: datetime | None = None,
) -> Answer:
    """What ``papertrack ask`` answers ``question`` with (as :func:`answer_question`,
    after :func:`without_fields`): a question about people (:func:`asks_who`) with
    the authors who wrote most of the papers that match, when any did; one about
    what is new (:func:`asks_new`) from the papers of :func:`new_since` unless
    ``since`` is given, favouring what they bring. A question with nothing to look up
    is refused (:func:`check_question`). The command line and the Python API answer
    through this: the API answered "who works on GUI agents?" with
    quoted sentences, and "what is new?" from papers nine months old."""
    question, _ = without_fields(question)
    check_question(question, topic=topic is not None)
    new, people = asks_new(question), asks_who(question)
    if new and since is None:
        since = new_since(store, until)
    scope = _Scope(topic=topic, since=since, papers=papers, progress=progress, until=until)
    if people:
        who = answer_who(store, question, **scope)
        if who.counted or not who.about:
            return who
        # No paper holds every word ("who wrote about GRPO?" before "wrote" was
        # known as asking): answered as any question, from the nearest papers.
    return answer_question(store, question, **scope, new=new)


class _Scope(TypedDict):
    """What :func:`respond` answers from, as :func:`answer_who` and
    :func:`answer_question` both take it."""

    topic: str | None
    since: datetime | None
    papers: int
    progress: Callable[[int, int], None] | None
    until: datetime | None


def asks_new(question: str) -> bool:
    """Whether ``question`` asks what is new: it is answered from the latest papers."""
    return _ASKS_NEW.search(question) is not None


def asks_who(question: str) -> bool:
    """Whether ``question`` asks for people: "who works on GUI agents?", "which labs
    study world models?", "top authors in agentic RL"."""
    from papertrack.query import tokenize

    words = tokenize(question)
    if not words:
        return False
    if words[0] in ("who", "whom", "whose"):
        return True
    # "which labs", "what research groups", "top authors": the people are what is
    # asked for; in "what do researchers think about RLHF?" they are not.
    if words[0] not in ("which", "what", "top", "leading", "main", "most"):
        return False
    rest = [w for w in words[1:3] if w not in _ASKING]
    return bool(rest) and rest[0] in _PEOPLE


def about_whom(question: str) -> list[str]:
    """The words of a question about people (:func:`asks_who`) besides those that ask
    for people: what the people work on ("who works on GUI agents?": gui, agents)."""
    return [w for w in question_words(question) if w not in _WHO_ONLY]


def asks_places(question: str) -> bool:
    """Whether ``question`` asks for labs, groups or institutions, not authors."""
    from papertrack.query import tokenize

    return any(w in _PLACES for w in tokenize(question))


def answer_who(
    store: Store,
    question: str,
    *,
    topic: str | None = None,
    since: datetime | None = None,
    papers: int = 8,
    progress: Callable[[int, int], None] | None = None,
    until: datetime | None = None,
) -> Answer:
    """The answer to a question about people (:func:`asks_who`): the authors, and the
    affiliations, with the most papers among those counted, each cited.

    Counted are the papers that hold every word of the question besides the ones
    asking for people ("who works on GUI agents?": "gui" and "agents") in their
    title or in one sentence, of the :data:`PEOPLE_POOL` that best match them; with
    no such word, the newest :data:`PEOPLE_POOL` of ``topic``. Only those with two
    papers or more are named: one paper says who wrote it, not who works on
    something. With nobody to name, :attr:`Answer.considered` holds the best
    ``papers`` papers counted.
    """
    from collections import Counter

    from papertrack.query import tokenize

    answer = Answer(question, topic, who=True)
    words = about_whom(question)
    answer.about = words
    if words:
        ranked = rank_papers(
            store,
            " ".join(words),
            topic=topic,
            since=since,
            limit=PEOPLE_POOL,
            progress=progress,
            until=until,
        )
        stems = [_stem(w) for w in words]

        def holds_all(paper: Paper) -> bool:
            # In its title, or in one sentence: "terminal" and "agents" in two
            # sentences (a terminal reward; agents) is not a paper on terminal agents.
            for part in (paper.title, *sentences_of(paper.abstract)):
                held = set(tokenize(part))
                if all(any(w.startswith(stem) for w in held) for stem in stems):
                    return True
            return False

        pool = [r for r in ranked if holds_all(r.paper)]
        answer.capped = len(ranked) >= PEOPLE_POOL
    elif topic is not None:
        pool = [
            Ranked(p, 0.0) for p in store.latest(topic, limit=PEOPLE_POOL, since=since, until=until)
        ]
        answer.capped = len(pool) >= PEOPLE_POOL
    else:
        return answer
    answer.counted = len(pool)
    # Newest first within each name's papers, so a name cites its latest work.
    by_date = sorted(pool, key=lambda r: paper_date_key(r.paper), reverse=True)
    newest = {r.paper.arxiv_id: at for at, r in enumerate(by_date)}
    numbers: dict[str, int] = {}
    cited: list[Ranked] = []

    def named(names_of: Callable[[Paper], Iterable[str]]) -> list[Person]:
        found: dict[str, list[Ranked]] = {}
        spelt: dict[str, Counter[str]] = {}
        for r in by_date:
            for name in dict.fromkeys(" ".join(n.split()) for n in names_of(r.paper)):
                if name:
                    key = name.casefold()
                    found.setdefault(key, []).append(r)
                    spelt.setdefault(key, Counter())[name] += 1
        # Most papers first; of as many, the one with the newest paper.
        best = sorted(
            (key for key, rs in found.items() if len(rs) >= 2),
            key=lambda k: (-len(found[k]), newest[found[k][0].paper.arxiv_id], k),
        )[:PEOPLE_SHOWN]
        people = []
        for key in best:
            cites = []
            for r in found[key][:CITES_EACH]:
                pid = r.paper.arxiv_id
                if pid not in numbers:
                    numbers[pid] = len(numbers) + 1
                    cited.append(r)
                cites.append(numbers[pid])
            people.append(Person(spelt[key].most_common(1)[0][0], len(found[key]), tuple(cites)))
        return people

    answer.people = named(lambda paper: paper.authors)
    answer.affiliations = named(lambda paper: paper.affiliations)
    answer.papers = [Cited(numbers[r.paper.arxiv_id], r.paper, r.score) for r in cited]
    best_first = sorted(pool, key=lambda r: -r.score) if words else pool
    answer.considered = best_first[:papers]
    return answer


#: A name with a number in the question, "GPT-7", "ARC-AGI-5", "Qwen2.5": its words
#: must come in a paper side by side, or the paper names another version.
_VERSIONED = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")


def unmatched(
    question: str, considered: Sequence[Ranked], common: AbstractSet[str] = frozenset()
) -> list[str]:
    """What ``question`` names that none of the papers ``considered`` holds: its words
    (in any form, as a sentence is scored) but the ``common`` ones, and its names
    with a version number as a phrase. A question about something no stored paper
    is about still draws on the papers nearest its other words; this says which
    part is not answered ("how does GPT-7 score on ARC-AGI-5?" drew on papers about
    ARC-AGI-3)."""
    from papertrack.query import tokenize

    # Title and abstract apart, so no name runs from one into the other; each
    # paper's words, for the question's words in any form.
    titles = [tokenize(r.paper.title) for r in considered]
    abstracts = [tokenize(r.paper.abstract) for r in considered]
    runs = titles + abstracts
    texts = [_with_spelled_out({*t, *a}) for t, a in zip(titles, abstracts, strict=True)]
    missing: list[str] = []
    named: set[str] = set()
    for match in _VERSIONED.finditer(question):
        words = tokenize(match.group())
        if len(words) < 2 and not (words and _GLUED_NUMBER.fullmatch(words[0])):
            continue
        if not any(w.isdigit() for w in words) and not _GLUED_NUMBER.fullmatch(words[-1]):
            continue
        named.update(words)
        if not any(_names(run, "".join(words)) for run in runs):
            missing.append(match.group())
    for word in asked_words(question):
        if word in named or word in common:
            continue
        stem = _stem(word)
        if not any(_holds(held, word, stem) for held in texts):
            missing.append(word)
    return list(dict.fromkeys(missing))  # a name asked twice is said once


#: A question of more words than this is not checked for papers holding them all:
#: few papers hold every word of a long question, and it is no sign of a poor answer.
APART_WORDS = 4


def apart(
    question: str, quoted: Sequence[Ranked], common: AbstractSet[str] = frozenset()
) -> list[str]:
    """The question's words (but the ``common`` ones) when 2 to :data:`APART_WORDS` of
    them are each in a paper ``quoted`` and no one paper holds them all: the answer
    then joins papers on each part ("quantum zebras" was answered from a paper on
    zebra brain decoding and one on quantum computing, without a word)."""
    from papertrack.query import tokenize

    words = [w for w in asked_words(question) if w not in common]
    if not 2 <= len(words) <= APART_WORDS:
        return []
    texts = [
        _with_spelled_out({*tokenize(r.paper.title), *tokenize(r.paper.abstract)}) for r in quoted
    ]
    stems = {w: _stem(w) for w in words}
    if any(all(_holds(text, w, stems[w]) for w in words) for text in texts):
        return []
    return words


def _holds(text: AbstractSet[str], word: str, stem: str) -> bool:
    """Whether the words ``text`` hold ``word`` (of stem ``stem``) in any form."""
    return any(_form_of(word, stem, w) for w in text)


_GLUED_NUMBER = re.compile(r"[a-z]+\d+[a-z0-9]*")
#: A word written with two capitals or more: an acronym or a name ("GRPO", "WebArena").
_CAPITALS = re.compile(r"[^\W\d_]*[A-Z][^\W\d_]*[A-Z][^\W\d_]*")


def _written_as_names(question: str) -> set[str]:
    """The words ``question`` writes as names, folded: however common in the store, a
    name is what the question is about ("what is GRPO's main weakness?", where GRPO
    is in 1.8% of 83,510 real papers, drew on four papers none of which names it)."""
    from papertrack.query import tokenize

    return {w for match in _CAPITALS.finditer(question) for w in tokenize(match.group())}


def _names(words: Sequence[str], name: str) -> bool:
    """Whether some run of ``words`` side by side spells ``name`` (its words glued):
    "Llama-3", "Llama 3" and "Llama3" all name llama3, "COVID19" names COVID-19."""
    for start, word in enumerate(words):
        if not name.startswith(word):
            continue
        spelled = word
        for more in words[start + 1 :]:
            if spelled == name or not name.startswith(spelled + more):
                break
            spelled += more
        if spelled == name:
            return True
    return False


#: A word in this share of the stored papers or more says how a question is put
#: ("handle", in 2% of 83,510 real papers), not what it is about.
_COMMON = 0.01


#: Abbreviations papers use for what a question may spell out, and the other way
#: round: "RL" in a sentence answers "reinforcement learning" in a question.
_SPELLED_OUT = {
    "rl": ("reinforcement", "learning"),
    "llm": ("large", "language", "model"),
    "llms": ("large", "language", "models"),
    "vlm": ("vision", "language", "model"),
    "vlms": ("vision", "language", "models"),
    "rag": ("retrieval", "augmented", "generation"),
}
#: How much of a question word's weight is left when every paper drawn on has it.
_SHARED_LEFT = 0.3


def _with_spelled_out(held: set[str]) -> set[str]:
    """``held``, with the words an abbreviation in it stands for, and the
    abbreviation of what it spells out in full."""
    for short, words in _SPELLED_OUT.items():
        if short in held:
            held.update(words)
        elif held.issuperset(words):
            held.add(short)
    return held


def _discount_shared(
    weight: dict[str, float], stems: dict[str, str], considered: Sequence[Ranked]
) -> None:
    """Weigh down the question words that every paper drawn on has (of a topic: over
    the whole store, the papers drawn on share the question's words because the
    ranking chose them by those words, and the discount quoted worse sentences).

    Asked within a topic ("how are GUI agents trained with reinforcement learning?"
    of gui-agents), "GUI" and "agents" are in every paper and tell no sentence from
    another, while the store's rarity made them outweigh "reinforcement": the
    answer quoted sentences about GUI agents and none about RL.
    """
    from papertrack.query import tokenize

    texts = [
        _with_spelled_out(set(tokenize(f"{r.paper.title} {r.paper.abstract}"))) for r in considered
    ]
    for stem, word in stems.items():
        having = sum(any(_form_of(word, stem, w) for w in held) for held in texts)
        share = having / len(texts)
        weight[stem] *= 1 - (1 - _SHARED_LEFT) * share


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))


# --------------------------------------------------------------------------- models


INSTRUCTIONS = (
    "Answer the question using only the numbered papers below. Cite every claim with "
    "the number of the paper it comes from, in square brackets, like [2]. If the papers "
    "do not answer the question, say so. Do not use any other source."
)


def reference(paper: Paper) -> str:
    """How a paper is named beside its title: ``arXiv:2508.13167``, or a feed
    entry's own id (an entry of another feed is not arXiv's)."""
    from papertrack.ids import stored_arxiv_id

    return f"arXiv:{paper.arxiv_id}" if stored_arxiv_id(paper.arxiv_id) else paper.arxiv_id


def context_pack(question: str, ranked: Sequence[Ranked], names: Callable[[Paper], str]) -> str:
    """The question, the instructions and the numbered papers, as plain text for a model."""
    lines = [f"Question: {question}", "", INSTRUCTIONS, ""]
    for n, r in enumerate(ranked, start=1):
        p = r.paper
        day = p.paper_date.date().isoformat() if p.paper_date else "undated"
        lines.append(f"[{n}] {' '.join(p.shown_title.split())} ({reference(p)}, {day})")
        if p.authors:
            lines.append(f"Authors: {names(p)}")
        lines.append(f"Abstract: {' '.join(p.abstract.split())}")
        lines.append("")
    return "\n".join(lines)


_CITATION = re.compile(r"\[(\d{1,4})\]")


def check_citations(text: str, papers: int) -> tuple[str, list[int]]:
    """``text`` with every ``[n]`` that names no paper of the pack marked ``[n?]``, and those n."""
    unknown: list[int] = []

    def mark(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= papers:
            return match.group(0)
        unknown.append(n)
        return f"[{n}?]"

    return _CITATION.sub(mark, text), sorted(set(unknown))
