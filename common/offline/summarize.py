"""Extractive conversation summary: who asked what, what was decided, what is still open."""

from __future__ import annotations

import re
from collections.abc import Sequence

from common.text import clip

MAX_CHARS = 800
LINE_MAX_CHARS = 200
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DECISION = re.compile(
    r"\b(decid\w*|agree\w*|let's|we will|we'll|i will|i'll|plan\w*|go with|final\w*|"
    r"confirm\w*|settled|chose|choose|conclusion|next step\w*|deadline)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def summarize(messages: Sequence[dict[str, str]]) -> str:
    """A few labelled lines, at most MAX_CHARS characters."""
    user = [m["content"] for m in messages if m["role"] == "user"]
    assistant = [m["content"] for m in messages if m["role"] == "assistant"]
    lines: list[str] = []
    if user:
        lines.append(f"The user asked: {clip(sentences(user[0])[0], LINE_MAX_CHARS)}")
    followups = [s for text in user[1:] for s in sentences(text) if s.endswith("?")]
    if followups:
        lines.append(f"Then asked: {clip(followups[0], LINE_MAX_CHARS)}")
    decisions = [s for text in user + assistant for s in sentences(text) if _DECISION.search(s)]
    for decision in decisions[:3]:
        lines.append(f"Decided: {clip(decision, LINE_MAX_CHARS)}")
    if assistant:
        lines.append(f"Last answer: {clip(sentences(assistant[-1])[0], LINE_MAX_CHARS)}")
    if messages and messages[-1]["role"] == "user" and messages[-1]["content"].strip():
        lines.append(f"Open: {clip(sentences(messages[-1]['content'])[-1], LINE_MAX_CHARS)}")
    summary = "\n".join(dict.fromkeys(lines))
    return clip(summary, MAX_CHARS)
