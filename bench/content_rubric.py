"""Drafts as a campaigner would publish them (issue 46): a fresh set of content requests through
the real service over HTTP, in process, on a Firestore emulator of its own loaded with the whole
knowledge corpus and the sample records (as ``bench/quality.py``), measured by rules and written
out for a reader's rubric.

The set: ``bench/data/content_requests_holdout25.jsonl``, 56 requests (7 of each content type)
a helper wrote from the guides and the sample records alone, each with the organisation the
draft must name (``addressee``, or null) and its ask. Rules measured here:

- ``addresseeNamed``: drafts of requests with an addressee that name it;
- ``markupFree``: drafts with no ``<`` and no word of a script the request carried;
- ``replyDate``: letters and emails with ``replyBy`` that ask for a reply by that date, and
  those without that name no date;
- ``refused``: requests answered 4xx, by code;
- ``quotingADoubtfulFact``: drafts that quote a sentence the roles model calls a doubtful fact,
  which public copy quotes only when it has no clear one left (decision 0087), and how many
  such sentences they quote.

Every draft, with its citations, is written to ``--out`` (JSON lines) for a reader to grade by
the rubric of ``content_rubric.brief.md`` (citations that support their sentence, off-topic
sentences, guidance for campaigners, caveats against the ask).

    PYTHONPATH=. .venv/bin/python bench/content_rubric.py [--set FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.emulated import corpus_loaded  # noqa: E402
from bench.quality import api_client  # noqa: E402

DATA = ROOT / "bench" / "data"


def _named(content: str, addressee: str) -> bool:
    from common.language.markup import plain
    from common.language.names import fold

    return fold(plain(addressee)) in fold(content.replace("&amp;", "&"))


def _sections() -> dict[str, str]:
    """Each sentence of the guides and the section it stands in, as the importer reads them."""
    from common.language.sentences import split
    from functions.knowledge.importer import chunks, read_documents

    return {
        sentence: chunk.section
        for _, document in read_documents([ROOT / "data" / "knowledge"])
        if not isinstance(document, str)
        for chunk in chunks(document)
        for sentence in split(chunk.text)
    }


def _doubtful(drafts: list[dict[str, Any]]) -> tuple[int, int]:
    """(drafts quoting a doubtful fact, such sentences quoted)."""
    from functions.content import roles

    where = _sections()
    quoted = [
        [(c["text"], where.get(c["text"], "")) for c in d.get("citations") or []] for d in drafts
    ]
    verdicts = [roles.judged(rows) for rows in quoted]
    return sum("doubtful" in v for v in verdicts), sum(v.count("doubtful") for v in verdicts)


def measure(rows: list[dict[str, Any]], out: Path) -> dict[str, Any]:
    client, auth = api_client()
    named, addressed, markup, marked = 0, 0, 0, 0
    dated, dated_ok, undated, undated_ok = 0, 0, 0, 0
    refused: Counter[str] = Counter()
    drafts: list[dict[str, Any]] = []
    for row in rows:
        request = row["request"]
        response = client.post("/v1/content/generate", json=request, headers=auth)
        body = response.get_json()
        if response.status_code != 200:
            refused[f"{response.status_code} {body.get('code', '')}".strip()] += 1
            drafts.append(
                {
                    "id": row["id"],
                    "request": request,
                    "status": response.status_code,
                    "problem": body.get("detail"),
                }
            )
            continue
        content = body["content"]
        if row.get("addressee"):
            addressed += 1
            named += _named(content, row["addressee"])
        if "<" in json.dumps(request) or "&amp;" in json.dumps(request):
            marked += 1
            markup += "<" not in content and "script" not in content.lower()
        if request.get("contentType") in ("letter", "email"):
            if request.get("replyBy"):
                day = date.fromisoformat(request["replyBy"])
                dated += 1
                dated_ok += f"{day.day} {day:%B %Y}" in content
            else:
                undated += 1
                undated_ok += "reply by" not in content.lower()
        drafts.append(
            {
                "id": row["id"],
                "request": request,
                "addressee": row.get("addressee"),
                "ask": row.get("ask"),
                "content": content,
                "citations": body["citations"],
                "sources": body["sources"],
            }
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in drafts))
    doubtful, doubtful_sentences = _doubtful(drafts)
    return {
        "requests": len(rows),
        "drafted": len(rows) - sum(refused.values()),
        "refused": dict(refused),
        "addresseeNamed": f"{named}/{addressed}",
        "markupFree": f"{markup}/{marked}",
        "replyDateAsked": f"{dated_ok}/{dated}",
        "noDateWhenNoneGiven": f"{undated_ok}/{undated}",
        "quotingADoubtfulFact": f"{doubtful}/{len(rows) - sum(refused.values())}",
        "doubtfulFactsQuoted": doubtful_sentences,
        "drafts": str(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=Path, default=DATA / "content_requests_holdout25.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / ".local" / "rubric" / "drafts.jsonl")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    began = time.perf_counter()
    with corpus_loaded("demo-bench-rubric", ROOT / ".local" / "rubric"):
        results = measure(rows, args.out.resolve())
    results["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
