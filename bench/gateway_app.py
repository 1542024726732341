"""The benchmark's function source: GET /health and one priced operation whose handler does
nothing, so what bench/gateway.py measures is the pipeline around a handler (auth, rate limit,
validation, metering)."""

import functions_framework
from flask import Request, Response
from pydantic import BaseModel, ConfigDict, Field

from common.http import Api, Call, Route
from functions.system.routes import ROUTES as SYSTEM


class Ask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=2000)


class Answer(BaseModel):
    ok: bool


def noop(call: Call) -> Answer:
    return Answer(ok=True)


METERED = Route(
    "POST",
    "/v1/bench/metered",
    noop,
    "benchMetered",
    "No-op, priced",
    "Bench",
    body=Ask,
    response=Answer,
    price="chat.intent",
)
_api: Api | None = None


@functions_framework.http
def gateway_bench(request: Request) -> Response:
    global _api
    _api = _api or Api([*SYSTEM, METERED])
    return _api(request)
