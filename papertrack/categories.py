"""arXiv's category taxonomy: which names ``fetch -c`` and ``latest -c`` accept.

From arXiv's category taxonomy page (https://arxiv.org/category_taxonomy), plus
the archives that were categories of their own before subject classes (``hep-th``,
``astro-ph``, ``cond-mat``) and the retired archives old papers still carry
(``cmp-lg``, ``alg-geom``, …): a snapshot or OAI harvest stores those too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from papertrack.errors import UsageError

if TYPE_CHECKING:
    from papertrack.store import Store

__all__ = [
    "ARXIV_CATEGORIES",
    "CATEGORY_NAME",
    "TAXONOMY_URL",
    "canonical",
    "check_categories",
    "is_arxiv_category",
    "suggest",
    "unknown_categories",
]

#: The shape of an arXiv category name (cs.AI, hep-th, cond-mat.stat-mech), known or not.
CATEGORY_NAME = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?", re.ASCII)

TAXONOMY_URL = "https://arxiv.org/category_taxonomy"

_GROUPS = {
    "cs": "AI AR CC CE CG CL CR CV CY DB DC DL DM DS ET FL GL GR GT HC IR IT LG LO MA MM MS "
    "NA NE NI OH OS PF PL RO SC SD SE SI SY",
    "econ": "EM GN TH",
    "eess": "AS IV SP SY",
    "math": "AC AG AP AT CA CO CT CV DG DS FA GM GN GR GT HO IT KT LO MG MP NA NT OA OC PR QA "
    "RA RT SG SP ST",
    "astro-ph": "CO EP GA HE IM SR",
    "cond-mat": "dis-nn mes-hall mtrl-sci other quant-gas soft stat-mech str-el supr-con",
    "nlin": "AO CD CG PS SI",
    "physics": "acc-ph ao-ph app-ph atm-clus atom-ph bio-ph chem-ph class-ph comp-ph data-an "
    "ed-ph flu-dyn gen-ph geo-ph hist-ph ins-det med-ph optics plasm-ph pop-ph soc-ph space-ph",
    "q-bio": "BM CB GN MN NC OT PE QM SC TO",
    "q-fin": "CP EC GN MF PM PR RM ST TR",
    "stat": "AP CO ME ML OT TH",
}
# Archives without subject classes, and archives that were categories themselves.
_PLAIN = "gr-qc hep-ex hep-lat hep-ph hep-th math-ph nucl-ex nucl-th quant-ph astro-ph cond-mat"
# Retired archives (merged into the ones above in the 1990s), still on old papers.
_RETIRED = (
    "acc-phys adap-org alg-geom ao-sci atom-ph bayes-an chao-dyn chem-ph cmp-lg comp-gas dg-ga "
    "funct-an mtrl-th patt-sol plasm-ph q-alg solv-int supr-con"
)

#: Every arXiv category name, as arXiv spells it.
ARXIV_CATEGORIES: frozenset[str] = frozenset(
    [f"{group}.{sub}" for group, subs in _GROUPS.items() for sub in subs.split()]
    + _PLAIN.split()
    + _RETIRED.split()
)
_FOLDED = {name.casefold(): name for name in ARXIV_CATEGORIES}


def is_arxiv_category(name: str) -> bool:
    """Whether ``name`` is an arXiv category, in any case (``cs.AI``, ``cs.ai``)."""
    return name.casefold() in _FOLDED


def canonical(name: str) -> str:
    """``name`` as arXiv spells it (``cs.ai`` → ``cs.AI``); unknown names as given."""
    return _FOLDED.get(name.casefold(), name)


def suggest(name: str, also: Iterable[str] = ()) -> str | None:
    """The arXiv category (or one of ``also``) closest to a mistyped ``name``, if any is close."""
    stored = {n.casefold(): n for n in also}
    names = {**_FOLDED, **stored}
    folded = name.casefold()
    # cs.Al (a lower-case L) is cs.AI in most fonts: difflib found cs.PL as close.
    for look_alike in (folded.replace("l", "i"), folded.replace("i", "l")):
        if look_alike != folded and look_alike in names:
            return names[look_alike]
    close = difflib.get_close_matches(folded, list(names), n=5, cutoff=0.75)
    if not close:
        return None
    # Among the equally close: one the store holds (the user's own categories), then
    # the one whose letters stand in the same places (cs.AJ is cs.AI or cs.AR, one
    # letter off at the end, not cs.NA, the same letters moved, as difflib ordered).
    best = max(
        close,
        key=lambda c: (
            round(difflib.SequenceMatcher(None, folded, c).ratio(), 6),
            c in stored,
            sum(a == b for a, b in zip(folded, c, strict=False)),
        ),
    )
    return names[best]


def unknown_categories(store: Store, patterns: Sequence[str]) -> list[tuple[str, str]]:
    """Each exact category of ``patterns`` neither arXiv's nor any stored paper's, with
    what to say of it: a filter by it can only ever match nothing, so it is a typo
    (``cs.XX``). A category of a non-arXiv feed is stored, hence known."""
    exact = [p for p in patterns if p and not p.endswith("*") and not is_arxiv_category(p)]
    if not exact:
        return []
    stored = set(store.index().listed) if store.exists() else set()
    folded = {name.casefold() for name in stored}
    unknown = []
    for name in exact:
        if name.casefold() not in folded:
            # An archive alone ("cs") names its categories with a prefix: cs.*.
            archive = any(c.casefold().startswith(f"{name.casefold()}.") for c in ARXIV_CATEGORIES)
            close = f"{name}.*" if archive else suggest(name, stored)
            hint = f" Did you mean {close}?" if close else ""
            unknown.append(
                (
                    name,
                    f"arXiv has none of that name and no stored paper has it.{hint} List the "
                    f"stored ones with 'papertrack stats --top 0' (arXiv's are at {TAXONOMY_URL})",
                )
            )
    return unknown


def check_categories(store: Store, patterns: Sequence[str]) -> None:
    """Refuse a ``-c`` category that is neither arXiv's nor on any stored paper.

    Such a filter can only ever match nothing, so it is a typo (``cs.XX``); a
    category of a non-arXiv feed is stored, hence known, and so is accepted.

    Raises:
        UsageError: the first such category, with what to do.
    """
    for name, hint in unknown_categories(store, patterns):
        raise UsageError(f"no such category {name!r}: {hint}")
