"""Output quality of the offline engines, measured the way a reviewer would read them.

A fixed set of realistic requests (``bench/data/quality_requests.jsonl``: content of every type
and platform, legal guides, chat messages of every intent; plus the research summaries of
three requests and the summaries of the conversations in
``bench/data/quality_conversations.jsonl``) runs through the real service in process, on a
Firestore emulator of its own loaded with the whole knowledge corpus (``data/knowledge``) and
the sample records (``data/sample``), with the local fixture feeds for research. It prints
JSON checks:

- ``platform_limits``: every post of every draft within its platform's limit, counted here
  independently (X: links 23, characters outside the Latin ranges 2);
- ``grounding``: what is left of each draft and answer once the sentences of its cited
  documents, the service's frame texts (data/content/drafts.toml, data/offline/assistant.toml)
  and the caller's own words are taken out; any word left is an unsupported claim, listed;
- ``sources``: drafts and answers citing at least one document, and citations whose
  document is in the knowledge base;
- ``not_available``: replies that point elsewhere instead of doing the work;
- ``summaries``: the share of each summary's word 6-grams found verbatim in what it
  summarises (1.0 is a summary that quotes; lower is written in its own words);
- ``research``: the summary event of each research request, with its length and whether it
  says more than counts.

- ``rubric_on_held_apart_requests``: issue 25's rubric per feature (answered the question,
  right source, citations that hold, facts only, grammar kept, tone distinct, a committed
  company asked to deliver, US spelling) on ``bench/data/quality_holdout.jsonl``, requests
  kept apart from tuning (``bench/rubric.py``); ``rubric_chat_set_*``: the chat rubric on
  the chat sets of decision 0047 (set 2 read, set 3 held apart).

Every output is written to ``.local/quality/outputs.md`` for reading.

Run: ``.venv/bin/python bench/quality.py`` (about 3 to 6 minutes, most of it embedding the
corpus).
"""

from __future__ import annotations

import json
import re
import sys
import time
import unicodedata
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import rubric  # noqa: E402
from bench.emulated import api_key, with_fixture_feeds  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

REQUESTS = ROOT / "bench" / "data" / "quality_requests.jsonl"
CONVERSATIONS = ROOT / "bench" / "data" / "quality_conversations.jsonl"
OUTPUTS = ROOT / ".local" / "quality" / "outputs.md"
LIMITS = {"x": 280, "instagram": 2200, "facebook": 63206, "linkedin": 3000}
RESEARCH = (
    {"topics": ["cage-free", "corporate-campaigns"]},
    {"topics": ["fur"], "customKeywords": ["mink"]},
    {"customKeywords": ["live export"], "specificInterests": "sea journeys"},
)
NOT_AVAILABLE = re.compile(r"not available|cannot do that|can't do that", re.IGNORECASE)
_URL = re.compile(r"https?://\S+")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]+")


def x_count(text: str) -> int:
    """X's count, written here apart from the service's: links 23, a code point outside
    U+0000-U+10FF and the general punctuation ranges X counts as 1, 2."""
    text = unicodedata.normalize("NFC", text)
    total = 0
    for piece in re.split(r"(https?://\S+)", text):
        if _URL.fullmatch(piece):
            total += 23
            continue
        for char in piece:
            p = ord(char)
            light = p <= 0x10FF or 0x2000 <= p <= 0x200D or 0x2010 <= p <= 0x201F
            total += 1 if light or 0x2032 <= p <= 0x2037 else 2
    return total


def quoted_ratio(summary: str, source: str, n: int = 6) -> float:
    """Share of the summary's word n-grams found verbatim in the source: within each line, its
    label ("Decided:") left out, so neither labels nor line joins count either way."""
    seen = " " + " ".join(w.lower() for w in _WORDS.findall(source)) + " "
    grams = []
    for line in summary.splitlines():
        words = [w.lower() for w in _WORDS.findall(re.sub(r"^[A-Z][a-z ]{0,20}:\s", "", line))]
        grams += [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    return round(sum(f" {g} " in seen for g in grams) / len(grams), 3) if grams else 0.0


# -- grounding ------------------------------------------------------------------------------------


def frame_patterns() -> list[re.Pattern[str]]:
    """Every fixed text of the content engine and the assistant, placeholders as wildcards."""
    import tomllib

    texts: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, str):  # the whole text, its paragraphs and its lines
            texts.append(value)
            texts.extend(value.split("\n\n"))
            texts.extend(part for part in value.split("\n") if part.strip())
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)

    for path in ("data/content/drafts.toml", "data/offline/assistant.toml"):
        with (ROOT / path).open("rb") as handle:
            document = tomllib.load(handle)
        # patterns and names, not texts the service writes ("count" would strike "countries")
        for key in (
            "abbreviations",
            "not_facts",
            "anaphora",
            "advice",
            "related",
            "article",
            "answer_shape",
        ):
            document.pop(key, None)
        collect(document)
    patterns = []
    for text in sorted(set(texts), key=len, reverse=True):
        flat = " ".join(text.split())
        if len(flat) < 4:
            continue
        regex = re.escape(flat)
        regex = re.sub(r"\\\{[A-Za-z_]+\\\}", ".{0,500}?", regex)
        patterns.append(re.compile(regex))
    return patterns


