"""Train the relevance judge (``common.search.relevance``) on ``data/relevance/train_pairs*.jsonl``
and write ``data/relevance/model.json``; print how well it is calibrated, out of fold.

Two regressions: the judge of every request on every feature (``train_pairs*.jsonl``), and the
judge of short requests (1 to ``SHORT_TERMS`` search terms) on ``SHORT_FEATURES``, from the
short requests of those sets and ``data/relevance/short_pairs.jsonl`` (keyword searches).

A pair's candidate is a guide's section (``{"doc", "section"}``: the section's heading and text
under the guide's title, as a passage of it reads) or a sample record (``{"table", "id"}``: its
title and text as the table indexes them). Positive: labelled 1 or 2. Five folds, each
request's pairs in one fold; the report gives the log loss, the AUC and, per decile of the
predicted probability, the mean predicted against the share observed (the issue's bar: within
0.05 in every decile with >= 30 pairs). These are figures on training data (cross-validated),
not on a held-apart set: ``bench/relevance.py`` measures those.

Run: ``.venv/bin/python -m devtools.train_relevance [--check]`` (``--check``: train and report,
write nothing but ``data/relevance/frequency.json``, which the features read and which follows
from the corpus and the sample records alone).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BeforeValidator, model_validator

from common.datafiles import ContentError, NotBlank, Row, numbered_rows, shown

ROOT = Path(__file__).resolve().parent.parent
PAIRS = sorted((ROOT / "data" / "relevance").glob("train_pairs*.jsonl"))
SHORT_PAIRS = ROOT / "data" / "relevance" / "short_pairs.jsonl"
FOLDS = 5
L2 = 300.0  # strong: 384 of the features are the vectors' products (out of fold, 300 did best)
SHORT_L2 = 10.0  # 53 plain features: out of fold, 10 had the lowest log loss (1, 3, 10, 30 tried)


def sections() -> dict[tuple[str, str], str]:
    """(document id, section heading) -> the section as its passages read: the importer's own
    passages (``chunks``) under the section's heading, title first, as the index stores them."""
    from functions.knowledge.importer import chunks, read_documents

    found: dict[tuple[str, str], str] = {}
    for _, document in read_documents([ROOT / "data" / "knowledge"]):
        if isinstance(document, str):
            continue
        for chunk in chunks(document):
            parts = chunk.section.split(" > ")  # the title, then the ## heading, ...
            heading = parts[1] if len(parts) > 1 else parts[0]
            key = (document.id, heading)
            found[key] = found.get(key, f"{document.title} — {heading}\n") + chunk.text + "\n"
    return found


def frequency() -> dict[str, Any]:
    """``common.search.relevance.FREQUENCY_PATH``'s body: in how many of the guides' passages
    and the sample records each search term occurs, and the terms the guides use."""
    from collections import Counter

    from common.language.index import terms
    from functions.knowledge.importer import chunks, read_documents

    guides = [
        f"{chunk.section}\n{chunk.text}"
        for _, document in read_documents([ROOT / "data" / "knowledge"])
        if not isinstance(document, str)
        for chunk in chunks(document)
    ]
    texts = guides + list(records().values())
    df = Counter(term for text in texts for term in set(terms(text)))
    used = sorted({term for text in guides for term in terms(text)})
    return {"documents": len(texts), "df": dict(sorted(df.items())), "guides": used}


def records(judged: bool = True) -> dict[tuple[str, str], str]:
    """(table, id) -> a sample record's text as the judge reads it (``Table.judged_text``), or
    with ``judged=False`` as the index holds and embeds it (retrieval's text: the judge's
    vector of a record is the one stored with it)."""
    from functions.search.tables import TABLES

    found: dict[tuple[str, str], str] = {}
    for name, table in TABLES.items():
        path = ROOT / "data" / "sample" / f"{name}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                found[(name, record["id"])] = (
                    table.judged_text(record) if judged else table.indexed_text(record)
                )
    return found


def _whole(value: Any) -> Any:
    if type(value) is not int:  # strict JSON would still take true and 1.0 for a literal 1
        raise ValueError("must be a whole number: 0, 1 or 2")
    return value


# A pair's label: 2 the candidate answers the request, 1 it helps, 0 it does not; the judge
# learns "relevant" as 1 or 2 (``common.search.relevance``).
Grade = Annotated[Literal[0, 1, 2], BeforeValidator(_whole)]


