"""Content kept as data: TOML files under ``data/`` (prose, word lists, patterns) that a reviewer
who is not a programmer can change in a diff, each validated by a pydantic model.

Nothing here reads a file at import: a module calls ``load`` on first use and caches what it
builds from the result. A file that cannot be read or does not match its model raises
``ContentError`` naming the file and the field (``activity[3] (key 'drones').patterns[1]``), so
a bad edit fails the test that loads every data file (tests/unit/test_content_data.py) rather
than a request. Decision record 0020.

Field types for content:
- ``Prose``: free text written across as many lines as wanted. Whitespace inside a paragraph is
  collapsed to single spaces; a blank line starts a new paragraph ("\\n\\n" in the value).
- ``Line``: one line of text (whitespace collapsed), not empty.
- ``Pattern``: a regular expression (Python ``re`` syntax) that must compile.
- ``Lower``, ``LowerLine``: written in lower case (matched against lower-cased text);
  ``Lower`` keeps its spaces as written (" x " is the word x on its own).
- ``Words``, ``LowerWords``: words separated by spaces or new lines, in one multi-line string.
- ``Annotated[Prose, Template("name", ...)]``: prose with exactly these ``{name}``
  placeholders (the service fills them in with ``str.format``; ``{{`` is a literal brace).

Training sets and trained models (decision 0070) are JSON: a training set is JSON Lines (one
example per line, ``read_jsonl``), a model one JSON document (``read_json``), each validated by
a ``Row`` model kept beside the code that reads it. Their types are strict (``"1"`` or ``true``
is not the label 1) and their text is kept as written (``NotBlank``): the training reads it.
A bad row raises ``ContentError`` naming ``file:line`` and the field
(``data/intents/train.jsonl:12: intent: Input should be 'CREATE_CONTENT', ... (got "LEGAL")``).
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError

DATA = Path(__file__).resolve().parent.parent / "data"

M = TypeVar("M", bound=BaseModel)


class ContentError(RuntimeError):
    """A data file that cannot be read or does not match its model (a bug in the deployment,
    never the caller's fault)."""


class Content(BaseModel):
    """Base of content models: unknown keys are errors (a misspelt key never silently does
    nothing) and loaded content is immutable. Validators are built on first use, not at
    import."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Row(BaseModel):
    """Base of the models of JSON data (a training set's row, a model file): unknown keys are
    errors, types are strict (JSON's own: a number is not a string, ``true`` is not 1) and what
    is read is immutable. Validators are built on first use, not at import."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)


def _prose(value: str) -> str:
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", value)]
    text = "\n\n".join(p for p in paragraphs if p)
    if not text:
        raise ValueError("must not be empty")
    return text


def _line(value: str) -> str:
    text = " ".join(value.split())
    if not text:
        raise ValueError("must not be empty")
    return text


def _pattern(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"is not a valid regular expression ({exc})") from None
    return value


def _lower(value: str) -> str:
    if value != value.lower():
        raise ValueError("must be written in lower case (text is matched in lower case)")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _words(value: Any) -> Any:
    return value.split() if isinstance(value, str) else value


Prose = Annotated[str, AfterValidator(_prose)]
Line = Annotated[str, AfterValidator(_line)]
Pattern = Annotated[str, AfterValidator(_pattern)]
Lower = Annotated[str, AfterValidator(_lower)]
LowerLine = Annotated[str, AfterValidator(_line), AfterValidator(_lower)]
Words = Annotated[frozenset[str], BeforeValidator(_words)]
LowerWords = Annotated[frozenset[Lower], BeforeValidator(_words)]
NotBlank = Annotated[str, AfterValidator(_not_blank)]  # text kept as written, not only spaces


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def Template(*names: str) -> AfterValidator:
    """Exactly these ``{name}`` placeholders, each used, no other (for texts the service
    fills in with ``str.format``)."""
    wanted = set(names)
    shown = ", ".join(f"{{{n}}}" for n in sorted(wanted)) or "none"

    def check(value: str) -> str:
        try:
            found = placeholders(value)
        except ValueError as exc:  # an unmatched "{" or "}"
            raise ValueError(f"is not a valid template ({exc}); write {{{{ for a brace") from None
        if found - wanted:
            unknown = ", ".join(f"{{{n}}}" for n in sorted(found - wanted))
            raise ValueError(f"uses {unknown}; the placeholders here are: {shown}")
        if wanted - found:
            missing = ", ".join(f"{{{n}}}" for n in sorted(wanted - found))
            raise ValueError(f"must contain {missing}")
        return value

    return AfterValidator(check)


def load(relative: str, model: type[M]) -> M:
    """``data/<relative>`` validated by ``model``. Callers cache what they build from it."""
    return read(DATA / relative, model)


def read(path: Path, model: type[M]) -> M:
    """A TOML file validated by ``model``; ``ContentError`` names the file and the field."""
    import tomllib  # here, not at import: only the first load needs it

    name = shown(path)
    try:
        with path.open("rb") as stream:
            document = tomllib.load(stream)
    except OSError as exc:
        raise ContentError(f"{name}: cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(f"{name}: is not valid TOML: {exc}") from None
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        problems = [
            f"{_where(e['loc'], document)}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        ]
        raise ContentError(f"{name}: " + "; ".join(problems)) from None


def read_json(path: Path, model: type[M]) -> M:
    """A JSON document (a trained model) validated by ``model``; ``ContentError`` names the
    file and the field. Parsed and validated in one pass (pydantic-core), about as fast as
    ``json.loads`` alone."""
    name = shown(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContentError(f"{name}: cannot be read ({exc.strerror})") from None
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        raise ContentError(f"{name}: {_problems(exc)}") from None


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    """The rows of a JSON Lines file (a training set), each validated by ``model``
    (``numbered_rows``)."""
    return [row for _, row in numbered_rows(path, model)]


SHOWN_ROWS = 10  # the bad rows a ContentError lists; it counts the others


def numbered_rows(path: Path, model: type[M]) -> list[tuple[int, M]]:
    """``(line number, row)`` of each non-blank line of a JSON Lines file, validated by
    ``model``. Every line is read: a ``ContentError`` lists each bad one (the first
    ``SHOWN_ROWS``) as ``file:line: field: what is wrong``."""
    name = shown(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContentError(f"{name}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ContentError(f"{name}: is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    rows: list[tuple[int, M]] = []
    bad: list[str] = []
    # "\n" alone ends a line (str.splitlines would also split at U+2028 inside a string)
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append((number, model.model_validate_json(line)))
        except ValidationError as exc:
            bad.append(f"{name}:{number}: {_problems(exc)}")
    if bad:
        more = f"\n(and {len(bad) - SHOWN_ROWS} more bad rows)" if len(bad) > SHOWN_ROWS else ""
        raise ContentError("\n".join(bad[:SHOWN_ROWS]) + more)
    return rows


def _problems(exc: ValidationError) -> str:
    """A validation error of JSON data as ``field: what is wrong (got the value)``, joined by
    "; " (a field inside a list is ``weights[3]``, inside a mapping ``weights.cue:legal``)."""
    found = []
    for error in exc.errors(include_url=False):
        if error["type"] == "json_invalid":
            found.append(f"is not valid JSON ({error.get('ctx', {}).get('error', error['msg'])})")
            continue
        message = error["msg"].removeprefix("Value error, ")
        value = error.get("input")
        if error["type"] != "missing" and (value is None or isinstance(value, str | int | float)):
            got = json.dumps(value, ensure_ascii=False)  # as the file has it: true, "1"
            message += f" (got {got if len(got) <= 60 else got[:56] + '...'})"
        where = _where(error["loc"], None) if error["loc"] else ""
        found.append(f"{where}: {message}" if where else message)
    return "; ".join(found)


def shown(path: Path) -> str:
    """A data file's name as errors give it: relative to the repository when it is in it."""
    try:
        return str(path.resolve().relative_to(DATA.parent))
    except ValueError:
        return str(path)


def _where(loc: tuple[Any, ...], document: Any) -> str:
    """A field's place in the file, naming list entries by their ``key`` when they have one:
    ``activity[3] (key 'drones').patterns[1]``. Indexes count from 0."""
    where, node = "", document
    for part in loc:
        if isinstance(part, int):
            where += f"[{part}]"
            node = node[part] if isinstance(node, list) and part < len(node) else None
            if isinstance(node, dict) and isinstance(node.get("key"), str):
                where += f" (key {node['key']!r})"
        else:
            where += f".{part}" if where else str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return where or "(the whole file)"