def residue(
    text: str, sentences: set[str], frames: list[re.Pattern[str]], own_words: list[str]
) -> str:
    """What is left of an output once known text is taken out: the frame texts, sentences of
    its cited documents, the caller's words, links, hashtags, numbering, placeholders
    and Markdown marks."""
    flat = " ".join(text.split())
    for pattern in frames:
        flat = pattern.sub(" ", flat)
    for sentence in sorted(sentences, key=len, reverse=True):
        flat = flat.replace(sentence, " ")
    for words in sorted((w for w in own_words if w), key=len, reverse=True):
        flat = flat.replace(" ".join(words.split()), " ")
    flat = _URL.sub(" ", flat)
    flat = re.sub(r"#\w+|\b\d+/\d+\b|\[[^\]]*\]|[\U0001f000-\U0001ffff]", " ", flat)
    left = [w for w in _WORDS.findall(flat) if w.lower() not in {"a", "s"}]
    return " ".join(left)


# -- running --------------------------------------------------------------------------------------


def load_data() -> dict[str, Any]:
    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    started = time.perf_counter()
    documents = sorted(
        p for p in (ROOT / "data" / "knowledge").glob("*.md") if p.name != "README.md"
    )
    report = import_knowledge(documents)
    for table in ("campaigns", "actions", "organizations", "public_figures"):
        import_records(TABLES[table], ROOT / "data" / "sample" / f"{table}.jsonl")
    return {
        "documents": report.documents,
        "passages": report.passages,
        "seconds": round(time.perf_counter() - started, 1),
    }


def corpus() -> dict[str, set[str]]:
    """Document title -> its passages' sentences and section headings, as stored."""
    from common.adapters.firestore import KNOWLEDGE, get_db
    from common.language.sentences import split

    found: dict[str, set[str]] = {}
    for doc in get_db().collection(KNOWLEDGE).stream():
        data = doc.to_dict()
        known = found.setdefault(data["title"], set())
        known.update(split(data["passage"]))
        known.update(data.get("section", "").split(" > "))
    return found


def api_client() -> tuple[Any, dict[str, str]]:
    import functions_framework

    key = api_key("bench-quality@example.org", 100_000)
    app = functions_framework.create_app(target="api", source=str(ROOT / "main.py"))
    return app.test_client(), {"Authorization": f"Bearer {key}"}


def run(results: dict[str, Any], out: list[str]) -> None:
    from functions.legal.guide import render_markdown, write_guide
    from functions.legal.notes import find_notes

    results["data"] = load_data()
    documents = corpus()
    frames = frame_patterns()
    client, auth = api_client()
    requests = [json.loads(line) for line in REQUESTS.read_text().splitlines() if line.strip()]
    limits = {"posts": 0, "over": []}
    grounding: dict[str, Any] = {"outputs": 0, "with_unsupported_text": []}
    sources = {"outputs": 0, "citing": 0, "unknown_citations": []}
    not_available: list[str] = []
    legal: list[dict[str, Any]] = []
    for request in requests:
        kind = request["kind"]
        if kind == "content":
            response = client.post("/v1/content/generate", json=request["body"], headers=auth)
            body = response.get_json()
            label = f"content {json.dumps(request['body'], ensure_ascii=False)}"
            if response.status_code != 200:
                out.append(f"## {label}\n\n{response.status_code} {body}\n")
                grounding["with_unsupported_text"].append(
                    {"request": label, "status": response.status_code}
                )
                continue
            text, cited, own = body["content"], body["sources"], list(request["body"].values())
            limit = LIMITS.get(body["platform"])
            for post in body["posts"]:
                limits["posts"] += 1
                measured = x_count(post["text"]) if body["platform"] == "x" else len(post["text"])
                if limit and measured > limit:
                    limits["over"].append({"request": label, "count": measured, "limit": limit})
        elif kind == "legal":
            asked = request["body"]
            where = (asked.get("prompt"), asked.get("situation"), asked.get("jurisdiction"))
            notes = find_notes(*where)
            guide = write_guide(where[0], where[1], None, where[2], notes=notes)
            label = f"legal guide {json.dumps(asked, ensure_ascii=False)}"
            legal.append({"request": asked.get("jurisdiction"), "sources": len(guide.sources)})
            out.append(f"## {label}\n\n{render_markdown(guide)}\n")
            continue  # the sections are curated data; the notes' sentences are checked in tests
        else:
            response = client.post(
                "/v1/chat/message", json={"message": request["message"]}, headers=auth
            )
            body = response.get_json()
            label = f"chat {request['message']!r} -> {body.get('intent')}"
            text, cited, own = body["response"], body["sources"], [request["message"]]
            if NOT_AVAILABLE.search(text):
                not_available.append(request["message"])
            if not cited:  # introductions and questions back: nothing to ground
                out.append(f"## {label}\n\n{text}\n")
                continue
        sources["outputs"] += 1
        sources["citing"] += bool(cited)
        known: set[str] = set()
        for source in cited:
            if source["title"] in documents:
                known |= documents[source["title"]]
            elif kind == "content":
                sources["unknown_citations"].append({"request": label, "title": source["title"]})
        if kind == "chat" and body["intent"] in ("INVESTIGATE_COMPANY", "RESEARCH_INDIVIDUAL"):
            out.append(f"## {label}\n\n{text}\n")
            continue  # records of the search tables, not passages
        grounding["outputs"] += 1
        left = residue(text, known, frames, [str(v) for v in own] + [s["title"] for s in cited])
        if left:
            grounding["with_unsupported_text"].append({"request": label, "left": left[:300]})
        out.append(f"## {label}\n\n{text}\n\nSources: {[s['title'] for s in cited]}\n")
    results["platform_limits"] = {**limits, "held": not limits["over"]}
    results["grounding"] = {
        **grounding,
        "unsupported": len(grounding["with_unsupported_text"]),
    }
    results["sources"] = sources
    results["not_available"] = not_available
    results["legal_guides_citing_notes"] = legal
    results["research"] = research(client, auth, out)
    results["summaries"] = summaries(client, auth, out)
    results["rubric_on_held_apart_requests"] = rubric.score(client, auth, out)
    for name, path in rubric.CHAT_SETS.items():
        scored = rubric.score(client, auth, out, path)
        results[f"rubric_{name}"] = scored.get("chat", scored)
    results["rubric_with_provider_fake"] = rubric.with_provider(client, auth, out)


