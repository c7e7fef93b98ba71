"""Teaching topics: the examples a user taught, the models fitted to them, and what
decides whether a teach refits a model or keeps it.

``papertrack topics teach`` and ``topics add --like`` word what happens
(papertrack/cli/topics_teach.py, papertrack/cli/topics.py, and what the two share in
papertrack/cli/teaching.py); this module holds the rules and the files they read and
write: ``examples.json`` in the data home and ``models/<slug>.json``, whose ``meta``
keeps ``pinned`` (the taught decisions), ``unfitted`` (pinned since the fit),
``copy_of`` (a pinned copy of a shipped model), ``definition`` and ``taught`` (see
:func:`pin`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertrack import paths
from papertrack.errors import PapertrackError

if TYPE_CHECKING:
    from papertrack.store import Store
    from papertrack.topics import Catalog, Topic


def outdated(meta: dict[str, Any], feature_set: int) -> str:
    """Why a taught model should be refit ("" if it need not): an older papertrack
    fitted it on fewer features, or made it from a few examples by a regression
    that learned only those examples."""
    if meta.get("feature_set") != feature_set:
        return "without the concept features"
    if meta.get("cv") is None and meta.get("kind") != "centroid":
        return "from a few examples by a fit that learned only them"
    return ""


def made_from_examples(topic: Topic) -> bool:
    """Whether a user's topic was made from examples (``topics add --like``), not by
    its query alone: such a topic cannot forget them all."""
    from papertrack.topics import Catalog

    if not topic.query.strip():
        return True
    # Made with --like, its entry in the user's file names its model (a query topic
    # taught later has its model put in place by with_models, not named there).
    user = paths.user_topics_file()
    written = Catalog.load(
        paths.default_topics_file(), user if user.is_file() else None, lenient=True
    )
    entry = written.by_slug(topic.slug)
    if entry is None or not entry.model_file:
        return False
    # A default copied to rename it keeps the default's model (topics._inherit_model):
    # that is no model of examples, and teaching it must not be refused as one.
    default = Catalog.default().by_slug(topic.slug)
    return default is None or entry.model_file != default.model_file


def taught_like(topic: Topic) -> bool:
    """Whether the topic's taught model says it was made from examples (False for a
    topic without a model of its own)."""
    meta = topic.model.meta if topic.model_file else {}
    # A taught model written before papertrack kept "like" decided "either" whenever
    # it had a query and few examples, made with --like or not: one made with --like
    # (its topics.toml entry names its model) goes on doing so. A query topic taught
    # then became one "made from examples", and its next teach took in 21 papers
    # its query did not match.
    old = (
        "taught" in meta
        and "like" not in meta
        and meta.get("decide") == "either"
        and topic.source != "default"
        and made_from_examples(topic)
    )
    return bool(meta.get("like") or old)


def examples_of(slug: str) -> dict[str, bool]:
    """The examples taught to the topic ``slug``, by id: in the topic or not."""
    from papertrack import training

    return dict(training.load_examples(paths.user_examples_file()).get(slug, {}))


def delete_teaching(slug: str) -> tuple[dict[str, bool], bool]:
    """Delete a topic's taught examples and model; the examples, and whether there
    was a model."""
    from papertrack import training

    examples = training.load_examples(paths.user_examples_file())
    taught = examples.pop(slug, {})
    if taught:
        training.save_examples(paths.user_examples_file(), examples)
    path = paths.user_model_file(slug)
    had_model = path.is_file()
    path.unlink(missing_ok=True)
    return taught, had_model


def is_current(topic: Topic) -> bool:
    """Whether ``topic``'s model is one this papertrack would fit: the shipped one, or
    one taught since the taught models kept what they were made by (an older one is
    refit when taught, whatever it is taught)."""
    from papertrack.learn import FEATURE_SET
    from papertrack.topics import model_digest, put_back

    if not taught_model(topic):
        return True
    meta = topic.model.meta
    if put_back(topic, meta):
        # Counted current, a default put back as bundled went on deciding by the query
        # of the topic that had replaced it, and teaching its examples again said
        # "nothing more to teach".
        return False
    shipped = shipped_model(topic.slug)
    if meta.get("copy_of") and shipped is not None:
        # A pinned copy of the shipped model (a teach of papers already so): current
        # while papertrack ships the same model. Not counted so, a second such teach
        # refit and moved 30 tags where the first moved none.
        return bool(meta["copy_of"] == model_digest(shipped))
    return "like" in meta and not outdated(meta, FEATURE_SET)


def taught_model(topic: Topic) -> bool:
    """Whether ``topic`` decides by a model the user taught (not the shipped one)."""
    from pathlib import Path

    return Path(topic.model_file).resolve() == paths.user_model_file(topic.slug).resolve()


def shipped_model(slug: str) -> Path | None:
    """The model file papertrack ships for the default topic ``slug`` (None: none)."""
    from pathlib import Path

    from papertrack.topics import Catalog

    shipped = Catalog.default().by_slug(slug)
    if shipped is None or not shipped.model_file or not Path(shipped.model_file).is_file():
        return None
    return Path(shipped.model_file)


def keeps_for_already_so(topic: Topic) -> bool:
    """Whether a teach of papers ``topic`` already decides as taught keeps its model:
    the shipped one (or its pinned copy), and a topic of examples. A default topic's
    model refit for earlier examples is refit again, with the new ones: kept, the
    same examples taught in another order gave other tags (11 apart)."""
    if not taught_model(topic) or taught_like(topic):
        return True
    try:
        return bool(topic.model.meta.get("copy_of"))
    except (OSError, ValueError, PapertrackError):
        return False


def shipped_agrees(
    topic: Topic, taught: Mapping[str, bool], stored: Mapping[str, Any]
) -> Topic | None:
    """``topic`` with its shipped model, when that model (as papertrack ships it, with
    the topic's definition unchanged) decides every taught example as taught: the
    examples then ask for nothing it does not do. None: a refit is needed.
    ``stored``: the taught papers the store holds, by id.

    A teach in and then out of the same paper refit for the paper taught out, while
    teaching it out alone kept the shipped model: the same examples, 26 tags apart.
    """
    import dataclasses

    from papertrack.topics import Catalog

    shipped_file = shipped_model(topic.slug)
    if shipped_file is None or not taught or taught_like(topic):
        return None
    default = Catalog.default()
    if not decides_as_shipped(topic, default.by_slug(topic.slug)):
        return None
    if stored.keys() != set(taught):
        return None  # a paper the store lacks cannot be checked
    for pid, inside in taught.items():
        paper = stored[pid]
        if not decided_so(default, topic.slug, paper, inside, default.tag(paper)):
            return None
    return dataclasses.replace(topic, model_file=str(shipped_file))


def decided_so(catalog: Catalog, slug: str, paper: Any, inside: bool, tags: Iterable[str]) -> bool:
    """Whether ``catalog``, whose tags of ``paper`` are ``tags``, has it in (or out of)
    the topic ``slug`` as taught without a refit: its tags say so, or the topic's own
    rule does, and the taught decision holds over the implication that gives the tags
    otherwise. A paper in only through an implication, taught out, refit the model
    and moved 4 other papers."""
    if (slug in tags) is inside:
        return True
    return (slug in catalog.own_tags(paper)) is inside


def decides_as_shipped(topic: Topic, shipped: Topic | None) -> bool:
    """Whether ``topic`` is defined and decides as ``shipped``, the default topic of its
    slug (its model aside): the shipped model's tags and figures are then its own."""
    return (
        shipped is not None
        and topic.definition == shipped.definition
        and topic.decide == shipped.decide
    )


def pin(topic: Topic, taught: dict[str, bool]) -> frozenset[str]:
    """Write ``topic``'s model as it is, with ``taught`` as its pinned examples; the
    papers pinned otherwise than before (taught in or out anew, or no longer)."""
    import dataclasses

    from papertrack import training
    from papertrack.topics import model_digest

    model = topic.model
    meta = dict(model.meta)
    if not taught_model(topic):
        # A copy of the shipped model: which one, so that it is known for current
        # (and said when papertrack ships another).
        meta["copy_of"] = model_digest(topic.model_file)
    before = dict(meta.get("pinned") or {})
    meta["pinned"] = dict(sorted(taught.items()))
    # Examples pinned since the model was fitted: the next refit fits on them too, and
    # the way back from what it does is to unteach them with that teach's own.
    unfitted = [str(a) for a in meta.get("unfitted") or [] if a in taught]
    unfitted += [a for a, inside in taught.items() if before.get(a) is not inside]
    meta["unfitted"] = sorted(set(unfitted))
    meta["definition"] = topic.definition
    meta["taught"] = {"in": sum(taught.values()), "out": sum(not v for v in taught.values())}
    training.save_model(dataclasses.replace(model, meta=meta), paths.user_model_file(topic.slug))
    return frozenset(a for a in before.keys() | taught.keys() if before.get(a) != taught.get(a))


def model_meta(topic: Topic) -> dict[str, Any]:
    """``topic``'s model's meta; empty when it has no model, or one that cannot be
    read (the command that needs the model says so)."""
    if not topic.model_file:
        return {}
    try:
        return dict(topic.model.meta)
    except (OSError, ValueError, PapertrackError):
        return {}


def pinned(topic: Topic) -> dict[str, bool]:
    """The papers ``topic``'s model holds as taught (examples.json says what was
    taught; a teach killed between writing it and the model left them apart)."""
    found = model_meta(topic).get("pinned") or {}
    return {str(pid): bool(inside) for pid, inside in found.items()}


def unfitted(topic: Topic, taught: Mapping[str, bool]) -> list[str]:
    """The examples pinned to ``topic``'s model since it was fitted (see :func:`pin`),
    as they are taught now."""
    named = model_meta(topic).get("unfitted") or []
    return [str(a) for a in named if str(a) in taught]


def stored_papers(store: Store, ids: list[str]) -> list[Any]:
    """The stored papers of ``ids``, skipping those not in the store (an id kept in
    examples.json that is no id at all, edited by hand, names no stored paper)."""
    from papertrack.export import find_papers

    found = find_papers(store, ids, lenient=True)
    return [found[pid] for pid in ids if pid in found]
