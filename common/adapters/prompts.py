"""Versioned prompt files (prompts/NAME.vN.md), read on first use."""

from __future__ import annotations

from functools import cache
from pathlib import Path

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"


@cache
def prompt(name: str) -> str:
    return (PROMPTS / f"{name}.md").read_text().strip()
