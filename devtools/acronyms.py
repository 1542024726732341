"""Write ``data/search/acronyms.json`` (decision 0087): the acronyms of the names the guides
and the sample records spell out, for search and the relevance judge to read "NPPC v. Ross" as
"National Pork Producers Council v. Ross" (``common.language.acronyms``).

A name is a run of capitalised words, joined by "of", "and", "for", "the", "on", "in" or "to",
that ends in a word of a kind of instrument or body (``kinds`` of ``data/text/sources.toml``,
``article.institutions`` of ``data/content/drafts.toml``: "Humane Methods of Slaughter Act",
"National Pork Producers Council"); its acronym is the first letters of its capitalised words
(HMSA), or the one the text writes after it in brackets ("Better Chicken Commitment (BCC)").
A run also stands without its first word, which may only open a sentence ("In National Pork
Producers Council v. Ross", "Asks Harbourside Port Authority"). An acronym two names share is
left out, as is one of the abbreviations that name no source ("EU", "CEO"), one of fewer than
three letters, one the text writes itself for something else, and one the guides and records
already write in ``KNOWN`` passages or more (``data/relevance/frequency.json``: "CITES" is
known to search and the judge as it is; spelled out, its long name outweighed the rest of a
question on its appendices).

    PYTHONPATH=. .venv/bin/python -m devtools.acronyms
"""

from __future__ import annotations

import json
import re

from common.datafiles import DATA
from common.language.citations import unfootnoted

ROOT = DATA.parent
OUT = DATA / "search" / "acronyms.json"
KNOWN = 3  # passages
_JOIN = r"(?:of|and|for|the|on|in|to)"
_WORD = r"[A-Z][A-Za-z'\u2019-]*"
_JOINING = frozenset({"of", "and", "for", "the", "on", "in", "to"})
_WRITTEN = re.compile(rf"({_WORD}(?: +(?:{_JOIN} +)*{_WORD})+) +\(([A-Z]{{3,6}})\)")
_CAPITALS = re.compile(r"\b[A-Z]{3,6}\b")
# words that open a sentence rather than a name
_OPENERS = frozenset(
    [
        "The",
        "In",
        "On",
        "Under",
        "A",
        "An",
        "At",
        "By",
        "For",
        "From",
        "With",
        "And",
        "Its",
        "This",
        "That",
        "These",
        "Both",
        "After",
        "Before",
        "Since",
        "Many",
        "Some",
        "Most",
        "Writing",
        "Relying",
        "Under",
        "While",
        "When",
        "Where",
        "If",
        "Although",
    ]
)


def texts() -> list[str]:
    """The guides' text and the sample records' values."""
    guides = sorted((ROOT / "data" / "knowledge").glob("[!R]*.md"))  # not the README
    found = [unfootnoted(p.read_text(encoding="utf-8")) for p in guides]
    for path in sorted((ROOT / "data" / "sample").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found += [v for v in json.loads(line).values() if isinstance(v, str)]
    return found


def acronyms() -> dict[str, str]:
    """Acronym -> the one name it stands for, sorted."""
    from common.language.citations import _sources_data
    from common.language.index import terms
    from common.search.relevance import FREQUENCY_PATH, Frequency
    from functions.content.texts import drafts

    df = Frequency.model_validate_json(FREQUENCY_PATH.read_bytes()).df

    common = {a.upper() for a in _sources_data().abbreviations}
    kinds = _sources_data().kinds | drafts().article.institutions
    names: dict[str, set[str]] = {}
    written: dict[str, set[str]] = {}
    used: set[str] = set()
    for text in texts():
        used.update(_CAPITALS.findall(text))
        for name, acronym in _WRITTEN.findall(text):
            written.setdefault(acronym, set()).add(_trimmed(name))
        for run in _runs(text):
            words = run.split()
            for name in {_trimmed(run), _trimmed(" ".join(words[1:]))}:
                capitals = [w for w in name.split() if w[:1].isupper()]
                # not of a name holding one ("US Supreme Court": "USC" is the US Code)
                spelled_out = not any(len(w) > 1 and w.isupper() for w in capitals)
                kind = capitals[-1].lower().strip("'\u2019s") if capitals else ""
                if len(capitals) >= 3 and spelled_out and kind in kinds:
                    acronym = "".join(w[0] for w in capitals)
                    names.setdefault(acronym, set()).add(name)
    found: dict[str, str] = {}
    for acronym, spelled in {**names, **written}.items():
        if len(acronym) < 3 or acronym in common or len(spelled) != 1:
            continue
        if any(df.get(term, 0) >= KNOWN for term in terms(acronym)):
            continue  # search and the judge know it as written
        (name,) = spelled
        if acronym in used and acronym not in written and not _beside(acronym, name):
            continue  # the text writes it for something else ("CITES")
        found[acronym] = name
    return dict(sorted(found.items()))


def _runs(text: str) -> list[str]:
    """The runs of two capitalised words or more of each line of the text
    (``names.capitalised_runs``, the one scanner of them), joined by ``_JOINING`` words."""
    from common.language.names import capitalised_runs, words_of

    found: list[str] = []
    for line in text.splitlines():
        words = words_of(line, within=frozenset("-'\u2019"))
        for run in capitalised_runs(line, words, connectors=_JOINING):
            if len(run) >= 2:
                found.append(" ".join(word.text for word in run))
    return found


def _trimmed(run: str) -> str:
    """The run without words that open a sentence or join, before its first capital."""
    words = run.split()
    while len(words) > 2 and (words[0] in _OPENERS or not words[0][:1].isupper()):
        words = words[1:]
    return " ".join(words)


def _beside(acronym: str, name: str) -> bool:
    """Whether the acronym the text writes is the name's: its name's words stand in a text
    that also writes it."""
    return any(acronym in text and name in text for text in texts())


def main() -> int:
    OUT.write_text(json.dumps(acronyms(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
