"""The one typed Settings object, read from environment variables once per process."""

from __future__ import annotations

import base64
import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from common import __version__

Environment = Literal["local", "test", "prod"]

# Documented local-only defaults. Outside ENVIRONMENT=local/test they make start-up fail.
LOCAL_WEBHOOK_SECRET = "whsec_bG9jYWwtZGV2ZWxvcG1lbnQtd2ViaG9vay1zZWNyZXQ="  # noqa: S105 (local only)
LOCAL_OIDC_AUDIENCE = "ars-portal-local"
LOCAL_INTERNAL_SECRET = "local-internal-secret-not-for-production"  # noqa: S105
LOCAL_PAUSE_LINK_SECRET = "local-pause-link-secret-not-for-production"  # noqa: S105
# Secret Manager secrets (terraform/secrets.tf): in production a function has only those it uses.
SECRET_FIELDS = ("idp_webhook_secret", "sendgrid_api_key", "pause_link_secret", "llm_api_key")


# What docs/configuration.md shows as the default where the literal value would mislead (a
# default computed at start-up, a local-only secret, a URL built from another setting).
SHOWN_DEFAULTS = {
    "service_version": "package version",
    "firestore_emulator_host": "`127.0.0.1:$EMULATOR_PORT` outside prod",
    "idp_webhook_secret": "a documented local secret",
    "oidc_issuer": "`http://127.0.0.1:$JWKS_PORT`",
    "oidc_jwks_url": "issuer + `/.well-known/jwks.json`",
    "oidc_client_id": "`OIDC_AUDIENCE`",
    "oidc_authorize_url": "issuer + `/authorize`",
    "oidc_token_url": "issuer + `/token`",
    "portal_redirect_uri": "the page's own `/portal/` URL",
    "tasks_queue": "a local name",
    "task_worker_url": "`http://127.0.0.1:$PORT`",
    "tracking_dispatch_url": "`http://127.0.0.1:$PORT`",
    "scheduler_service_account": "`TASKS_SERVICE_ACCOUNT`",
    "internal_secret": "a documented local secret",
    "internal_oidc_jwks_url": "Google's certs URL",
    "public_base_url": "`http://127.0.0.1:$PORT` (none in prod)",
    "pause_link_secret": "a documented local secret",
    "embeddings_base_url": "`https://LOCATION-aiplatform.googleapis.com`",
    "news_search_url": "Google News RSS search",
}


