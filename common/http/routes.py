"""What an endpoint group declares and what its handlers receive: ``Route`` (one operation:
what it accepts, who may call it, what it answers, what it costs), ``Call`` (a handler's
validated inputs and caller), and the kinds of answer beside a pydantic model (``Streamed``,
``Html``, ``Static``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Generic, Protocol, TypeAlias

from pydantic import BaseModel
from typing_extensions import TypeVar  # typing's TypeVar takes a default from Python 3.13

if TYPE_CHECKING:
    from werkzeug.datastructures import Headers

    from common.adapters.tasks import Task

    # A request's headers: werkzeug's (case-insensitive) in the pipeline, a dict in tests.
    HeaderMap: TypeAlias = Headers | Mapping[str, str]

_PATH_PARAM = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")


class Auth(StrEnum):
    NONE = "none"
    API_KEY = "api_key"  # Authorization: Bearer ars_live_...
    ID_TOKEN = "id_token"  # noqa: S105 - Authorization: Bearer <the IdP's OIDC ID token> (portal)
    WEBHOOK = "webhook"  # Standard Webhooks signature over the raw body
    SENDGRID = "sendgrid"  # SendGrid's signed Event Webhook (ECDSA) over the raw body
    # Internal callers: a Google OIDC token for this function's own URL (local: shared secret)
    SCHEDULER = "scheduler"  # Cloud Scheduler -> tracking_dispatch (TRACKING_DISPATCH_URL)
    TASK_QUEUE = "task_queue"  # Cloud Tasks -> task_worker (TASK_WORKER_URL)

    @property
    def internal(self) -> bool:
        return self in (Auth.SCHEDULER, Auth.TASK_QUEUE)


CALLER_AUTHS = (Auth.API_KEY, Auth.ID_TOKEN)  # routes whose bodies are people's text


class Consumer(Protocol):
    """Who calls an ``Auth.API_KEY`` route (``common.accounts.keys.Principal``) or an
    ``Auth.ID_TOKEN`` one (``common.accounts.consumers.PortalUser``, which has no key)."""

    @property
    def consumer_id(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def plan(self) -> str: ...
    @property
    def key_id(self) -> str | None: ...
    @property
    def rate_limit(self) -> tuple[int, int] | None: ...


# The types of a handler's inputs (decision 0023): ``Call[Body, Query, Path, Caller]``, each
# model None when the route has none; the caller is a Consumer unless the route's auth says
# otherwise (None for Auth.NONE, the message id for Auth.WEBHOOK, an InternalCaller...).
Body = TypeVar("Body", bound=BaseModel | None, default=None)
Query = TypeVar("Query", bound=BaseModel | None, default=None)

Path = TypeVar("Path", bound=BaseModel | None, default=None)

Caller = TypeVar("Caller", default=Consumer)

# The same for Route, without defaults: a bare ``Route`` is any route.
_B = TypeVar("_B", bound=BaseModel | None)

_Q = TypeVar("_Q", bound=BaseModel | None)

_P = TypeVar("_P", bound=BaseModel | None)

_C = TypeVar("_C")


@dataclass(frozen=True, eq=False)  # compared and hashed as itself (``fixed`` is a dict)
class Tool:
    """The operation as a tool of the MCP server (``functions.mcp``, decision 0052): its
    arguments are the route's path, query and body fields together, its result the route's
    answer (a streamed route's events gathered into one report), billed as the route.

    The tool's title and description, written for a language model choosing among the tools,
    are content: ``data/mcp/tools.toml`` under ``name``. The hints are MCP's tool annotations.
    ``fixed`` sets body fields the tool does not take as arguments (a pause is an update with
    ``active: false``), and ``body_fields`` names the body fields it takes as arguments (a
    pause takes none). ``repeated``: a streamed route's event types that come many times,
    gathered as lists (``finding`` -> ``findings``); every other event type but ``error`` is
    kept once, under its own name."""

    name: str
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    fixed: Mapping[str, object] = field(default_factory=dict)
    body_fields: tuple[str, ...] | None = None  # the body fields it takes (None: every one)
    repeated: tuple[str, ...] = ()


@dataclass(frozen=True)
class Route(Generic[_B, _Q, _P, _C]):
    """One operation: what it accepts, who may call it, what it answers and what it costs.

    Generic so that the type checker matches ``body``, ``query`` and ``path_params`` with the
    ``Call`` the handler declares; a bare ``Route`` (a table, ``Sequence[Route]``) is any route.
    """

    method: str
    path: str
    handler: Callable[[Call[_B, _Q, _P, _C]], BaseModel | Streamed | Html | Static | Reply | None]
    operation_id: str
    summary: str
    tag: str
    auth: Auth = Auth.API_KEY
    body: type[_B] | None = None
    query: type[_Q] | None = None
    path_params: type[_P] | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    price: str | None = None  # operation name in the price table; None: free, not metered
    errors: tuple[int, ...] = ()  # statuses beyond those the pipeline itself can answer
    description: str = ""
    documented: bool = True  # False: left out of /openapi.json (the portal's static files)
    # A streamed answer: its media type (common.http.streams: NDJSON or SSE) and the models of
    # its events, published in /openapi.json beside the route.
    stream: str | None = None
    events: tuple[type[BaseModel], ...] = ()
    # Fields of the answer (dotted paths into its JSON) never kept for an Idempotency-Key's
    # replay, e.g. a new API key: shown once, hashed at rest; a replay answers without it.
    secret_fields: tuple[str, ...] = ()
    # The capacity pool the work belongs to (common.http.capacity): "search" (CPU work:
    # embedding, the offline engines) or "streams" (a streamed answer, held while it is open);
    # at most MAX_CONCURRENT_<POOL> run at once per instance, shared fairly among consumers.
    capacity: str | None = None
    # What the work needs loaded before the instance's first request (the encoder, the
    # screen's patterns): a function named "package.module:function", imported and run once
    # in the background at start (common.http.warmup); /health answers 503 `warming` until
    # every route's is done.
    warm: str | None = None
    # The route says whether the instance is ready for traffic (GET /health): an entry point
    # that serves one warms its routes' needs at start; one that does not (a group's own
    # function, where nothing can keep traffic away meanwhile) loads them on first use, and
    # its first requests do not share the CPU with a warm-up.
    readiness: bool = False
    # The operation's tools on the MCP server (``Tool``); none: not offered to assistants.
    tools: tuple[Tool, ...] = ()
    # The handler parses the body itself (``Call.raw``, read with the same size, type and
    # time limits): the MCP server answers a malformed message in JSON-RPC's own terms.
    raw_body: bool = False
    # A 401 names this OAuth protected-resource metadata document (RFC 9728), by its path,
    # in WWW-Authenticate: how an MCP client finds where to sign in.
    resource_metadata: str | None = None
    # False: the route does not itself take an Idempotency-Key (the MCP server hands the
    # header to the tool call it runs, which takes it as its REST route would).
    idempotency: bool = True

    def pattern(self) -> re.Pattern[str]:
        parts = _PATH_PARAM.split(self.path)  # literal, name, literal, name, ..., literal
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
        )
        return re.compile(f"^{regex}$")


@dataclass
class Call(Generic[Body, Query, Path, Caller]):
    """What a handler receives: the validated inputs and who is asking.

    A handler declares what its route validates, e.g. ``Call[SubscriptionCreate]`` (a body),
    ``Call[None, ListQuery]``, ``Call[SubscriptionPatch, None, SubscriptionPath]``,
    ``Call[None, None, None, None]`` (a public route: no caller)."""

    principal: Caller
    body: Body  # each None exactly when the route declares no model for it
    query: Query
    path: Path
    correlation_id: str = ""
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    headers: HeaderMap = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)  # set by the handler
    # Every route of the whole API, not only this entry point's (see Api): for /openapi.json and
    # the assistant's list of operations. The registry provides it; the groups never import it.
    api_routes: Callable[[], Sequence[Route]] = field(default=lambda: ())
    # What runs each kind of task (registry.jobs), for the task worker's route.
    jobs: Callable[[], Mapping[str, Callable[[Task], str]]] = field(default=lambda: {})
    # A handler whose answer did no work for the caller (nothing found, nothing drafted) sets
    # this False: a priced route then records no usage for the request.
    billed: bool = True
    # A job bills this request when it delivers (a legal guide): the request itself is neither
    # billed nor noted as unbilled (decision 0039).
    billed_by_job: bool = False
    # The request's body as received, for a route that parses it itself (``Route.raw_body``).
    raw: bytes = b""
    # Run once, when the call is settled (decision 0066), with whether it delivered what it is
    # priced for to the client: e.g. a person's place in her day kept, or given back.
    settled_hooks: list[Callable[[bool], None]] = field(default_factory=list)

    def when_settled(self, hook: Callable[[bool], None]) -> None:
        """Run ``hook(delivered)`` once the call is settled, however it ends (delivered,
        not delivered, failed, the client gone)."""
        self.settled_hooks.append(hook)


@dataclass
class Streamed:
    """A handler's streamed answer (server-sent events, NDJSON): chunks sent as produced.

    A priced stream is billed once what it is priced for has been written to the client
    (decisions 0039, 0066): the producer sets ``delivered`` when it produces the chunk that
    carries it (the first research item, the first finding, a draft's first words, the last
    chunk of a whole chat reply; never an opening or metadata line), and the call is settled
    once that chunk is written -- the server came back for the next chunk, or the stream
    ended, with the client still connected -- exactly once, whether or not the client stays to
    the end. A stream that never delivers (nothing found, an ``error`` event, a client gone
    before) is not billed. ``failed``: the producer sent an error event.
    """

    chunks: Iterable[str]
    mimetype: str
    failed: bool = False
    delivered: bool = False


@dataclass
class Reply:
    """An answer in a format of its own, with its own status (the MCP server's JSON-RPC
    messages: 200, 202 for a notification, 400 or 404 for a protocol error)."""

    body: bytes
    mimetype: str
    status: int


@dataclass
class Html:
    """A small HTML page (e.g. the pause-link confirmation a person sees in a browser)."""

    body: str


@dataclass
class Static:
    """A static file of the developer portal (HTML, JS, CSS): sent as it is, with the headers
    its handler sets (Content-Security-Policy, caching) in ``Call.response_headers``."""

    body: bytes
    mimetype: str
