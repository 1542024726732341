"""The MCP server's tools, generated from the route table: one source of truth for what a
tool takes (its route's path, query and body models), answers (its response model, or a
streamed route's events gathered into one report), costs (its route's price) and may do.
No Flask here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, Field, create_model

from common.billing.pricing import MICROS_PER_USD, price_of
from common.datafiles import Content, Line, Prose, load
from common.http import Route, Tool

# Keywords of a body model's own schema kept in the tool's input schema (a rule across fields,
# such as "prompt or situation"); a fixed field may satisfy minProperties, so it is not kept.
_RULES = ("anyOf", "allOf", "oneOf", "not", "dependentRequired")


class ToolText(Content):
    title: Line
    description: Prose


class ToolTexts(Content):
    instructions: Prose
    tool: dict[str, ToolText]


@cache
def _content() -> ToolTexts:
    return load("mcp/tools.toml", ToolTexts)


def texts() -> dict[str, ToolText]:
    return _content().tool


def instructions() -> str:
    """What the server tells an assistant about all its tools (``initialize``, discovery)."""
    return _content().instructions


@dataclass(frozen=True)
class Offered:
    """A tool and the route that runs it."""

    tool: Tool
    route: Route
    schema: dict[str, Any]  # its input schema
    output: dict[str, Any] | None  # its output schema (none for a route with no model)
    path_fields: frozenset[str]
    query_fields: frozenset[str]
    report: type[BaseModel] | None  # a streamed route's events, gathered

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it."""
        text = texts()[self.tool.name]
        listed: dict[str, Any] = {
            "name": self.tool.name,
            "title": text.title,
            "description": f"{text.description}\n\n{_price_note(self.route)}",
            "inputSchema": self.schema,
            "annotations": {
                "title": text.title,
                "readOnlyHint": self.tool.read_only,
                "destructiveHint": self.tool.destructive,
                "idempotentHint": self.tool.idempotent,
                "openWorldHint": self.tool.open_world,
            },
        }
        if self.output is not None:
            listed["outputSchema"] = self.output
        return listed

    def inputs(self, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], bytes]:
        """The route's path and query parameters and raw JSON body from the tool's arguments
        (the fixed fields set); ``ValueError`` for an argument the tool does not take."""
        if unknown := sorted(set(arguments) - set(self.schema["properties"])):
            taken = ", ".join(self.schema["properties"]) or "none"
            raise ValueError(
                f"Unknown argument(s): {', '.join(unknown)[:200]}. This tool takes: {taken}."
            )
        path = {k: v for k, v in arguments.items() if k in self.path_fields}
        query = {k: v for k, v in arguments.items() if k in self.query_fields}
        body = {k: v for k, v in arguments.items() if k not in path and k not in query}
        if self.route.body is None:
            return path, query, b""
        return path, query, json.dumps({**body, **self.tool.fixed}, ensure_ascii=False).encode()


def catalog(routes: Sequence[Route]) -> dict[str, Offered]:
    """Every tool of ``routes`` by name (a name used twice is a bug, found at the first call)."""
    return _catalog(tuple(routes))


@cache
def _catalog(routes: tuple[Route, ...]) -> dict[str, Offered]:
    """Built once per process: the schemas are generated here, not on every listing."""
    offered: dict[str, Offered] = {}
    for route in routes:
        for tool in route.tools:
            if tool.name in offered:
                raise ValueError(f"two tools named {tool.name!r}")
            report = _report_model(route, tool) if route.stream and route.response is None else None
            output = report or route.response
            offered[tool.name] = Offered(
                tool,
                route,
                input_schema(route, tool),
                output.model_json_schema(by_alias=True, mode="serialization") if output else None,
                _fields(route.path_params),
                _fields(route.query),
                report,
            )
    return offered


def input_schema(route: Route, tool: Tool) -> dict[str, Any]:
    """One object schema of the path, query and body fields (not the fixed ones)."""
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    defs: dict[str, Any] = {}
    for model in (route.path_params, route.query, route.body):
        if model is None:
            continue
        part = model.model_json_schema(by_alias=True, mode="validation")
        for name, definition in part.pop("$defs", {}).items():
            if defs.setdefault(name, definition) != definition:
                raise ValueError(f"{route.operation_id}: two schemas named {name}")
        taken = _taken(tool, model is route.body)
        for name, prop in part.get("properties", {}).items():
            if not taken(name):
                continue
            if name in schema["properties"]:
                raise ValueError(f"{route.operation_id}: the argument {name} is given twice")
            schema["properties"][name] = prop
        schema["required"] += [n for n in part.get("required", []) if taken(n)]
        if model is route.body and tool.body_fields is None:
            schema.update({k: part[k] for k in _RULES if k in part})
    schema["additionalProperties"] = False
    if not schema["required"]:
        del schema["required"]
    if defs:
        schema["$defs"] = defs
    return schema


def _taken(tool: Tool, body: bool) -> Any:
    """Whether the tool takes a field of this model as an argument."""
    if not body:
        return lambda name: True
    return lambda name: (
        name not in tool.fixed and (tool.body_fields is None or name in tool.body_fields)
    )


def _fields(model: type[BaseModel] | None) -> frozenset[str]:
    if model is None:
        return frozenset()
    return frozenset(field.alias or name for name, field in model.model_fields.items())


def _report_model(route: Route, tool: Tool) -> type[BaseModel]:
    """The model of a streamed route's report: one field per event type but ``error``."""
    fields: dict[str, Any] = {}
    for event in route.events:
        kind = event.model_fields["type"].default
        if kind == "error":
            continue
        if kind in tool.repeated:
            fields[f"{kind}s"] = (list[event], Field(default_factory=list))  # type: ignore[valid-type]
        else:
            fields[kind] = (event | None, None)
    name = route.operation_id[:1].upper() + route.operation_id[1:] + "Report"
    return create_model(name, __doc__=f"The events of {route.path}, gathered.", **fields)


def _price_note(route: Route) -> str:
    if not route.price:
        return "Free: not metered."
    dollars = price_of(route.price) / MICROS_PER_USD
    return (
        f"Price: ${dollars:,.2f} per call ({route.price}), charged once and only when the call "
        "delivers what it is for; refusals and errors are free."
    )