class CandidateRef(Row):
    """What a pair's request is judged against, one of: a guide's section (``doc``,
    ``section``: its heading), a guide's sentence as the assistant quotes it (``doc``,
    ``sentence``), a sample record (``table``, ``id``)."""

    doc: NotBlank | None = None
    section: NotBlank | None = None
    sentence: NotBlank | None = None
    table: NotBlank | None = None
    id: NotBlank | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> CandidateRef:
        given = {name for name in CandidateRef.model_fields if getattr(self, name) is not None}
        if given not in ({"doc", "section"}, {"doc", "sentence"}, {"table", "id"}):
            shown = ", ".join(sorted(given)) or "nothing"
            raise ValueError(
                f"give doc and section, doc and sentence, or table and id (not {shown})"
            )
        return self

    def text(self, texts: dict[tuple[str, str], str]) -> str | None:
        """The candidate's text as the judge reads it (``sections``, ``records``), or None
        when the section or record is not there."""
        if self.sentence is not None:
            return self.sentence
        return texts.get((self.doc or "", self.section or "") if self.doc else self.record)

    @property
    def record(self) -> tuple[str, str]:
        return self.table or "", self.id or ""

    def missing(self) -> str:
        """What was not found, as the error says it."""
        if self.doc is not None:
            return f"guide {self.doc!r} has no section {self.section!r}"
        return f"table {self.table!r} has no record {self.id!r}"


class Pair(Row):
    """A row of ``data/relevance/train_pairs*.jsonl`` and ``short_pairs.jsonl`` (decision
    0070). ``mode``: the door the request came to (``draft`` and ``content`` are both content's
    coverage); ``kind``: what its writer meant it to be (``bench/relevance.py``'s kinds, and a
    chat message's ``expect`` when nothing covers it); ``source``: ``spent`` for the pairs of
    ``devtools.spent_pairs``."""

    request: NotBlank
    mode: Literal["search", "chat", "draft", "content"]
    candidate: CandidateRef
    label: Grade
    kind: Literal[
        "keywords",
        "question",
        "paraphrase",
        "near_miss",
        "off_corpus",
        "nonsense",
        "not_covered",
        "off_topic",
    ]
    source: Literal["spent"] | None = None


def read_pairs(paths: list[Path], texts: dict[tuple[str, str], str]) -> list[tuple[str, str, int]]:
    """(request, the candidate's text, label) of every pair in ``paths``, each row validated
    (``Pair``) and its candidate found in ``texts``; otherwise ``ContentError`` names the file,
    the line and the field."""
    found, missing = [], []
    for path in paths:
        for number, pair in numbered_rows(path, Pair):
            text = pair.candidate.text(texts)
            if text is None:
                missing.append(f"{shown(path)}:{number}: candidate: {pair.candidate.missing()}")
                continue
            found.append((pair.request, text, pair.label))
    if missing:
        more = f"\n(and {len(missing) - 10} more)" if len(missing) > 10 else ""
        raise ContentError("\n".join(missing[:10]) + more)
    return found


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels (relevant: 1 or 2) and each pair's request index, from ``paths``."""
    from common.search.relevance import Candidate, embed, rows

    judged = records()
    stored = dict(zip(judged.values(), records(judged=False).values(), strict=True))
    by_request: dict[str, list[tuple[str, int]]] = {}
    for request, text, label in read_pairs(paths, {**sections(), **judged}):
        by_request.setdefault(request, []).append((text, label))
    requests = list(by_request)
    unique = sorted({text for pairs in by_request.values() for text, _ in pairs})
    # a record's vector is embedded from the text the index holds, as the one stored with it
    vector_of = dict(zip(unique, embed([stored.get(t, t) for t in unique]), strict=True))
    request_vectors = embed(requests)
    features, labels, groups = [], [], []
    for index, request in enumerate(requests):
        pairs = by_request[request]
        candidates = [Candidate(text, vector_of[text]) for text, _ in pairs]
        features.append(rows(request_vectors[index], request, candidates))
        labels += [1.0 if label >= 1 else 0.0 for _, label in pairs]
        groups += [index] * len(pairs)
    return np.vstack(features), np.asarray(labels), np.asarray(groups)