class Settings(BaseSettings):
    """Every variable, documented by its field's description: docs/configuration.md is generated
    from these fields (``python -m devtools.configdoc``; a test fails when the two differ)."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    environment: Environment = Field(
        "local",
        description=(
            "`local`, `test` or `prod`. Outside `prod` the database is always the emulator; "
            "in `prod`, local defaults of secrets make start-up fail."
        ),
    )
    service_version: str = Field(
        __version__, description="reported by `GET /health` and `/openapi.json`"
    )
    log_level: str = Field(
        "INFO", description="Python logging level; logs are JSON lines for Cloud Logging"
    )

    google_cloud_project: str = Field(
        "demo-advocacy-research",
        description="project id; a `demo-` id is refused in `prod`",
    )
    firestore_database: str = Field("(default)", description="Firestore database id")
    firestore_recipients_database: str = Field(
        "recipients",
        description=(
            "Firestore database of the email suppression list and third-party recipients' "
            "consents: only the functions that mail or manage recipients reach it (0051)"
        ),
    )
    firestore_osint_database: str = Field(
        "osint",
        description=(
            "Firestore database of the OSINT opt-out list, audit log and subject counts: only "
            "the osint and chat functions reach it (0051)"
        ),
    )
    firestore_emulator_host: str | None = Field(
        None,
        description="emulator address; must be unset in `prod`",
    )
    emulator_port: int = Field(
        8681, description="port of the local emulator (`make run`, admin CLI)"
    )
    port: int = Field(8080, description="port of `make run`'s server")
    firestore_timeout_s: float = Field(
        5.0, gt=0, le=60, description="deadline of one Firestore call, retries included"
    )

    search_budget_s: float = Field(
        3.0,
        gt=0,
        le=60,
        description=(
            "time a search waits for its parts (words, meaning, each table); what has not "
            "answered by then is left out and the answer says `degraded: true` (decision 0048)"
        ),
    )

    key_cache_ttl_s: float = Field(
        30.0,
        ge=0,
        le=300,
        description="how long a verified key is trusted in process: the revocation lag",
    )
    key_cache_max_entries: int = Field(10_000, ge=0, description="bound of that cache")
    key_environment: Literal["live", "test"] = Field(
        "live", description="issued keys start with `ars_live_` or `ars_test_`"
    )

    max_body_bytes: int = Field(
        1_048_576,
        gt=0,
        description=(
            "larger request bodies get 413 (a larger declared `Content-Length`: at once, on "
            "any route)"
        ),
    )
    body_read_timeout_s: float = Field(
        5.0,
        gt=0,
        le=60,
        description=(
            "a request body not received in full within this gets 408 and its connection is closed"
        ),
    )
    max_subscriptions_per_consumer: int = Field(
        25, ge=1, description="more gives 409 `limit_exceeded`"
    )

    max_concurrent_searches: int = Field(
        4,
        ge=1,
        le=1_000,
        description=(
            "searches (and other requests that embed text in this instance) run at once per "
            "instance; more wait `CAPACITY_WAIT_MS`, then get 503 `overloaded` with "
            "`Retry-After` (decision 0048)"
        ),
    )
    max_concurrent_streams: int = Field(
        16,
        ge=1,
        le=1_000,
        description=(
            "streamed answers (research, OSINT profiles, chat and content streams) open at "
            "once per instance; more wait `CAPACITY_WAIT_MS`, then get 503 `overloaded` "
            "(decision 0065)"
        ),
    )
    capacity_wait_ms: int = Field(
        2000, ge=0, le=10_000, description="how long a request waits for a free search slot"
    )
    capacity_per_consumer: int = Field(
        48,
        ge=1,
        le=10_000,
        description=(
            "requests of one consumer running or waiting in one capacity pool per instance; "
            "more get 503 `overloaded` at once, so one consumer's burst cannot hold every "
            "thread of the instance (about 3/4 of its threads: `make run` serves with 64; "
            "decision 0065)"
        ),
    )
    mcp_allowed_origins: str = Field(
        "",
        description=(
            "web origins (comma-separated, e.g. `https://app.example.org`) whose pages may call "
            "`POST /mcp`; a request with another `Origin` gets 403. Requests without `Origin` "
            "(assistants, not browsers) and the origin of `PUBLIC_BASE_URL` are always allowed; "
            "when that is on this machine (local runs), so are loopback origins (decision 0052)"
        ),
    )
    rate_limit_requests: int = Field(60, ge=1, description="requests per window per consumer")
    rate_limit_window_s: int = Field(60, ge=1, le=86_400, description="the window, in seconds")
    auth_failures_per_address: int = Field(
        20,
        ge=0,
        description=(
            "failed authentications (401 on a keyed or portal route) one client address may "
            "make at once; then it gets 429 before any database read, except with a key the "
            "instance already verified (0: no limit; decision 0034)"
        ),
    )
    auth_failure_window_s: float = Field(
        60.0,
        gt=0,
        description="the time in which an address earns those failures back (a token bucket)",
    )
    auth_failure_max_addresses: int = Field(
        10_000, ge=1, description="addresses the failure limiter remembers per instance"
    )
    client_address_hops: int = Field(
        0,
        ge=0,
        le=10,
        description=(
            "`0`: the client address is the connection's peer; `n`: the n-th "
            "`X-Forwarded-For` entry from the right (Terraform sets `2`: API Gateway, then "
            "Cloud Run's front end)"
        ),
    )
    rate_limit_plans: dict[str, tuple[int, int]] = Field(
        default_factory=dict,
        description=(
            'JSON, per plan `[requests, window_s]`, e.g. `{"pro": [600, 60]}`; a consumer '
            "record's `rate_limit` overrides both"
        ),
    )
    price_overrides: dict[str, int] = Field(
        default_factory=dict,
        description='JSON, per operation micro-dollars, e.g. `{"content.generate": 300000}`',
    )

    max_active_keys_per_consumer: int = Field(
        10, ge=1, description="more gives 409 `limit_exceeded`"
    )
    key_last_used_interval_s: float = Field(
        300.0, ge=0, description="`last_used_at` is written at most this often per key"
    )

    idp_webhook_secret: str = Field(
        LOCAL_WEBHOOK_SECRET,
        description=(
            "`whsec_…` Standard Webhooks secret; several separated by spaces while rotating; "
            "required in prod"
        ),
    )
    webhook_receipt_ttl_hours: int = Field(
        72, ge=1, description="how long delivery ids are remembered to drop duplicates"
    )
    oidc_issuer: str = Field("", description="issuer of the portal's ID tokens; required in prod")
    oidc_audience: str = Field(
        LOCAL_OIDC_AUDIENCE, description="audience (the portal's client id); required in prod"
    )
    oidc_jwks_url: str = Field("", description="where the IdP's signing keys are")
    jwks_port: int = Field(
        8682,
        description=(
            "port of the local identity provider (JWKS, sign-in form, token endpoint) that "
            "`make run` serves"
        ),
    )
    oidc_client_id: str = Field(
        "", description="the portal page's OAuth client id (a public client with PKCE)"
    )
    oidc_authorize_url: str = Field(
        "", description="the IdP's authorization endpoint, where the portal's Sign in goes"
    )
    oidc_token_url: str = Field(
        "",
        description="the IdP's token endpoint (the page's CSP allows its origin in `connect-src`)",
    )
    portal_redirect_uri: str = Field(
        "",
        description="where the IdP returns the sign-in; register it with the IdP",
    )

    llm_backend: Literal["offline", "openai"] = Field(
        "offline",
        description=(
            "`offline` (built-in engine) or `openai` (an OpenAI-compatible Chat Completions API)"
        ),
    )
    llm_base_url: str = Field(
        "",
        description=(
            "e.g. `https://REGION-aiplatform.googleapis.com/v1/projects/P/locations/REGION/en"
            "dpoints/openapi`; required with `openai` in prod"
        ),
    )
    llm_model: str = Field(
        "", description="e.g. `google/gemini-2.0-flash`; required with `openai` in prod"
    )
    llm_api_key: str = Field("", description="the provider's key, for `LLM_AUTH=key`")
    llm_auth: Literal["key", "google"] = Field(
        "key",
        description=(
            "`key` sends `LLM_API_KEY`; `google` sends an access token from the runtime's "
            "credentials"
        ),
    )
    llm_timeout_s: float = Field(30.0, gt=0, le=300, description="per attempt")
    llm_max_retries: int = Field(2, ge=0, le=5, description="retries on 429, 5xx, timeouts")
    llm_input_token_budget: int = Field(
        8000,
        ge=500,
        le=200_000,
        description=(
            "the most a request sends to the provider, in tokens (counted as 4 characters "
            "each): longer conversations keep their instructions and latest turns; a schema "
            "failure is asked again with half (so a call's input costs at most 1.5 times the "
            "provider's price of this many tokens)"
        ),
    )
    llm_deadline_s: float = Field(
        60.0,
        gt=0,
        le=540,
        description=(
            "one provider call, all attempts and waits included (keep below the function timeout)"
        ),
    )

    intent_from_provider: Literal["unsure", "always"] = Field(
        "unsure",
        description=(
            "with a provider, which messages `POST /v1/chat/intent` asks it about: `unsure` "
            "(the offline engine's confidence below 0.80; it answers the others) or `always` "
            "(the engine answers only when the provider fails)"
        ),
    )

    demo_email: str = Field("demo@example.org", description="the consumer `make run` seeds")

    tasks_backend: Literal["inline", "cloudtasks"] = Field(
        "inline",
        description=(
            "`inline` (a bounded worker thread in the process, local runs) or `cloudtasks`; "
            "`cloudtasks` required in prod"
        ),
    )
    tasks_queue: str = Field(
        "projects/demo-advocacy-research/locations/local/queues/tracking-research",
        description="Cloud Tasks queue, `projects/P/locations/L/queues/Q`",
    )
    tasks_emulator_host: str | None = Field(
        None, description="`host:port` of gcloud-tasks-emulator (tests); must be unset in prod"
    )
    task_worker_url: str = Field(
        "",
        description=(
            "base URL of the `task_worker` function: the tasks' target and token audience; "
            "required in prod"
        ),
    )
    tracking_dispatch_url: str = Field(
        "",
        description=(
            "base URL of `tracking_dispatch`: the Scheduler token's audience; required in prod"
        ),
    )
    tasks_service_account: str = Field(
        "",
        description=(
            "the invoker service account whose OIDC token Cloud Tasks and Scheduler send; "
            "required in prod"
        ),
    )
    scheduler_service_account: str = Field(
        "",
        description=(
            "the account whose OIDC token Cloud Scheduler sends to `tracking_dispatch` "
            "(Terraform gives the Scheduler its own, so the task queue's account cannot "
            "trigger dispatch)"
        ),
    )
    internal_auth: Literal["oidc", "secret"] = Field(
        "secret",
        description=(
            "how internal calls are checked: `oidc` (Google ID token, required in prod) or `secret`"
        ),
    )
    internal_secret: str = Field(
        LOCAL_INTERNAL_SECRET,
        description="bearer of internal calls with `INTERNAL_AUTH=secret` (local runs, tests)",
    )
    internal_oidc_issuer: str = Field(
        "https://accounts.google.com", description="issuer of the internal callers' tokens"
    )
    internal_oidc_jwks_url: str = Field(
        "https://www.googleapis.com/oauth2/v3/certs", description="keys that sign them"
    )
    inline_queue_size: int = Field(
        1000,
        ge=1,
        description=(
            "bound of the inline queue (a full queue refuses; the dispatcher retries next tick)"
        ),
    )
    task_max_attempts: int = Field(
        5,
        ge=1,
        le=100,
        description=(
            "attempts per task (Cloud Tasks' `max_attempts` in `terraform/tasks.tf`; the "
            "inline queue's too); the last failed attempt ends the task `failed`"
        ),
    )
    dispatch_page_size: int = Field(
        500, ge=1, le=500, description="subscriptions read and advanced per page (one write batch)"
    )
    dispatch_fan_out_above: int = Field(
        20_000,
        ge=0,
        description=(
            "a tick with more due subscriptions than this is cut into slice tasks that the "
            "task worker dispatches (`0`: never; decision 0035)"
        ),
    )
    dispatch_slice_size: int = Field(
        5_000, ge=1, description="due subscriptions per slice task of a fanned-out tick"
    )
    local_tick_s: float = Field(
        60.0, gt=0, description="`make run` calls the dispatcher this often"
    )
    task_record_ttl_days: int = Field(
        30, ge=1, description="task records (legal guides, run counts) expire after this"
    )

    email_backend: Literal["outbox", "sendgrid"] = Field(
        "outbox",
        description="`outbox` (`.eml` files) or `sendgrid`; `sendgrid` with a key required in prod",
    )
    email_from: str = Field("digest@advocacy-research.example", description="Sender address.")
    email_from_name: str = Field("Advocacy Research", description="Sender display name.")
    sendgrid_api_key: str = Field("", description="SendGrid key (a secret)")
    sendgrid_host: str = Field(
        "https://api.sendgrid.com", description="SendGrid API base URL (tests point it at a fake)"
    )
    sendgrid_timeout_s: float = Field(10.0, gt=0, le=60, description="one send")
    outbox_dir: str = Field(".local/outbox", description="where the outbox writes")
    public_base_url: str = Field(
        "",
        description=(
            "the API's public URL, used in email links; in prod, digests are retried and fail"
            " until it is set (second Terraform apply)"
        ),
    )
    pause_link_secret: str = Field(
        LOCAL_PAUSE_LINK_SECRET,
        description="HMAC key of pause links (32+ characters, a secret); required in prod",
    )
    pause_link_ttl_days: int = Field(60, ge=1, le=365, description="pause links expire after this")
    consent_resend_hours: int = Field(
        168,
        ge=1,
        le=8760,
        description=(
            "a third-party address gets at most one confirmation email per account this "
            "often; its confirm link is valid as long"
        ),
    )
    confirmations_per_day: int = Field(
        20,
        ge=0,
        le=100_000,
        description=(
            "confirmation emails one account may cause per UTC day (each to a new third-party "
            "address); a subscription that would need one more gets 429 "
            "`confirmation_limit`, nothing saved (`0`: no limit)"
        ),
    )
    sendgrid_webhook_public_key: str = Field(
        "",
        description=(
            "verification key of SendGrid's Signed Event Webhook (base64 EC public key); "
            "required in prod; without it `/webhooks/sendgrid` answers 401"
        ),
    )

    embeddings_backend: Literal["offline", "vertex"] = Field(
        "offline",
        description=(
            "`offline` (all-MiniLM-L6-v2 in process with NumPy, 384 dimensions; local runs "
            "and tests) or `vertex`; `vertex` required in prod"
        ),
    )
    embeddings_model: str = Field("text-embedding-005", description="Vertex AI embedding model")
    embeddings_dimension: int = Field(
        768,
        ge=1,
        le=3072,
        description=(
            "vector size asked of Vertex AI; must match the Firestore vector indexes "
            "(terraform `embeddings_dimension`)"
        ),
    )
    embeddings_location: str = Field("europe-west1", description="Vertex AI region")
    embeddings_base_url: str = Field("", description="Vertex AI base URL (tests: a loopback fake)")
    embeddings_auth: Literal["google", "none"] = Field(
        "google",
        description="`google`: an access token of the runtime's credentials; `none` (tests)",
    )
    embeddings_timeout_s: float = Field(10.0, gt=0, le=120, description="Per-attempt timeout.")
    embeddings_deadline_s: float = Field(
        20.0, gt=0, le=540, description="One embedding call, all attempts and waits included."
    )

    feed_catalog_path: str = Field(
        "",
        description=(
            'a JSON file `{"topics": {"<id>": {"feeds": [url, ...]}}}` whose feeds replace '
            "those of `data/topics.toml` (a topic it leaves out has none); `make run` points "
            "it at the fixture feeds"
        ),
    )
    news_search_url: str = Field(
        "https://news.google.com/rss/search?q={query}&hl=en-US&gl=US&ceid=US:en",
        description="feed URL template for custom keywords; `{query}` is the URL-encoded keyword",
    )
    feed_timeout_s: float = Field(8.0, gt=0, le=60, description="deadline of one feed fetch")
    feed_max_bytes: int = Field(2_000_000, gt=0, description="larger feeds are an error")
    feed_max_age_days: int = Field(30, ge=1, description="older items are ignored")
    feed_cache_entries: int = Field(
        256, ge=0, description="feeds kept in process for conditional GET"
    )
    digest_max_items: int = Field(10, ge=1, le=50, description="items per digest")
    local_feeds: bool = Field(
        True,
        description=(
            "`make run` serves the fixture feeds and points the catalog there; `0` uses the "
            "real feeds"
        ),
    )
    feed_port: int = Field(8683, description="port of the local fixture feeds")

    osint_subject_daily_limit: int = Field(
        20,
        ge=0,
        description=(
            "person profiles of one person that delivered a finding, per UTC day, by all "
            "consumers together (every pair of the name's words counts); more get 429 "
            "`subject_rate_limited`, logged with a pseudonym of the name (`0`: no limit)"
        ),
    )
    osint_optout_cache_seconds: int = Field(
        30,
        ge=0,
        le=600,
        description=(
            "how long an instance keeps the opt-out list in memory to find opted-out people "
            "named in research items, digests, drafts and answers (`0`: read it every time); "
            "the person and company doors, and keywords that name a person in full, read the list "
            "itself"
        ),
    )
    osint_audit_retention_days: int = Field(
        730, ge=1, le=3650, description="OSINT audit entries expire after this (Firestore TTL)"
    )

    @field_validator("idp_webhook_secret")
    @classmethod
    def _webhook_secrets_decode(cls, value: str) -> str:
        """Each secret is whsec_ + base64 of at least 16 bytes, so a typo fails at start-up
        instead of turning every delivery into a 401."""
        secrets = value.split()
        for secret in secrets:
            try:
                decoded = base64.b64decode(secret.removeprefix("whsec_") + "==")
            except ValueError:
                decoded = b""
            if not secret.startswith("whsec_") or len(decoded) < 16:
                raise ValueError("IDP_WEBHOOK_SECRET must be whsec_ + base64 (16+ bytes)")
        if not secrets:
            raise ValueError("IDP_WEBHOOK_SECRET must not be empty")
        return value

    @field_validator("sendgrid_webhook_public_key")
    @classmethod
    def _sendgrid_key_loads(cls, value: str) -> str:
        """A key pasted wrong fails at start-up, not as a 401 on every SendGrid delivery."""
        if not value:
            return value
        import binascii

        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.serialization import load_der_public_key

        try:
            key = load_der_public_key(base64.b64decode(value.strip(), validate=True))
        except (ValueError, binascii.Error, TypeError):
            key = None
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise ValueError("SENDGRID_WEBHOOK_PUBLIC_KEY must be SendGrid's base64 EC public key")
        return value.strip()

    @model_validator(mode="after")
    def _backends_fit_environment(self) -> Settings:
        if self.environment == "prod" and self.firestore_emulator_host:
            raise ValueError("FIRESTORE_EMULATOR_HOST must not be set when ENVIRONMENT=prod")
        if self.environment != "prod" and not self.firestore_emulator_host:
            # Outside production the database is always the emulator, so the admin CLI run
            # from another shell reaches the one `make run` started with no extra setup.
            self.firestore_emulator_host = f"127.0.0.1:{self.emulator_port}"
        if self.environment == "prod":
            self._refuse_local_defaults()
        if not self.oidc_issuer:
            self.oidc_issuer = f"http://127.0.0.1:{self.jwks_port}"
        local_base = f"http://127.0.0.1:{self.port}"
        # In prod an unset PUBLIC_BASE_URL stays empty (the first Terraform apply cannot know
        # the gateway's URL yet); digests then fail loudly instead of linking to localhost.
        fallback = "" if self.environment == "prod" else local_base
        self.public_base_url = (self.public_base_url or fallback).rstrip("/")
        self.task_worker_url = (self.task_worker_url or local_base).rstrip("/")
        self.tracking_dispatch_url = (self.tracking_dispatch_url or local_base).rstrip("/")
        issuer = self.oidc_issuer.rstrip("/")
        if not self.oidc_jwks_url:
            self.oidc_jwks_url = f"{issuer}/.well-known/jwks.json"
        self.oidc_client_id = self.oidc_client_id or self.oidc_audience
        self.oidc_authorize_url = self.oidc_authorize_url or f"{issuer}/authorize"
        self.oidc_token_url = self.oidc_token_url or f"{issuer}/token"
        return self

    def _refuse_local_defaults(self) -> None:
        # Each function mounts only the secrets its code reads (decision 0033): one that is not
        # in this function's environment is empty here, never its local default, and the code
        # that would use it refuses to (common/http/webhooks.py, functions/tracking/pause_token.py,
        # common/adapters/email.py). One that is mounted must be real.
        unmounted = {name for name in SECRET_FIELDS if name not in self.model_fields_set}
        for name in unmounted:
            setattr(self, name, "")
        placeholders = {
            "IDP_WEBHOOK_SECRET": LOCAL_WEBHOOK_SECRET in self.idp_webhook_secret.split(),
            "OIDC_ISSUER": not self.oidc_issuer,
            "OIDC_AUDIENCE": self.oidc_audience == LOCAL_OIDC_AUDIENCE,
            "GOOGLE_CLOUD_PROJECT": self.google_cloud_project.startswith("demo-"),
            "LLM_BASE_URL/LLM_MODEL": self.llm_backend == "openai"
            and not (self.llm_base_url and self.llm_model),
            "INTERNAL_AUTH=oidc": self.internal_auth != "oidc",
            "TASKS_BACKEND=cloudtasks": self.tasks_backend != "cloudtasks",
            "TASKS_EMULATOR_HOST (unset)": bool(self.tasks_emulator_host),
            "TASK_WORKER_URL/TRACKING_DISPATCH_URL/TASKS_SERVICE_ACCOUNT": not (
                self.task_worker_url and self.tracking_dispatch_url and self.tasks_service_account
            ),
            "EMAIL_BACKEND=sendgrid": self.email_backend != "sendgrid",
            "SENDGRID_API_KEY": "sendgrid_api_key" not in unmounted and not self.sendgrid_api_key,
            "SENDGRID_WEBHOOK_PUBLIC_KEY": not self.sendgrid_webhook_public_key,
            "EMBEDDINGS_BACKEND=vertex": self.embeddings_backend != "vertex",
            "PAUSE_LINK_SECRET": "pause_link_secret" not in unmounted
            and (
                self.pause_link_secret == LOCAL_PAUSE_LINK_SECRET
                or len(self.pause_link_secret) < 32
            ),
        }
        missing = [name for name, placeholder in placeholders.items() if placeholder]
        if missing:
            raise ValueError(f"ENVIRONMENT=prod needs real values for: {', '.join(missing)}")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings are read once per process; tests call ``get_settings.cache_clear()``."""
    return Settings()


