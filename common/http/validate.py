"""Validating a request's inputs against its route's models: strict JSON for bodies, callers'
text checked for control and bidi characters, and every failure a 400 naming its fields.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from common.errors import FieldError, InvalidRequest


def validate_json(model: type[BaseModel], raw: bytes, *, check_text: bool = False) -> BaseModel:
    try:
        # JSON-mode strict validation: no silent coercion ("5" is not 5, 1 is not true).
        validated = model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        raise _invalid(model, exc, "body") from None
    if check_text:  # callers' text: no control or bidi characters (common.text.safety)
        from common.text.safety import unsafe_text

        if errors := unsafe_text(json.loads(raw)):
            shown = "; ".join(f"{e.field}: {e.message}".rstrip(".") for e in errors[:3])
            raise InvalidRequest(f"Invalid body: {shown}.", errors=errors)
    return validated


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
    if kind == "extra_forbidden":
        allowed = ", ".join(f.alias or n for n, f in model.model_fields.items())
        return FieldError(name, f"Unknown field. Allowed fields: {allowed}.")
    return FieldError(name, err["msg"].removeprefix("Value error, "))
