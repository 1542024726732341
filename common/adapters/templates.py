"""Jinja2 templates of the emails (``templates/``), built lazily once per process.

HTML templates (``*.html.j2``) are autoescaped; text templates (``*.txt.j2``) are not. An
undefined variable is an error, never a silently empty string.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@cache
def _environment() -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(name: str, **context: Any) -> str:
    """Render ``templates/<name>`` with ``context``."""
    return _environment().get_template(name).render(**context)
