"""Relevance at every door, printed as JSON (issue 44): does what the service found answer what
was asked, and does it say so when nothing does?

THE SETS ARE HELD APART. ``bench/data/relevance_holdout_{search,content,chat}.jsonl`` were
written by helpers from ``bench/data/relevance.brief.md``, the corpus and the sample records
alone. Read none of their rows to tune anything; a set measured is spent for evaluation (its
figures after tuning on it are tuned figures), and the next sets are written from the same
brief.

Everything runs through the real HTTP pipeline in process (the functions-framework app of
``main.api``: authentication, validation, metering) on a Firestore emulator of its own, with the
offline engines, the fixture feeds, and the demo corpus and tables imported as ``make run``
has them:

- **search**: ``POST /v1/knowledge/search`` (limit 10) or ``POST /v1/search/{table}`` (limit 10,
  hybrid). Covered requests:
  - recall@10 and nDCG@10 with the graded labels (2, 1), knowledge judged by document (a
    passage counts as its document, first appearance);
  - ``refused``: the share answered with no hit.
  Requests nothing covers:
  - ``no_match``: the share answered with no hit (the goal is >= 0.95);
  - ``top_score_ge_0_5``: the share whose best hit scores 0.5 or more (the goal is 0).
  ``separation_auc``: the chance that a covered request's best hit scores above the best of
  one nothing covers (whatever the threshold: compares two judges at no operating point).
  Each figure is given by ``kind`` too. ``billed``: the share of requests billed. Since
  decision 0067 a search answers the nearest results, free and with a message, when no result
  answers (``relevance.answers``: its door's floor, ``PASSAGE_FLOOR`` or ``RECORD_FLOOR``, or
  ``BARE_FLOOR`` for one holding no word of the query), and nothing only when no result holds
  a word of the query: the judged "nothing answers" is the share not billed (1 - ``billed``),
  and ``no_match`` counts only the empty answers.
- **content**: ``POST /v1/content/generate`` (a social post).
  - ``covered_refused``: covered topics refused, 422 either way (the goal is <= 0.02);
    ``covered_judged_uncovered``: of them, those answered ``topic_not_covered`` (the judge's
    coverage), the rest ``draft_does_not_fit`` (no sentence of the covered topic fits a post
    on X, decision 0079);
  - ``uncovered_drafted``: uncovered topics drafted anyway;
  - ``drafted_from_relevant``: the share of drafts on covered topics citing a relevant guide;
  - ``separation_auc``: as for search, on the topic's best passage judged as the door does.
- **chat**: ``POST /v1/chat/message``, per ``expect``:
  - ``billed``: the share billed;
  - ``declined``: the share answered with the refusal of a request for private details;
  - ``cites_relevant``: for answers, the share whose sources include a relevant guide;
  - ``says_the_figure``: for "number", the share of replies that hold a number the row's
    ``why`` gives (a figure in words from "two" counts as in digits: "six" is "6"; before, a
    ``why`` that spelled its figure out counted as not said, whatever the reply).

- **cost**: the judge's time for 50 stored passages, per search request (p50, p99 in ms).
- **calibration** (in search): per decile of the hits' scores, the share labelled relevant
  (a passage by its document's label: an overestimate, since a guide's other sections answer
  less often; ``bench/calibration.py`` measures passages labelled one by one);
  ``calibration_records``: the tables' hits alone, each labelled itself.

The first held-apart sets (``relevance_holdout_*``) were measured after issue 44's judge was
wired (decision 0067), the second (``relevance_holdout2_*``) on what shipped with it; both are
spent. ``relevance_holdout3_*``, written from the same brief, were measured before and after the
judge's second training (decision 0067) and are spent too. ``relevance_holdout4_*``, written the
same way, were measured before and after its third training, and ``relevance_holdout6_*``
before and after its fourth. ``relevance_holdout7_*`` kept a fifth training back and
``relevance_holdout8_*`` and ``relevance_holdout9_*`` measured it again before
it shipped (decision 0067); ``relevance_holdout10_*`` measured the records' recalibration and a
floor per door, ``relevance_holdout11_*`` its beta calibration, ``relevance_holdout12_*``
content's coverage chosen with a margin, ``relevance_holdout13_*`` (larger: 374 searches, 173
topics) a judge that learned sets 7 to 10 too (not shipped), ``relevance_holdout14_*`` (388
searches, 186 topics, 170 chat messages) the gate on the field (decision 0077) and
``relevance_holdout15_*`` (the default; 438 searches, 210 of them covered table searches) the
records' calibration fitted on sets 7 to 14. All are spent; ``bench/data/relevance_sets.json``
lists them (``measured``) and any set written since and not yet read (``fresh``), for the
trainers too. ``relevance_holdout16_*`` (435 searches, 166 of them covered table searches; 200
topics; 170 chat messages) measured the count rule (chat) and then the judge's bars on the final
main of this round (search, content, cost): spent. ``relevance_holdout17_search.jsonl``
(searches only) gave the queries of the third calibration sample (``bench/calibration.py``),
and ``relevance_holdout20_content.jsonl`` (content only, 236 topics; ``--set holdout20 --only
content``) is fresh, unread, for the next change to content's coverage.
``relevance_holdout5_chat.jsonl`` (chat only, more requests for private details and close
calls; ``--set holdout5 --only chat``) measures the classifier of such requests
(``functions.chat.private``).
``--set dev`` measures the tuning sets (``relevance_dev_*.jsonl``, written from the same brief
by another helper): thresholds are chosen on them (``--only sweep``), and on held-apart sets
already measured that the judge did not learn (``--set dev+holdout7``), never on a fresh one.

Run: ``.venv/bin/python bench/relevance.py [--only search,content,chat,cost] [--set dev]``;
thresholds: ``--only sweep --set dev+holdout7`` (tuning sets only).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import emulated  # noqa: E402
from devtools.emulator import Emulator, free_port  # noqa: E402

DATA = ROOT / "bench" / "data"
K = 10
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a figure written in words is the same figure ("six clear days", "6 clear days"); not "one",
# which most replies hold in another sense ("one of the")
_UNITS = "two three four five six seven eight nine ten eleven twelve thirteen fourteen \
fifteen sixteen seventeen eighteen nineteen twenty"
_TENS = "thirty forty fifty sixty seventy eighty ninety"
WORDS = (
    {word: n for n, word in enumerate(_UNITS.split(), 2)}
    | {word: 10 * n for n, word in enumerate(_TENS.split(), 3)}
    | {"hundred": 100, "thousand": 1000}
)
NUMBER_WORD = re.compile(rf"\b(?:{'|'.join(WORDS)})\b", re.IGNORECASE)


def figures(text: str) -> set[str]:
    """The figures of ``text``, in digits: "six" is "6"."""
    spelled = {str(WORDS[m.group(0).lower()]) for m in NUMBER_WORD.finditer(text)}
    return set(NUMBER.findall(text)) | spelled


# The held-apart sets already measured (spent for evaluation): a threshold may be chosen on
# one of them that the judge did not learn (devtools.spent_pairs.SPENT), with dev.
# (bench/data/relevance_sets.json: which sets are spent and which are fresh, read by the
# trainers too)
_SETS = json.loads((DATA / "relevance_sets.json").read_text(encoding="utf-8"))
MEASURED: tuple[str, ...] = tuple(_SETS["measured"])
FRESH: tuple[str, ...] = tuple(_SETS["fresh"])  # written, not yet read or measured: the next change
SET = "holdout15"  # ``--set``: which sets are read
MISSES = False  # ``--misses``: list content's misses


def rows(name: str) -> list[dict[str, Any]]:
    """The rows of part ``name`` ("search", "content", "chat") of the sets chosen (``SET``: one
    name, or several joined by "+" for ``--only sweep``); a set without that part adds none."""
    found: list[dict[str, Any]] = []
    for one in SET.split("+"):
        path = DATA / f"relevance_{one}_{name}.jsonl"
        if path.exists() or "+" not in SET:
            with path.open(encoding="utf-8") as handle:
                found += [json.loads(line) for line in handle if line.strip()]
    return found


def ndcg(ranked: list[str], gains: dict[str, int], k: int = K) -> float:
    """nDCG@k with the graded gains (documents or records not labelled gain 0)."""
    seen: list[str] = []
    for item in ranked:
        if item not in seen:
            seen.append(item)
    dcg = sum(gains.get(item, 0) / math.log2(rank + 1) for rank, item in enumerate(seen[:k], 1))
    ideal = sorted(gains.values(), reverse=True)[:k]
    best = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, 1))
    return dcg / best if best else 0.0


def share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def mean(values: list[float]) -> float | None:
    return round(statistics.mean(values), 3) if values else None


class Service:
    """The API in process, with one consumer whose usage tells what was billed."""

    def __init__(self) -> None:
        import functions_framework

        app = functions_framework.create_app(target="api", source=str(ROOT / "main.py"))
        self.client = app.test_client()
        self.auth = {"Authorization": f"Bearer {emulated.api_key('relevance@example.org')}"}
        self.doc_by_title: dict[str, str] = {}
        from functions.knowledge.importer import read_documents

        for _, document in read_documents([ROOT / "data" / "knowledge"]):
            if not isinstance(document, str):
                self.doc_by_title[document.title] = document.id

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.client.post(path, json=body, headers=self.auth)

    def billed(self, operation: str) -> int:
        usage = self.client.get("/v1/usage", headers=self.auth).get_json()
        lines = {line["operation"]: line for line in usage["operations"]}
        return int(lines.get(operation, {}).get("requests", 0))

    def billed_by(self, operation: str, call: Callable[[], Any]) -> tuple[Any, bool]:
        before = self.billed(operation)
        answer = call()
        return answer, self.billed(operation) > before


def search(service: Service) -> dict[str, Any]:
    by_kind: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    scored: list[tuple[float, bool]] = []  # every hit's score, and whether it is labelled
    records: list[tuple[float, bool]] = []  # the same, of the tables' hits (labelled each)
    best: list[tuple[float, bool]] = []  # each request's best score, and whether it is covered
    for row in rows("search"):
        knowledge = row["corpus"] == "knowledge"
        path = "/v1/knowledge/search" if knowledge else f"/v1/search/{row['corpus']}"
        operation = "knowledge.search" if knowledge else "search.query"
        answer, billed = service.billed_by(
            operation, lambda p=path, q=row["query"]: service.post(p, {"query": q, "limit": K})
        )
        hits = answer.get_json().get("data", []) if answer.status_code == 200 else []
        ranked = [
            service.doc_by_title.get(h["title"], h["title"]) if knowledge else h["id"] for h in hits
        ]
        kind = by_kind[row["kind"]]
        labelled = [
            (h["score"], item in row["relevant"]) for h, item in zip(hits, ranked, strict=True)
        ]
        scored += labelled
        if not knowledge:
            records += labelled
        kind["status_ok"].append(answer.status_code == 200)
        kind["billed"].append(billed)
        best.append((max((h["score"] for h in hits), default=0.0), bool(row["covered"])))
        if row["covered"]:
            gains = {item: int(grade) for item, grade in row["relevant"].items()}
            kind["refused"].append(not hits)
            kind["recall_at_10"].append(len(set(ranked[:K]) & set(gains)) / len(gains))
            kind["ndcg_at_10"].append(ndcg(ranked, gains))
        else:
            kind["no_match"].append(not hits)
            kind["top_score_ge_0_5"].append(bool(hits) and hits[0]["score"] >= 0.5)

    def summary(groups: list[dict[str, list]]) -> dict[str, Any]:
        joined: dict[str, list] = defaultdict(list)
        for group in groups:
            for name, values in group.items():
                joined[name] += values
        out: dict[str, Any] = {"requests": len(joined["billed"])}
        for name in ("refused", "no_match", "top_score_ge_0_5", "billed", "status_ok"):
            if joined[name]:
                out[name] = share(joined[name])
        for name in ("recall_at_10", "ndcg_at_10"):
            if joined[name]:
                out[name] = mean(joined[name])
        return out

    covered = [g for k, g in by_kind.items() if k not in ("near_miss", "off_corpus", "nonsense")]
    uncovered = [g for k, g in by_kind.items() if k in ("near_miss", "off_corpus", "nonsense")]
    return {
        "covered": summary(covered),
        "not_covered": summary(uncovered),
        "by_kind": {kind: summary([group]) for kind, group in sorted(by_kind.items())},
        "separation_auc": separation(best),
        "calibration": calibration(scored),
        "calibration_records": calibration(records),
    }


def separation(best: list[tuple[float, bool]]) -> float | None:
    """How well the judge's best score tells a covered request from one nothing covers,
    whatever the threshold: the chance that a covered request's best scores above an
    uncovered one's (ties half; the area under the ROC curve)."""
    covered = [score for score, c in best if c]
    others = [score for score, c in best if not c]
    if not covered or not others:
        return None
    wins = sum((c > o) + 0.5 * (c == o) for c in covered for o in others)
    return round(wins / (len(covered) * len(others)), 4)


