"""Turn the spent held-apart relevance sets into training pairs for the judge
(``data/relevance/train_pairs_spent.jsonl``, read by ``devtools.train_relevance``).

A held-apart set of ``bench/relevance.py`` is written from the brief alone and measured once;
after that its figures are tuned figures and it is spent for evaluation (decision 0067), but its
labels are still the writers' own: what a campaigner asks, and which guides or records answer
it. The sets measured so far (``SPENT``) are turned into pairs here, so that the next fresh set
measures a judge that learned from them. The tuning sets (``relevance_dev_*``) stay out: the
thresholds are chosen on them.

A set's labels are by document (a guide or a record), the judge's by candidate (a guide's section,
a record), so each request gets hard candidates the way retrieval would find them, from the same
table or the guides: the ``NEAREST`` nearest by the judge's encoder and the ``HOLDING`` holding
most of the request's terms. Labels:

- a request nothing covers (a search or topic with ``"covered": false``, a chat message expected
  ``not_covered`` or ``off_topic``): every candidate 0;
- a covered request: a record takes its label (``relevant``, 0 when absent); a guide's section
  is 0 when its guide is not relevant; of a relevant guide's sections the nearest to the request
  takes the guide's label and the others are left out (which of them answers is not labelled);
- a request for private details is not the judge's to read (``common.privacy``): left out.

Run: ``.venv/bin/python -m devtools.spent_pairs`` (then ``python -m devtools.train_relevance``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from devtools.train_relevance import ROOT, Pair, records, sections

# figures: decision 0067 (set 5 is chat only: its requests for private details, left out here,
# and its close calls)
SPENT = (
    "relevance_holdout",
    "relevance_holdout2",
    "relevance_holdout3",
    "relevance_holdout4",
    "relevance_holdout5",
    "relevance_holdout6",
)
OUT = ROOT / "data" / "relevance" / "train_pairs_spent.jsonl"
NEAREST = 4
HOLDING = 2
UNCOVERED_CHAT = {"not_covered", "off_topic"}
PARTS = ("search", "content", "chat")


def rows(stems: Sequence[str] = SPENT) -> list[tuple[str, str, str, bool, dict[str, int], str]]:
    """(request, mode, corpus, covered, relevant, kind) of every row of the held-apart sets
    ``stems`` (``relevance_holdout2``; the spent sets by default)."""
    found = []
    for stem in stems:
        paths = [ROOT / "bench" / "data" / f"{stem}_{part}.jsonl" for part in PARTS]
        if not any(path.exists() for path in paths):
            raise SystemExit(f"{stem}: no set of that name in bench/data")
        for part, path in zip(PARTS, paths, strict=True):
            if not path.exists():
                continue  # a set of one part (set 5: chat)
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                row: dict[str, Any] = json.loads(line)
                relevant = {str(k): int(v) for k, v in (row.get("relevant") or {}).items()}
                if part == "chat":
                    if row["expect"] == "private":
                        continue
                    covered = row["expect"] not in UNCOVERED_CHAT
                    # not "off_corpus": a question the guides do not cover may be a legal one
                    # all the same (bench/legal.py tunes its refusals on the off-corpus kind)
                    kind = row["expect"] if not covered else "question"
                    found.append((row["message"], "chat", "knowledge", covered, relevant, kind))
                    continue
                request = row["query"] if part == "search" else row["topic"]
                corpus = row.get("corpus", "knowledge")
                kind = str(row.get("kind") or "question")
                found.append((request, part, corpus, bool(row["covered"]), relevant, kind))
    return found


def main() -> int:
    from common.language.index import terms
    from common.search.relevance import embed

    guides = sections()
    tables = records(judged=False)  # retrieval's text: the candidates it would find
    pools: dict[str, list[tuple[tuple[str, str], str]]] = {"knowledge": list(guides.items())}
    for (table, record_id), text in tables.items():
        pools.setdefault(table, []).append(((table, record_id), text))
    vectors = {corpus: embed([text for _, text in items]) for corpus, items in pools.items()}
    held_terms = {
        corpus: [set(terms(text)) for _, text in items] for corpus, items in pools.items()
    }
    spent = rows()
    asked_vectors = embed([request for request, *_ in spent])
    out = []
    for (request, mode, corpus, covered, relevant, kind), asked in zip(
        spent, asked_vectors, strict=True
    ):
        items = pools[corpus]
        cosines = vectors[corpus] @ asked
        wanted = set(terms(request))
        shares = np.asarray([len(wanted & held) for held in held_terms[corpus]], dtype=float)
        chosen = list(np.argsort(-cosines)[:NEAREST])
        chosen += [i for i in np.argsort(-shares, kind="stable") if shares[i] > 0][:HOLDING]
        nearest_of: dict[str, int] = {}  # a relevant guide's nearest section
        if corpus == "knowledge" and covered:
            for index in np.argsort(-cosines):
                doc = items[int(index)][0][0]
                if doc in relevant and doc not in nearest_of:
                    nearest_of[doc] = int(index)
        for index in dict.fromkeys([*(int(i) for i in chosen), *nearest_of.values()]):
            key, _ = items[index]
            if corpus == "knowledge":
                doc, heading = key
                candidate: dict[str, str] = {"doc": doc, "section": heading}
                grade = relevant.get(doc, 0) if covered else 0
                if grade and nearest_of.get(doc) != index:
                    continue  # another section of a relevant guide: not labelled
            else:
                table, record_id = key
                candidate = {"table": table, "id": record_id}
                grade = relevant.get(record_id, 0) if covered else 0
            out.append(
                {
                    "request": request,
                    "mode": mode,
                    "candidate": candidate,
                    "label": grade,
                    "kind": kind,
                    "source": "spent",
                }
            )
    lines = [json.dumps(p, ensure_ascii=False) for p in out]
    for line in lines:  # what the trainer will read (decision 0070)
        Pair.model_validate_json(line)
    OUT.write_text("".join(line + "\n" for line in lines), "utf-8")
    positives = sum(1 for p in out if p["label"])
    print(
        f"wrote {len(out)} pairs ({positives} relevant) from {len(spent)} requests to {OUT}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
