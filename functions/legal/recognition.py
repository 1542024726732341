"""Whether a legal-guidance request is one the service can speak to, checked when it is
received, before a job is queued (issue 44, decision record 0068): otherwise a 422 that says
which field and what the service knows, and nothing is billed.

- **The jurisdiction**, when one is given, must be a place the service knows
  (``functions.legal.jurisdictions.tags_for``), else 422 ``jurisdiction_not_recognised``.
- **The activity** (the prompt and the situation together) must be one the guide or the
  knowledge base's notes on the law speak to, else 422 ``activity_not_recognised``. In order,
  cheapest first:

  1. a text with no word the service searches with (``common.language.index.terms``: only
     punctuation, symbols or stop words), or in which fewer than ``MIN_WORDS_KNOWN`` of the
     words are words of the bundled encoder's vocabulary (keyboard mash, "lorem ipsum"), is
     refused at once;
  2. an activity of the guide (``data/legal/activities.toml``, ``content.detect``: the guide
     has a section on it) is recognised;
  3. one of the guide's activity sections (heading and body) that the relevance judge
     (``common.search.relevance``) gives at least ``SECTION_MIN`` of answering the text: recognised
     (the sections' vectors are computed once per process);
  4. one of the ``PASSAGES`` knowledge passages tagged ``legal`` nearest the text that the
     judge gives at least ``NOTE_MIN``: recognised; else refused.

  Paths and code are made of real words; they reach step 3 or 4 and score next to nothing
  there. No word list of refusals is kept. The thresholds were chosen by ``bench/legal.py``
  on a tuning set (the intent model's training questions labelled LEGAL_HELP against the
  relevance judge's off-corpus and nonsense requests) and measured on held-apart sets
  (decision 0068); they belong to the judge's model. Recognition asks another question than
  relevance (is this an activity the guide speaks to, not does this passage answer it), so it
  keeps the judge it was tuned with (``relevance.first_judge``, decision 0067's first
  training): retrained on the spent held-apart sets, the relevance judge recognised 40
  of the 49 held-apart legal requests instead of 46, at these thresholds and at those the
  tuning set chose for it (0.25 and 0.50). A
  knowledge base that cannot be searched at step 4 is a 502 (nothing billed): the request is
  neither refused nor accepted on a guess.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from common.errors import ActivityNotRecognised, FieldError, JurisdictionNotRecognised
from common.language import and_list
from common.language.index import terms
from common.search import relevance
from functions.legal import content
from functions.legal.jurisdictions import data as places_data
from functions.legal.jurisdictions import tags_for

if TYPE_CHECKING:
    import numpy as np

MIN_WORDS_KNOWN = 0.5  # share of a text's words the encoder's vocabulary holds whole
SECTION_MIN = 0.30  # P(relevant) of a guide's activity section (bench/legal.py, decision 0068)
NOTE_MIN = 0.45  # P(relevant) of a knowledge passage tagged legal (idem)
PASSAGES = 5  # knowledge passages judged at step 4
MAX_QUERY = 1000  # characters of the request searched with (as functions.legal.notes)
LEGAL_TAG = "legal"
MAX_KEPT = 4096  # passages' vectors kept per process
_WORD = re.compile(r"[^\W\d_]+")
_LOCK = threading.Lock()
_KEPT: dict[str, np.ndarray] = {}  # a passage's text -> its vector


def check(prompt: str | None, situation: str | None, jurisdiction: str | None) -> None:
    """Raise the 422 for a request the service cannot speak to (see the module's doc)."""
    if jurisdiction is not None and tags_for(jurisdiction) is None:
        text = content.text().refusal
        raise JurisdictionNotRecognised(
            text.jurisdiction.format(places=known_places()),
            errors=[FieldError("jurisdiction", text.jurisdiction_field)],
        )
    fields = [name for name, value in (("prompt", prompt), ("situation", situation)) if value]
    if not recognised("\n".join(value for value in (prompt, situation) if value)):
        text = content.text().refusal
        labels = [activity.label for activity in content.activities()]
        raise ActivityNotRecognised(
            text.activity.format(fields=and_list(fields), activities="; ".join(labels)),
            errors=[FieldError(name, text.activity_field) for name in fields],
        )


def recognised(text: str) -> bool:
    """Whether the guide or the notes speak to the activity ``text`` describes."""
    if not terms(text) or words_known(text) < MIN_WORDS_KNOWN:
        return False
    if content.detect(text):
        return True
    vector = relevance.embed([text])[0]
    if max(_judged(text, vector, _sections())) >= SECTION_MIN:
        return True
    return max(_judged(text, vector, _notes(text)), default=0.0) >= NOTE_MIN


def best_scores(text: str) -> tuple[float, float]:
    """The judge's P(relevant) of the best activity section and of the best legal passage for
    ``text``, both computed (``bench/legal.py`` measures each step)."""
    vector = relevance.embed([text])[0]
    section = max(_judged(text, vector, _sections()))
    return section, max(_judged(text, vector, _notes(text)), default=0.0)


def words_known(text: str) -> float:
    """The share of the text's words (runs of letters, lower-cased) that the bundled encoder's
    vocabulary holds whole (English words; 0.0 for a text without letters)."""
    from common.language.minilm import get_model

    words = _WORD.findall(text.lower())
    if not words:
        return 0.0
    vocabulary = get_model().tokenizer
    return sum(vocabulary.token_to_id(word) is not None for word in words) / len(words)


def _judged(
    request: str, vector: np.ndarray, candidates: Sequence[relevance.Candidate]
) -> list[float]:
    """``relevance.judged`` with the request's vector given (embedded once for both steps)."""
    if not candidates:
        return []
    rows = relevance.rows(vector, request, candidates)
    return [float(p) for p in relevance.first_judge().probabilities(rows)]


def _notes(text: str) -> list[relevance.Candidate]:
    """The knowledge passages tagged legal nearest ``text``, as the judge reads them (a
    passage's vector embedded once per process, at most MAX_KEPT kept: the corpus's passages
    are a few hundred, so a refused request costs a search and one embedding of its own)."""
    from functions.knowledge.ids import passage_text
    from functions.knowledge.service import search

    hits = search(query=text[:MAX_QUERY], limit=PASSAGES, tags=[LEGAL_TAG], floor=0.0)
    passages = [passage_text(hit) for hit in hits]
    with _LOCK:
        found = {p: _KEPT[p] for p in passages if p in _KEPT}
    missing = [p for p in dict.fromkeys(passages) if p not in found]
    if missing:
        found.update(zip(missing, relevance.embed(missing), strict=True))
        with _LOCK:
            if len(_KEPT) + len(missing) > MAX_KEPT:
                _KEPT.clear()
            _KEPT.update((p, found[p]) for p in missing)
    return [relevance.Candidate(p, found[p]) for p in passages]


@cache
def _sections() -> tuple[relevance.Candidate, ...]:
    """The guide's activity sections as the judge reads them (heading, then body), with their
    vectors."""
    texts = [
        f"{activity.heading}\n{' '.join(activity.body.split())}"
        for activity in content.activities()
    ]
    return tuple(
        relevance.Candidate(text, vector)
        for text, vector in zip(texts, relevance.embed(texts), strict=True)
    )


def warm() -> None:
    """Load what ``check`` uses on first use (``common.http.warmup``): the place names, the
    activities' patterns, the encoder, the judge, the sections' vectors and the knowledge
    search's embedder."""
    from common.search import retrieval

    tags_for("England")
    content.detectors()
    relevance.first_judge()
    _sections()
    known_places()
    retrieval.warm()


@cache
def known_places() -> str:
    """The places the service knows, in running text: each outermost place with the places
    within it that contain no other, or with how many there are and the first few ("the
    United States (52 places within it, such as Iowa, California and Alabama)"), separated
    by semicolons."""
    found = places_data().jurisdiction
    parent = {j.key: j.within for j in found}
    containers = {j.within for j in found}

    def outermost(key: str) -> str:
        at: str | None = key
        while at is not None:
            key, at = at, parent[at]
        return key

    within: dict[str, list[str]] = {j.key: [] for j in found if j.within is None}
    for j in found:
        if j.within is not None:
            within[outermost(j.key)].append(j.name)
    parts = []
    for j in found:
        if j.within is None:
            inner = within[j.key]
            leaves = [i.name for i in found if i.name in inner and i.key not in containers]
            if len(leaves) > 4:
                such = and_list(leaves[:3])
                parts.append(f"{j.name} ({len(inner)} places within it, such as {such})")
            else:
                parts.append(f"{j.name} ({and_list(leaves)})" if leaves else j.name)
    return "; ".join(parts)