def research(client: Any, auth: dict[str, str], out: list[str]) -> list[dict[str, Any]]:
    found = []
    for body in RESEARCH:
        response = client.post("/v1/research/topics", json=body, headers=auth)
        events = [json.loads(line) for line in response.get_data(as_text=True).splitlines() if line]
        summary = next((e for e in events if e["type"] == "summary"), {})
        items = [e for e in events if e["type"] == "item"]
        text = json.dumps({k: v for k, v in summary.items() if k != "type"}, ensure_ascii=False)
        words = re.sub(r"\d+|items?|found|recent|on|of|and", " ", str(summary.get("text", "")))
        found.append(
            {
                "request": body,
                "items": len(items),
                "summary_chars": len(str(summary.get("text", ""))),
                "says_more_than_counts": len(_WORDS.findall(words)) > 8,
            }
        )
        out.append(f"## research {json.dumps(body)}\n\n{text}\n")
    return found


def summaries(client: Any, auth: dict[str, str], out: list[str]) -> dict[str, Any]:
    if not CONVERSATIONS.exists():
        return {"skipped": f"{CONVERSATIONS.name} missing"}
    ratios = []
    for line in CONVERSATIONS.read_text().splitlines():
        if not line.strip():
            continue
        messages = json.loads(line)["messages"]
        response = client.post("/v1/chat/summarize", json={"messages": messages}, headers=auth)
        summary = response.get_json()["summary"]
        source = "\n".join(m["content"] for m in messages)
        ratios.append(quoted_ratio(summary, source))
        out.append(
            f"## summary of {messages[0]['content'][:60]!r}\n\n{summary}\n\nquoted: {ratios[-1]}\n"
        )
    return {
        "conversations": len(ratios),
        "quoted_6gram_ratio_mean": round(sum(ratios) / len(ratios), 3) if ratios else None,
        "quoted_6gram_ratio_max": max(ratios) if ratios else None,
    }


def main() -> None:
    began = time.perf_counter()
    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-quality").start()
    feeds = with_fixture_feeds(emulator, ROOT / ".local" / "quality", LLM_BACKEND="offline")
    results: dict[str, Any] = {}
    out: list[str] = ["# Outputs of bench/quality.py\n"]
    try:
        with redirect_stdout(sys.stderr):  # the service's JSON logs stay off the results
            try:
                run(results, out)
            except Exception as exc:  # print what was measured, and why it stopped
                results["stopped_by"] = f"{type(exc).__name__}: {exc}"[:500]
        OUTPUTS.write_text("\n".join(out))
        results["outputs_file"] = str(OUTPUTS.relative_to(ROOT))
        results["seconds_total"] = round(time.perf_counter() - began, 1)
        print(json.dumps(results, indent=2, ensure_ascii=False))
    finally:
        feeds.shutdown()
        emulator.stop()


if __name__ == "__main__":
    main()
