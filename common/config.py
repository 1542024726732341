"""The one typed Settings object, read from environment variables once per process."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from common import __version__

Environment = Literal["local", "test", "prod"]


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
    max_subscriptions_per_consumer: int = Field(25, ge=1, description="More gives 409.")

    demo_email: str = Field("demo@example.org", description="Consumer seeded by make run.")

    @model_validator(mode="after")
    def _backends_fit_environment(self) -> Settings:
        if self.environment == "prod" and self.firestore_emulator_host:
            raise ValueError("FIRESTORE_EMULATOR_HOST must not be set when ENVIRONMENT=prod")
        if self.environment != "prod" and not self.firestore_emulator_host:
            # Outside production the database is always the emulator, so the admin CLI run
            # from another shell reaches the one `make run` started with no extra setup.
            self.firestore_emulator_host = f"127.0.0.1:{self.emulator_port}"
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings are read once per process; tests call ``get_settings.cache_clear()``."""
    return Settings()