def calibration(scored: list[tuple[float, bool]]) -> list[dict[str, Any]]:
    """Per decile of the returned hits' scores: the mean score against the share labelled
    relevant. A passage counts as relevant when its document is labelled: an overestimate,
    since a relevant guide has sections that do not answer (every hit of the tables is
    labelled itself: ``calibration_records`` is those alone)."""
    deciles = []
    for low in range(10):
        inside = [
            (s, r) for s, r in scored if low / 10 <= s < (low + 1) / 10 or (low == 9 and s == 1)
        ]
        if inside:
            predicted = statistics.mean(s for s, _ in inside)
            observed = sum(r for _, r in inside) / len(inside)
            deciles.append(
                {
                    "scores": f"{low / 10:.1f}-{(low + 1) / 10:.1f}",
                    "hits": len(inside),
                    "mean_score": round(predicted, 3),
                    "observed": round(observed, 3),
                    "off_by": round(abs(predicted - observed), 3),
                }
            )
    return deciles


def cost(service: Service) -> dict[str, Any]:
    """The judge's own time for 50 stored passages (their stored vectors, as a search judges
    them), per search request of the set: p50 and p99 in milliseconds."""
    import time

    from common.adapters.firestore import KNOWLEDGE, get_db
    from common.search import relevance
    from functions.knowledge.ids import passage_text

    docs = [d.to_dict() or {} for d in get_db().collection(KNOWLEDGE).limit(50).stream()]
    candidates = [
        relevance.Candidate(passage_text(d), relevance.unpack(d.get(relevance.VECTOR_FIELD)))
        for d in docs
    ]
    assert all(c.vector is not None for c in candidates), "passages without a judge vector"
    relevance.judged("warm up", candidates)
    times = []
    for row in rows("search"):
        start = time.perf_counter()
        relevance.judged(row["query"], candidates)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "candidates": len(candidates),
        "requests": len(times),
        "p50_ms": round(times[len(times) // 2], 1),
        "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 1),
    }


def judged_topic(topic: str) -> float:
    """A topic's best passage judged as content's door judges it (a social post of the default
    length: ``functions.content.service.covering``)."""
    from functions.content.service import covering

    return covering(topic).best


def content(service: Service) -> dict[str, Any]:
    covered_refused, uncovered_drafted, cited, statuses = [], [], [], defaultdict(int)
    judged_uncovered: list[bool] = []
    best: list[tuple[float, bool]] = []  # the topic judged as the door judges it, and covered
    misses: list[dict[str, Any]] = []
    for row in rows("content"):
        judged = judged_topic(row["topic"])
        best.append((judged, bool(row["covered"])))
        answer = service.post("/v1/content/generate", {"topic": row["topic"]})
        code = answer.get_json().get("code", "") if answer.status_code >= 400 else ""
        statuses[f"{answer.status_code} {code}".strip()] += 1
        drafted = answer.status_code == 200
        if MISSES and drafted != bool(row["covered"]):
            misses.append({"topic": row["topic"], "covered": row["covered"], "best": judged})
        if row["covered"]:
            covered_refused.append(not drafted)
            judged_uncovered.append(code == "topic_not_covered")
            if drafted:
                titles = {s["title"] for s in answer.get_json().get("sources", [])}
                docs = {service.doc_by_title.get(t, t) for t in titles}
                cited.append(bool(docs & set(row["relevant"])))
                if MISSES and not cited[-1]:
                    misses.append({"topic": row["topic"], "covered": True, "cites": sorted(docs)})
        else:
            uncovered_drafted.append(drafted)
    return {
        "topics": sum(statuses.values()),
        "statuses": dict(statuses),
        "covered_refused": share(covered_refused),
        "covered_judged_uncovered": share(judged_uncovered),
        "uncovered_drafted": share(uncovered_drafted),
        "drafted_from_relevant": share(cited),
        "separation_auc": separation(best),
        **({"misses": misses} if MISSES else {}),
    }


def chat(service: Service) -> dict[str, Any]:
    from functions.chat.assist import texts

    declined = " ".join(texts().private_declined.split())[:60]  # the reply to a private ask
    by_expect: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in rows("chat"):
        answer, billed = service.billed_by(
            "chat.message",
            lambda m=row["message"]: service.post("/v1/chat/message", {"message": m}),
        )
        body = answer.get_json() if answer.status_code == 200 else {}
        kind = by_expect[row["expect"]]
        kind["status_ok"].append(answer.status_code == 200)
        kind["billed"].append(billed)
        kind["declined"].append(" ".join(body.get("response", "").split()).startswith(declined))
        docs = {service.doc_by_title.get(s["title"], s["title"]) for s in body.get("sources", [])}
        if row["expect"] in ("answer", "number"):
            kind["cites_relevant"].append(bool(docs & set(row["relevant"])))
        if row["expect"] == "number":
            kind["says_the_figure"].append(
                bool(figures(row["why"]) & figures(body.get("response", "")))
            )
    return {
        expect: {"messages": len(kind["billed"])}
        | {name: share(values) for name, values in kind.items()}
        for expect, kind in sorted(by_expect.items())
    }


def tuning_only(scenario: str) -> None:
    """Stop unless the sets chosen are tuning data: dev, and held-apart sets already measured
    that the judge did not learn (``devtools.spent_pairs.SPENT``)."""
    from devtools.spent_pairs import SPENT

    learned = {stem.removeprefix("relevance_") for stem in SPENT}
    tuning = set(SET.split("+"))
    if not tuning <= {"dev", *MEASURED} or tuning & learned:
        raise SystemExit(
            f"--only {scenario} tunes: on the tuning sets (dev) and on sets already measured "
            f"that the judge did not learn ({sorted(set(MEASURED) - learned)}) only"
        )


def hits(service: Service) -> dict[str, Any]:
    """For recalibrating the judge's scores of records (tuning sets only: ``tuning_only``):
    every hit of the searches of the tables (each labelled itself), with its score and its
    request's judge (``short``: at most ``relevance.SHORT_TERMS`` search terms)."""
    from common.language.index import terms
    from common.search.relevance import SHORT_TERMS

    found = []
    for row in rows("search"):
        if row["corpus"] == "knowledge":
            continue
        path = f"/v1/search/{row['corpus']}"
        answer = service.post(path, {"query": row["query"], "limit": K}).get_json()
        short = 0 < len(terms(row["query"])) <= SHORT_TERMS
        found += [
            {"score": h["score"], "relevant": h["id"] in row["relevant"], "short": short}
            for h in answer.get("data", [])
        ]
    return {"hits": found}


def sweep(service: Service) -> dict[str, Any]:
    """For choosing thresholds (tuning sets only: ``tuning_only``): per door of the searches
    and per threshold, as ``relevance.answers`` bills (``floor`` for a result holding a word of
    the query, ``bare`` for one holding none), the share of covered searches not billed and of
    the others billed; for content's coverage (each topic's best passage, judged as the door
    judges it), per threshold the share of covered topics refused and of the others drafted."""
    from common.search.relevance import shares_words
    from functions.search.tables import TABLES

    wordless: list[tuple[float, float, bool]] = []  # best holding a query word, best without
    doors: list[str] = []  # each search's door, in order
    for row in rows("search"):
        knowledge = row["corpus"] == "knowledge"
        path = "/v1/knowledge/search" if knowledge else f"/v1/search/{row['corpus']}"
        hits = service.post(path, {"query": row["query"], "limit": K}).get_json().get("data", [])
        doors.append("knowledge" if knowledge else "tables")
        table = None if knowledge else TABLES[row["corpus"]]
        texts = [h["passage"] if table is None else table.judged_text(h["record"]) for h in hits]
        held = [shares_words(row["query"], [text]) for text in texts]
        wordless.append(
            (
                max((h["score"] for h, w in zip(hits, held, strict=True) if w), default=0.0),
                max((h["score"] for h, w in zip(hits, held, strict=True) if not w), default=0.0),
                bool(row["covered"]),
            )
        )
    topics = [  # judged as the door judges a topic: without the names of its addressees
        (judged_topic(row["topic"]), row["covered"]) for row in rows("content")
    ]

    def at(pairs: list[tuple[float, bool]], threshold: float) -> dict[str, Any]:
        return {
            "covered_under": share([best < threshold for best, covered in pairs if covered]),
            "uncovered_over": share([best >= threshold for best, covered in pairs if not covered]),
        }

    grid = [round(0.1 + 0.025 * step, 3) for step in range(21)]
    fine = [round(0.01 * step, 3) for step in range(2, 10)] + grid  # recalibrated records
    return {
        "billed_by_door": {  # as ``answers`` bills: ``floor`` with a query word, else ``bare``
            door: {
                f"{floor}/{bare}": at(
                    [
                        (1.0 if (w >= floor or n >= bare) else 0.0, c)
                        for (w, n, c), at_door in zip(wordless, doors, strict=True)
                        if at_door == door
                    ],
                    0.5,
                )
                for floor in fine
                # the knowledge door's bare floor is its floor (``relevance.passages``' scale)
                for bare in sorted({floor, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5})
                if bare >= floor
            }
            for door in ("knowledge", "tables")
        },
        "content": {str(t): at(topics, t) for t in grid},
    }


SCENARIOS: dict[str, Callable[[Service], dict[str, Any]]] = {
    "search": search,
    "content": content,
    "chat": chat,
    "cost": cost,
    "sweep": sweep,
    "hits": hits,
}


def main() -> None:
    global SET, MISSES
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="search,content,chat,cost", help=f"of {list(SCENARIOS)}")
    parser.add_argument(
        "--set",
        default=SET,
        help=f"which sets: dev, one of {MEASURED}, or fresh: {', '.join(FRESH) or 'none'}; for "
        "--only sweep, dev "
        "and those the judge did not learn, joined by '+' (dev+holdout7)",
    )
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list content's misses (covered topics refused or drafted citing no relevant guide, "
        "others drafted) with their best "
        "judged passage: reading them spends the set",
    )
    args = parser.parse_args()
    chosen = args.set.split("+")
    if any(name not in {"dev", *MEASURED, *FRESH} for name in chosen) or (
        len(chosen) > 1 and args.only not in ("sweep", "hits")
    ):
        parser.error(f"--set {args.set}: no such set (several only with --only sweep or hits)")
    only = args.only.split(",")
    SET, MISSES = args.set, args.misses
    for tunes in {"sweep", "hits"} & set(only):
        tuning_only(tunes)  # before the emulator starts
    import tempfile

    from devtools.feedserver import search_template, serve, write_catalog

    emulator = Emulator("127.0.0.1", free_port(), "demo-bench-relevance").start()
    feeds = serve(0)  # the fixture feeds, as `make run` serves them (the assistant reads news)
    try:
        catalog = write_catalog(feeds.url, Path(tempfile.mkdtemp()) / "feeds.json")
        emulated.environment(  # logs at ERROR: a warning's line would break the JSON printed
            emulator,
            FEED_CATALOG_PATH=str(catalog),
            NEWS_SEARCH_URL=search_template(feeds.url),
            LOG_LEVEL="ERROR",
        )
        from functions.knowledge.importer import import_knowledge
        from functions.search.importer import import_records
        from functions.search.tables import TABLES

        import_knowledge([ROOT / "data" / "knowledge"])
        for name, table in TABLES.items():
            import_records(table, ROOT / "data" / "sample" / f"{name}.jsonl")
        service = Service()
        print(json.dumps({name: SCENARIOS[name](service) for name in only}, indent=2))
    finally:
        feeds.shutdown()
        emulator.stop()


if __name__ == "__main__":
    main()