def fit(
    x: np.ndarray, y: np.ndarray, l2: float = L2, per_feature: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, weights, bias): standardised features, L2-regularised logistic
    regression by Newton's method (``per_feature``: each feature's penalty, else ``l2``)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    shrunk = np.full(x.shape[1], l2) if per_feature is None else per_feature
    penalty = np.r_[shrunk, 0.0]  # the bias is not shrunk
    for _ in range(50):
        p = 1 / (1 + np.exp(-(z @ w)))
        gradient = z.T @ (p - y) + penalty * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return mean, scale, w[:-1], float(w[-1])


def predict(model: tuple[np.ndarray, np.ndarray, np.ndarray, float], x: np.ndarray) -> np.ndarray:
    mean, scale, weights, bias = model
    return 1 / (1 + np.exp(-(((x - mean) / scale) @ weights + bias)))


def report(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    eps = 1e-12
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    positives = y.sum()
    auc = (ranks[y == 1].sum() - positives * (positives + 1) / 2) / (
        positives * (len(y) - positives)
    )
    log_loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
    return {
        "pairs": len(y),
        "log_loss": round(float(log_loss), 4),
        "auc": round(float(auc), 4),
        "deciles": deciles(p, y),
    }


def deciles(p: np.ndarray, y: np.ndarray) -> list[dict[str, Any]]:
    """Per decile of the predicted probability: the pairs, the mean predicted and the share
    observed (a calibrated model's two agree)."""
    found = []
    for low in np.arange(0, 1, 0.1):
        inside = (p >= low) & (p < low + 0.1 if low < 0.9 else p <= 1.0)
        if inside.any():
            found.append(
                {
                    "predicted": f"{low:.1f}-{low + 0.1:.1f}",
                    "pairs": int(inside.sum()),
                    "mean_predicted": round(float(p[inside].mean()), 3),
                    "observed": round(float(y[inside].mean()), 3),
                }
            )
    return found


def trained(x: np.ndarray, y: np.ndarray, groups: np.ndarray, l2: float) -> tuple[Any, Any]:
    """(the regression on every pair, its out-of-fold report: FOLDS folds by request)."""
    out_of_fold = np.zeros(len(y))
    for fold in range(FOLDS):
        held = groups % FOLDS == fold
        out_of_fold[held] = predict(fit(x[~held], y[~held], l2), x[held])
    return fit(x, y, l2), report(out_of_fold, y)


def main(argv: list[str] | None = None) -> int:
    from common.search.relevance import (
        DIMENSION,
        FEATURES,
        FREQUENCY_PATH,
        MODEL_PATH,
        SHORT_FEATURES,
        SHORT_TERMS,
        Judges,
    )

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="train and report; write nothing")
    args = parser.parse_args(argv)
    FREQUENCY_PATH.write_text(json.dumps(frequency()) + "\n", encoding="utf-8")  # the corpus's
    x, y, groups = load(PAIRS)
    every, every_report = trained(x, y, groups, L2)
    x, y, groups = load([*PAIRS, SHORT_PAIRS])
    asked = np.rint(np.expm1(x[:, FEATURES.index("request_terms")]))
    short = (asked >= 1) & (asked <= SHORT_TERMS)
    columns = len(SHORT_FEATURES)
    brief, brief_report = trained(x[short][:, :columns], y[short], groups[short], SHORT_L2)
    print(
        json.dumps(
            {
                "out_of_fold": every_report,
                "short_out_of_fold": brief_report,
                "weights": {
                    name: round(float(every[2][FEATURES.index(name)]), 3)
                    for name in FEATURES[:8] + FEATURES[-DIMENSION - 9 : -DIMENSION]
                },
            },
            indent=1,
        )
    )
    if not args.check:
        judges = Judges(_judge(every, FEATURES), _judge(brief, SHORT_FEATURES))
        MODEL_PATH.write_text(judges.to_json(), encoding="utf-8")
        print(f"wrote {MODEL_PATH}", file=sys.stderr)
    return 0


def _judge(
    model: tuple[np.ndarray, np.ndarray, np.ndarray, float], features: tuple[str, ...]
) -> Any:
    from common.search.relevance import Judge

    mean, scale, weights, bias = model
    return Judge(
        features, tuple(mean.tolist()), tuple(scale.tolist()), tuple(weights.tolist()), bias
    )


if __name__ == "__main__":
    raise SystemExit(main())
