"""Writes ``data/privacy/given_names_world.txt``: given names from many countries, for the
personal-data screen's reading of names written all in capitals or all in lower case
(``common.privacy.people``: "saw rohan bhatt at the gym", "LUPITA ORTIZ ADMITS..."), where the
US census list of ``given_names.txt`` misses most names from outside the US (decision 0058).

Sources, neither of which the service installs (install them in any virtualenv to rerun):
- ``names-dataset==3.3.1`` (MIT; first names with their rank in each of 105 countries):
  a name is taken when it ranks in the top ``--rank`` (1000) of at least one country;
- ``wordfreq==3.1.1`` (MIT; word frequencies): a name is left out when it is a common word:
  Zipf frequency >= 4.0 in English ("will", "hope"), or >= 4.2 in Spanish, German or French
  ("calle", "mar") unless it is among the 50 most given names of a country ("josé"). So is
  any word the project's own reference text (``data/knowledge``, ``data/sample``) writes in
  lower case mid-sentence, and any word the screen's rules treat as something else (person
  nouns, animals, organisation words, name verbs, words that are never names).

Only names of three letters or more, letters only. The list is a reading aid for text without
capitals: a word on it is a person only when the next word is written the same way and is not
a function word or a verb (``cased_names``), and the resolver and the company door keep the
stricter ``given_names.txt``.

    pip install names-dataset==3.3.1 wordfreq==3.1.1
    python -m devtools.given_names
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import pickle
import re
from pathlib import Path

from common.datafiles import DATA
from common.language.citations import unfootnoted
from common.privacy.rules import given_names, rules

OUT = DATA / "privacy" / "given_names_world.txt"
POPULAR = 50  # a name this high in some country's list is a name even when it is a word too
ROOT = DATA.parent
HEADER = """\
# Given names from many countries (lower case, one per line), written by
# `python -m devtools.given_names` (read its docstring): names-dataset 3.3.1 (MIT), names in the
# top {rank} of at least one country, without common words (wordfreq 3.1.1, MIT) and without the
# words the project's own reference text writes in lower case. Read only for names written all
# in capitals or all in lower case (common/privacy/people.py); given_names.txt stays the list
# for everything else.
"""


def _dataset_names(rank: int) -> dict[str, int]:
    spec = importlib.util.find_spec("names_dataset")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install names-dataset==3.3.1 wordfreq==3.1.1 first")
    folder = Path(next(iter(spec.submodule_search_locations)))
    with gzip.open(folder / "v3" / "first_names.pkl.gz") as handle:
        table = pickle.load(handle)  # noqa: S301 - the package's own data file
    found: dict[str, int] = {}
    for name, info in table.items():
        ranks = (info or {}).get("rank") or {}
        lower = name.lower()
        if ranks and min(ranks.values()) <= rank and re.fullmatch(r"[a-zà-öø-ÿ]{3,}", lower):
            found[lower] = min(min(ranks.values()), found.get(lower, rank))
    return found


def _reference_words() -> set[str]:
    """Words the project's reference text writes in lower case after a lower-case word."""
    guides = sorted((DATA / "knowledge").glob("*.md"))
    texts = [unfootnoted(p.read_text(encoding="utf-8")) for p in guides]
    for path in sorted((DATA / "sample").glob("*.jsonl")):
        texts += [" ".join(map(str, json.loads(line).values())) for line in path.open()]
    return {
        m.group(1) for text in texts for m in re.finditer(r"(?<=[a-z,;] )([a-zà-öø-ÿ]{3,})\b", text)
    }


def _rule_words() -> set[str]:
    screen = rules()
    return {
        *screen.person_nouns,
        *screen.animal_words,
        *screen.organisation_words,
        *screen.name_verbs,
        *(w.lower() for w in screen.not_names),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rank", type=int, default=1000)
    args = parser.parse_args()
    from wordfreq import zipf_frequency

    def common(word: str, best: int) -> bool:
        """A common English word, or a common Spanish, German or French word that is not
        among the 50 most given names of some country ("josé", "jürgen" are names first)."""
        return zipf_frequency(word, "en") >= 4.0 or (
            best > POPULAR and any(zipf_frequency(word, lang) >= 4.2 for lang in ("es", "de", "fr"))
        )

    leave_out = _reference_words() | _rule_words() | given_names()
    found = _dataset_names(args.rank)
    names = sorted(n for n, best in found.items() if n not in leave_out and not common(n, best))
    OUT.write_text(HEADER.format(rank=args.rank) + "\n".join(names) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(names)} names")


if __name__ == "__main__":
    main()
