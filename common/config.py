"""The one typed Settings object, read from environment variables once per process."""

from __future__ import annotations

import base64
from functools import lru_cache
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


class Settings(BaseSettings):
    """Every variable is documented in the README's configuration table."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    environment: Environment = Field("local", description="local, test or prod.")
    service_version: str = Field(__version__, description="Reported by GET /health.")
    log_level: str = Field("INFO", description="Python logging level name.")

    google_cloud_project: str = Field(
        "demo-advocacy-research",
        description="Google Cloud project id (a demo-* id keeps the emulator offline).",
    )
    firestore_database: str = Field("(default)", description="Firestore database id.")
    firestore_emulator_host: str | None = Field(
        None,
        description="host:port of the Firestore emulator. Local default: 127.0.0.1:EMULATOR_PORT;"
        " must be unset in production.",
    )
    emulator_port: int = Field(8681, description="Port of the local Firestore emulator.")
    port: int = Field(8080, description="Port of the local server started by make run.")
    firestore_timeout_s: float = Field(
        5.0, gt=0, le=60, description="Deadline of one Firestore call, retries included."
    )

    key_cache_ttl_s: float = Field(
        30.0, ge=0, le=300, description="How long a verified API key is trusted in process."
    )
    key_cache_max_entries: int = Field(10_000, ge=0, description="Bound of the key cache.")
    key_environment: Literal["live", "test"] = Field(
        "live", description="Issued keys start with ars_live_ or ars_test_."
    )

    max_body_bytes: int = Field(1_048_576, gt=0, description="Larger request bodies get 413.")
    body_read_timeout_s: float = Field(
        5.0, gt=0, le=60, description="A body not received in full within this gets 408."
    )
    max_subscriptions_per_consumer: int = Field(25, ge=1, description="More gives 409.")

    rate_limit_requests: int = Field(60, ge=1, description="Requests per window per consumer.")
    rate_limit_window_s: int = Field(60, ge=1, le=86_400, description="Rate-limit window.")
    auth_failures_per_address: int = Field(
        20,
        ge=0,
        description="Failed authentications one client address may make at once (then 429 "
        "before any database read; 0: no limit).",
    )
    auth_failure_window_s: float = Field(
        60.0, gt=0, description="Time in which an address earns its failures back."
    )
    auth_failure_max_addresses: int = Field(
        10_000, ge=1, description="Addresses the failure limiter remembers per instance."
    )
    client_address_hops: int = Field(
        0,
        ge=0,
        le=10,
        description="0: the client address is the peer's; n: the n-th X-Forwarded-For entry "
        "from the right (behind trusted proxies).",
    )
    rate_limit_plans: dict[str, tuple[int, int]] = Field(
        default_factory=dict,
        description='Per-plan [requests, window_s], JSON, e.g. {"pro": [600, 60]}.',
    )
    price_overrides: dict[str, int] = Field(
        default_factory=dict, description="Per-operation prices in micro-dollars, JSON."
    )

    max_active_keys_per_consumer: int = Field(10, ge=1, description="More gives 409.")
    key_last_used_interval_s: float = Field(
        300.0, ge=0, description="last_used_at is written at most this often per key."
    )

    idp_webhook_secret: str = Field(
        LOCAL_WEBHOOK_SECRET,
        description="Standard Webhooks secret(s) of the IdP (whsec_...); several, separated "
        "by spaces, while rotating.",
    )
    webhook_receipt_ttl_hours: int = Field(72, ge=1, description="How long ids are remembered.")
    oidc_issuer: str = Field("", description="Issuer of portal ID tokens (local: the local IdP).")
    oidc_audience: str = Field(LOCAL_OIDC_AUDIENCE, description="Audience of portal ID tokens.")
    oidc_jwks_url: str = Field(
        "", description="JWKS URL (default: issuer + /.well-known/jwks.json)."
    )
    jwks_port: int = Field(8682, description="Port of the local JWKS that make run serves.")
    oidc_client_id: str = Field(
        "", description="The portal page's OAuth client id (default: OIDC_AUDIENCE)."
    )
    oidc_authorize_url: str = Field(
        "", description="The IdP's authorization endpoint (default: issuer + /authorize)."
    )
    oidc_token_url: str = Field(
        "", description="The IdP's token endpoint (default: issuer + /token)."
    )
    portal_redirect_uri: str = Field(
        "",
        description="Where the IdP sends the portal's sign-in back (default: the page's "
        "own /portal/ URL).",
    )

    llm_backend: Literal["offline", "openai"] = Field(
        "offline", description="offline: the built-in engine; openai: a Chat Completions API."
    )
    llm_base_url: str = Field(
        "", description="Base URL of the OpenAI-compatible API, e.g. https://host/v1."
    )
    llm_model: str = Field("", description="Model name sent to the provider.")
    llm_api_key: str = Field("", description="Bearer key for the provider (LLM_AUTH=key).")
    llm_auth: Literal["key", "google"] = Field(
        "key", description="key: LLM_API_KEY; google: an ADC access token (Vertex AI)."
    )
    llm_timeout_s: float = Field(30.0, gt=0, le=300, description="Per-attempt provider timeout.")
    llm_max_retries: int = Field(2, ge=0, le=5, description="Retries on 429/5xx/timeouts.")
    llm_deadline_s: float = Field(
        60.0, gt=0, le=540, description="One provider call, all attempts and waits included."
    )

    demo_email: str = Field("demo@example.org", description="Consumer seeded by make run.")

    tasks_backend: Literal["inline", "cloudtasks"] = Field(
        "inline", description="inline: a bounded worker thread in the process; cloudtasks."
    )
    tasks_queue: str = Field(
        "projects/demo-advocacy-research/locations/local/queues/tracking-research",
        description="Cloud Tasks queue: projects/P/locations/L/queues/Q.",
    )
    tasks_emulator_host: str | None = Field(
        None, description="host:port of gcloud-tasks-emulator (tests); never set in production."
    )
    task_worker_url: str = Field(
        "", description="Base URL of the task_worker function (default: the local server)."
    )
    tracking_dispatch_url: str = Field(
        "", description="Base URL of the tracking_dispatch function (Scheduler's audience)."
    )
    tasks_service_account: str = Field(
        "", description="Service account whose OIDC token Cloud Tasks and Scheduler send."
    )
    scheduler_service_account: str = Field(
        "",
        description="Service account whose OIDC token Cloud Scheduler sends to tracking_dispatch "
        "(default: TASKS_SERVICE_ACCOUNT).",
    )
    internal_auth: Literal["oidc", "secret"] = Field(
        "secret",
        description="How internal calls are checked: oidc (Google ID token, production) or "
        "secret (INTERNAL_SECRET, local runs and tests).",
    )
    internal_secret: str = Field(
        LOCAL_INTERNAL_SECRET, description="Shared secret of internal calls (local only)."
    )
    internal_oidc_issuer: str = Field(
        "https://accounts.google.com", description="Issuer of Google OIDC tokens."
    )
    internal_oidc_jwks_url: str = Field(
        "https://www.googleapis.com/oauth2/v3/certs", description="Google's token-signing keys."
    )
    inline_queue_size: int = Field(1000, ge=1, description="Bound of the inline task queue.")
    task_max_attempts: int = Field(
        5, ge=1, le=100, description="Attempts per task; keep equal to terraform/tasks.tf."
    )
    dispatch_page_size: int = Field(
        500, ge=1, le=500, description="Subscriptions read and advanced per dispatch page."
    )
    dispatch_fan_out_above: int = Field(
        20_000,
        ge=0,
        description="Above this many due subscriptions a tick fans out as slice tasks; 0: never.",
    )
    dispatch_slice_size: int = Field(
        5_000, ge=1, description="Due subscriptions per slice task of a fanned-out tick."
    )
    local_tick_s: float = Field(60.0, gt=0, description="make run calls the dispatcher this often.")
    task_record_ttl_days: int = Field(30, ge=1, description="Task records expire after this.")

    email_backend: Literal["outbox", "sendgrid"] = Field(
        "outbox", description="outbox: .eml files under OUTBOX_DIR; sendgrid: SendGrid v3."
    )
    email_from: str = Field("digest@advocacy-research.example", description="Sender address.")
    email_from_name: str = Field("Advocacy Research", description="Sender display name.")
    sendgrid_api_key: str = Field("", description="SendGrid API key (secret).")
    sendgrid_host: str = Field(
        "https://api.sendgrid.com", description="SendGrid API base URL (tests: a local fake)."
    )
    sendgrid_timeout_s: float = Field(10.0, gt=0, le=60, description="SendGrid call timeout.")
    outbox_dir: str = Field(".local/outbox", description="Where the outbox writes .eml files.")
    public_base_url: str = Field(
        "", description="Externally visible base URL, used in email links (default: local)."
    )
    pause_link_secret: str = Field(
        LOCAL_PAUSE_LINK_SECRET, description="HMAC key of one-click pause links (secret)."
    )
    pause_link_ttl_days: int = Field(60, ge=1, le=365, description="Pause links expire after.")
    consent_resend_hours: int = Field(
        168,
        ge=1,
        le=8760,
        description="A third-party address gets at most one confirmation email per consumer "
        "this often; its confirm link is valid as long.",
    )
    sendgrid_webhook_public_key: str = Field(
        "",
        description="Public key (base64 DER, ECDSA P-256) of SendGrid's signed Event Webhook; "
        "empty: /webhooks/sendgrid refuses every request.",
    )

    embeddings_backend: Literal["offline", "vertex"] = Field(
        "offline",
        description="offline: all-MiniLM-L6-v2 in process (local runs, tests); vertex: Vertex AI.",
    )
    embeddings_model: str = Field("text-embedding-005", description="Vertex AI embedding model.")
    embeddings_dimension: int = Field(
        768, ge=1, le=3072, description="Vector size asked of Vertex AI (outputDimensionality)."
    )
    embeddings_location: str = Field("europe-west1", description="Vertex AI region.")
    embeddings_base_url: str = Field(
        "", description="Vertex AI base URL (default: https://LOCATION-aiplatform.googleapis.com)."
    )
    embeddings_auth: Literal["google", "none"] = Field(
        "google", description="google: an ADC access token; none: no credentials (tests)."
    )
    embeddings_timeout_s: float = Field(10.0, gt=0, le=120, description="Per-attempt timeout.")
    embeddings_deadline_s: float = Field(
        20.0, gt=0, le=540, description="One embedding call, all attempts and waits included."
    )

    feed_catalog_path: str = Field(
        "",
        description="JSON file of feed URLs per topic replacing those of data/topics.toml "
        "(make run: the local fixture feeds); empty: the catalog's own feeds.",
    )
    news_search_url: str = Field(
        "https://news.google.com/rss/search?q={query}&hl=en-US&gl=US&ceid=US:en",
        description="News-search feed URL template; {query} is a URL-encoded keyword.",
    )
    feed_timeout_s: float = Field(8.0, gt=0, le=60, description="Deadline of one feed fetch.")
    feed_max_bytes: int = Field(2_000_000, gt=0, description="Larger feeds are cut off.")
    feed_max_age_days: int = Field(30, ge=1, description="Older feed items are ignored.")
    feed_cache_entries: int = Field(256, ge=0, description="Feeds kept for conditional GET.")
    digest_max_items: int = Field(10, ge=1, le=50, description="Items per digest email.")
    local_feeds: bool = Field(
        True,
        description="make run serves the fixture feeds and points the catalog there "
        "(0: the real feeds of the topic catalog, network needed).",
    )
    feed_port: int = Field(8683, description="Port of the local fixture feed server.")

    osint_subject_daily_limit: int = Field(
        20,
        ge=0,
        description="Person profiles of one subject per UTC day, across every consumer; more "
        "get 429 (0: none).",
    )
    osint_audit_retention_days: int = Field(
        730, ge=1, le=3650, description="OSINT audit entries expire after this."
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
        # that would use it refuses to (common/webhooks.py, functions/tracking/pause_token.py,
        # common/email.py). One that is mounted must be real.
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
