"""Write the candidate facts of content requests for labelling (``data/content/
topicality_pairs.jsonl``'s rows without their ``label``; decision 0088): each request's
candidates as ``compose.facts`` ranks them before it chooses among them (every guide's, with no
topicality rule), with what the pipeline knows of each (the passage's judged score, its share of
the best, the best passage's guide, near, doubtful). The knowledge corpus and the sample records
are loaded into a Firestore emulator of its own, as ``bench/quality.py`` does.

Run: ``.venv/bin/python -m devtools.topicality_candidates OUT.jsonl SET.jsonl [SET.jsonl ...]``
(a set: a content request set of ``bench/data``, one ``{"id", "request", ...}`` a line). Label
each line ``on`` or ``off`` by ``bench/data/on_topic.brief.md``, then ``python -m
devtools.train_topicality``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def candidates(request: dict[str, Any], ident: str) -> list[dict[str, Any]]:
    """One request's candidates as pairs without a label (none when it is refused)."""
    from common.errors import AppError
    from functions.content import compose, service
    from functions.content.models import ContentRequest

    try:
        spec = service.spec_of(ContentRequest.model_validate(request))
        passages = service.passages_for(spec)
    except AppError:
        return []
    if not passages:
        return []
    best = max(p.score or 0.0 for p in passages)
    first = passages[compose._best(passages)].title
    near = set(compose._near(passages))
    about = spec.subject or spec.topic
    offered = compose.facts(
        spec.topic, passages, public=True, at=compose._places_for(spec), every=True
    )
    return [
        {
            "request": ident,
            "topic": request["topic"],
            "contentType": request.get("contentType", "social_post"),
            "length": request.get("length") or "medium",
            "about": about,
            "audience": spec.audience,
            "sentence": fact.text,
            "title": passages[fact.passage].title,
            "passage": passages[fact.passage].score,
            "share": round((passages[fact.passage].score or 0.0) / best, 4) if best else 1.0,
            "bestDocument": passages[fact.passage].title == first,
            "near": fact.passage in near,
            "doubtful": fact.doubtful,
        }
        for fact in offered
    ]


def main(argv: list[str] | None = None) -> int:
    from bench.emulated import corpus_loaded

    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        raise SystemExit(__doc__)
    out, sets = Path(args[0]), [Path(a) for a in args[1:]]
    with corpus_loaded("demo-topicality", ROOT / ".local" / "topicality"):
        rows = [
            pair
            for path in sets
            for line in path.read_text().splitlines()
            if line.strip()
            for pair in candidates(json.loads(line)["request"], json.loads(line)["id"])
        ]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} candidates -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