RUN_ENV = "run.env"  # in LOCAL_DIR: what `make run` started (devtools/run.py writes it)
RUN_ENV_VARIABLES = (
    "ENVIRONMENT",
    "GOOGLE_CLOUD_PROJECT",
    "FIRESTORE_EMULATOR_HOST",
    "EMULATOR_PORT",
    "PORT",
    "JWKS_PORT",
    "FEED_PORT",
    "OUTBOX_DIR",
    "FEED_CATALOG_PATH",
    "OIDC_ISSUER",
    "IDP_WEBHOOK_SECRET",
)


def run_env_path() -> Path:
    local = os.environ.get("LOCAL_DIR") or str(Path(__file__).resolve().parent.parent / ".local")
    return Path(local) / RUN_ENV


def use_local_run() -> dict[str, str]:
    """The command-line tools' view of a running `make run`: the variables it started with
    (``LOCAL_DIR/run.env``: ports, the emulator's address, the outbox), set in this process
    where the shell sets nothing itself, so `python -m admin` and `python -m devtools.idp` in
    another shell reach the same server and emulator without exporting anything. Only for a
    local environment; returns what it set (nothing when `make run` is not running)."""
    if os.environ.get("ENVIRONMENT", "local") != "local":
        return {}
    try:
        lines = run_env_path().read_text().splitlines()
    except FileNotFoundError:
        return {}
    applied: dict[str, str] = {}
    for line in lines:
        name, sep, value = line.partition("=")
        if sep and name in RUN_ENV_VARIABLES and name not in os.environ:
            os.environ[name] = applied[name] = value
    if applied:
        get_settings.cache_clear()
    return applied
