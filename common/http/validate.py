"""Validating a request's inputs against its route's models: strict JSON for bodies (a field
sent twice in one object is refused, not "last wins"; nesting no deeper than pydantic-core's
parser takes), callers' text checked for control and bidi characters, and every failure a 400
naming its fields (a field's name shown at most ``common.errors.MAX_FIELD_CHARS`` long).

``load_json`` reads a body the same way for a door that has no model for it (``POST /mcp``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from common.errors import FieldError, InvalidRequest
from common.language.safety import MAX_ERRORS, NOT_BLANK, NOT_BLANK_MESSAGE, UNSAFE_CLASS

DUPLICATE_MESSAGE = "Sent more than once in the same object; send each field once."
# pydantic-core's parser (which validates every route's body) refuses JSON nested deeper than
# this many arrays and objects, as "recursion limit exceeded"; Python's json module would
# instead fail with a RecursionError (a 500) a few hundred levels further down.
MAX_NESTING = 201
_TOO_DEEP = "recursion limit exceeded"


def validate_json(model: type[BaseModel], raw: bytes, *, check_text: bool = False) -> BaseModel:
    try:
        # JSON-mode strict validation: no silent coercion ("5" is not 5, 1 is not true).
        validated = model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        raise _invalid(model, exc, "body") from None
    data = _each_name_once(raw)  # the model's parser has taken its nesting
    # callers' text: no control or bidi characters (``unsafe_text``, the classes of safety)
    if check_text and (errors := unsafe_text(data)):
        raise _refused(errors)
    return validated


def load_json(raw: bytes) -> Any:
    """``raw`` read as a route's body is: JSON nested at most ``MAX_NESTING`` deep (the limit
    of the parser every route's model validation uses), each name once per object.
    ``ValueError`` for what is not JSON; ``InvalidRequest`` for JSON refused."""
    try:
        pydantic_core.from_json(raw)
    except ValueError as exc:
        if str(exc).startswith(_TOO_DEEP):
            raise InvalidRequest(
                f"The body is nested too deeply: at most {MAX_NESTING} levels of arrays and "
                "objects."
            ) from None
        raise
    return _each_name_once(raw)


def _each_name_once(raw: bytes) -> Any:
    """The JSON document in ``raw`` (nested no deeper than ``MAX_NESTING``: parsed already);
    400 naming every field sent twice in one object."""
    data = json.loads(raw, object_pairs_hook=_Object)
    if errors := _duplicates(data, []):
        raise _refused(errors)
    return data


class _Object(dict):
    """A JSON object as parsed, with the names it held more than once (pydantic, like most
    parsers, keeps the last value: a caller, or a proxy that reads the first, would see
    another request than the one the service runs)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.repeated: list[str] = []
        if len(self) < len(pairs):
            counts = Counter(name for name, _ in pairs)
            self.repeated = [name for name, n in counts.items() if n > 1]


def _duplicates(value: Any, path: list[str]) -> list[FieldError]:
    found: list[FieldError] = []
    if isinstance(value, _Object):
        for name in value.repeated:
            found.append(FieldError(".".join([*path, name]), DUPLICATE_MESSAGE))
        items = list(value.items())
    elif isinstance(value, list):
        items = [(str(index), item) for index, item in enumerate(value)]
    else:
        return found
    for name, item in items:
        if len(found) >= MAX_ERRORS:
            break
        found += _duplicates(item, [*path, name])
    return found[:MAX_ERRORS]


def _refused(errors: list[FieldError]) -> InvalidRequest:
    shown = "; ".join(f"{e.field}: {e.message}".rstrip(".") for e in errors[:3])
    return InvalidRequest(f"Invalid body: {shown}.", errors=errors)


def validate(model: type[BaseModel], data: dict[str, Any], where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _invalid(model, exc, where) from None


def _invalid(model: type[BaseModel], exc: ValidationError, where: str) -> InvalidRequest:
    errors = [_field_error(model, err, where) for err in exc.errors(include_url=False)]
    shown = "; ".join(
        (e.message if e.field == where else f"{e.field}: {e.message}").rstrip(".")
        for e in errors[:3]
    )
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return InvalidRequest(f"Invalid {where}: {shown}{more}.", errors=errors)


def _field_error(model: type[BaseModel], err: Any, where: str) -> FieldError:
    name = ".".join(str(part) for part in err["loc"]) or where
    kind = err["type"]
    if kind == "json_invalid":
        return FieldError(name, f"Malformed JSON: {err['ctx'].get('error', err['msg'])}.")
    if kind in {"model_type", "model_attributes_type"}:
        return FieldError(name, "Expected a JSON object.")
    if kind == "string_pattern_mismatch" and err.get("ctx", {}).get("pattern") == NOT_BLANK:
        return FieldError(name, NOT_BLANK_MESSAGE)
    if kind == "extra_forbidden":
        allowed = ", ".join(f.alias or n for n, f in model.model_fields.items())
        return FieldError(name, f"Unknown field. Allowed fields: {allowed}.")
    return FieldError(name, err["msg"].removeprefix("Value error, "))


_UNSAFE = re.compile(f"[{UNSAFE_CLASS}]")
_NAMES = {
    "\x00": "NUL",
    "\u202a": "LEFT-TO-RIGHT EMBEDDING",
    "\u202b": "RIGHT-TO-LEFT EMBEDDING",
    "\u202c": "POP DIRECTIONAL FORMATTING",
    "\u202d": "LEFT-TO-RIGHT OVERRIDE",
    "\u202e": "RIGHT-TO-LEFT OVERRIDE",
    "\u2066": "LEFT-TO-RIGHT ISOLATE",
    "\u2067": "RIGHT-TO-LEFT ISOLATE",
    "\u2068": "FIRST STRONG ISOLATE",
    "\u2069": "POP DIRECTIONAL ISOLATE",
}


def unsafe_text(data: Any, where: str = "body") -> list[FieldError]:
    """One error per string (value or object key) in ``data`` holding a refused character."""
    found: list[tuple[list[str], str]] = []
    _walk(data, [], found)
    return [FieldError(".".join(path) or where, message) for path, message in found]


def _walk(value: Any, path: list[str], errors: list[tuple[list[str], str]]) -> None:
    if len(errors) >= MAX_ERRORS:
        return
    if isinstance(value, str):
        if found := _UNSAFE.search(value):
            errors.append((path, _message(found.group())))
    elif isinstance(value, dict):
        for key, item in value.items():
            if found := _UNSAFE.search(key):
                errors.append((path, f"A field name contains {_describe(found.group())}."))
            _walk(item, [*path, key], errors)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, [*path, str(index)], errors)


def _describe(char: str) -> str:
    name = _NAMES.get(char, "a control character")
    return f"{name} (U+{ord(char):04X})"


def _message(char: str) -> str:
    return f"Contains {_describe(char)}, which is not allowed in text."
