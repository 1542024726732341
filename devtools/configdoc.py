"""Write docs/configuration.md from ``common.config.Settings``: one row per setting (its
environment variable, default and description), then the variables only the local tools read.

    .venv/bin/python -m devtools.configdoc          # rewrite the page
    .venv/bin/python -m devtools.configdoc --check  # exit 1 when the page is out of date

``tests/unit/test_configuration_doc.py`` runs the check, so a setting added, removed or
described differently without the page fails ``make test``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic_core import PydanticUndefined

from common.config import SHOWN_DEFAULTS, Settings

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

HEADER = """# Configuration

<!-- Generated from common/config.py by `python -m devtools.configdoc`; do not edit by hand. -->

Every setting is an environment variable, read once per process into the one `Settings` object
(`common/config.py`, where each is described). Names are case-insensitive. In `prod`, local
defaults of secrets make start-up fail.

| Variable | Default | Meaning |
|---|---|---|
"""

# Read by the local tools (devtools/), not by the service: (variable, default, meaning).
LOCAL_TOOLS = (
    (
        "THREADS",
        "`64` in `make run` (functions-framework's own default: 4 per CPU)",
        "threads of the server (gunicorn) in one instance; a client whose body stalls holds one "
        "for at most `BODY_READ_TIMEOUT_S`",
    ),
    (
        "LOCAL_DIR",
        "`.local`",
        "where `make run` keeps emulator data, the server's log (`server.log`), the demo key "
        "and the local IdP key",
    ),
    (
        "FIRESTORE_EMULATOR_JAR",
        "found in the Cloud SDK",
        "path of the emulator jar, if it lives elsewhere",
    ),
)


def shown_default(name: str, field: Any) -> str:
    if name in SHOWN_DEFAULTS:
        return SHOWN_DEFAULTS[name]
    value = field.default
    if value is PydanticUndefined and field.default_factory is not None:
        value = field.default_factory()
    if value is None or value == "" or (isinstance(value, dict | list | tuple) and not value):
        return "none"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def page() -> str:
    rows = [
        (name.upper(), shown_default(name, field), field.description or "")
        for name, field in Settings.model_fields.items()
    ]
    rows += [(name, default, meaning) for name, default, meaning in LOCAL_TOOLS]
    body = "".join(f"| `{name}` | {default} | {meaning} |\n" for name, default, meaning in rows)
    footer = "\nThe last three rows are read by the local tools only (`devtools/`).\n"
    return HEADER + body + footer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the page is stale")
    args = parser.parse_args(argv)
    wanted = page()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != wanted:
            print(f"{PAGE} is out of date: run python -m devtools.configdoc", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
