"""Settings: local defaults work with no configuration; production refuses them."""

import pytest
from pydantic import ValidationError

from common.config import LOCAL_WEBHOOK_SECRET, Settings

PROD = {
    "environment": "prod",
    "google_cloud_project": "advocacy-prod",
    "idp_webhook_secret": "whsec_cmVhbC1zZWNyZXQtZm9yLXByb2R1Y3Rpb24tMTIzNDU2",
    "oidc_issuer": "https://clerk.example.org",
    "oidc_audience": "portal-client-id",
    "internal_auth": "oidc",
    "tasks_backend": "cloudtasks",
    "task_worker_url": "https://ars-task-worker-123.europe-west1.run.app",
    "tracking_dispatch_url": "https://ars-tracking-dispatch-123.europe-west1.run.app",
    "tasks_service_account": "ars-invoker@advocacy-prod.iam.gserviceaccount.com",
    "email_backend": "sendgrid",
    "sendgrid_api_key": "SG.real-key",
    "pause_link_secret": "a-long-random-pause-link-secret-of-48-characters!",
    "public_base_url": "https://api.advocacy.example.org",
    "embeddings_backend": "vertex",
    "sendgrid_webhook_public_key": (
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4AKjeJYE4y4z5RuqzoZM6nQ9"
        "CNDgmvpq7jC23hSK4HgdgRob9Y3m3mKUWOMI0d1HYM+Cmd8qpyrvzF9B7aQCag=="
    ),
}


def test_local_defaults_point_at_the_local_emulator_and_idp(monkeypatch):
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    settings = Settings(environment="local", emulator_port=9999, jwks_port=9998)
    assert settings.firestore_emulator_host == "127.0.0.1:9999"
    assert settings.oidc_jwks_url == "http://127.0.0.1:9998/.well-known/jwks.json"


def test_production_with_real_values_starts(monkeypatch):
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    settings = Settings(**PROD)
    assert settings.firestore_emulator_host is None
    assert settings.oidc_jwks_url == "https://clerk.example.org/.well-known/jwks.json"


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"idp_webhook_secret": LOCAL_WEBHOOK_SECRET}, "IDP_WEBHOOK_SECRET"),
        ({"oidc_issuer": ""}, "OIDC_ISSUER"),
        ({"oidc_audience": "ars-portal-local"}, "OIDC_AUDIENCE"),
        ({"google_cloud_project": "demo-advocacy-research"}, "GOOGLE_CLOUD_PROJECT"),
        ({"firestore_emulator_host": "127.0.0.1:8681"}, "FIRESTORE_EMULATOR_HOST"),
        ({"idp_webhook_secret": "whsec_"}, "IDP_WEBHOOK_SECRET"),
        ({"idp_webhook_secret": "not-a-secret"}, "IDP_WEBHOOK_SECRET"),
        ({"idp_webhook_secret": " "}, "IDP_WEBHOOK_SECRET"),
        ({"internal_auth": "secret"}, "INTERNAL_AUTH"),
        ({"tasks_backend": "inline"}, "TASKS_BACKEND"),
        ({"tasks_emulator_host": "127.0.0.1:9022"}, "TASKS_EMULATOR_HOST"),
        ({"tasks_service_account": ""}, "TASKS_SERVICE_ACCOUNT"),
        ({"email_backend": "outbox"}, "EMAIL_BACKEND"),
        ({"sendgrid_api_key": ""}, "SENDGRID_API_KEY"),
        ({"pause_link_secret": "local-pause-link-secret-not-for-production"}, "PAUSE_LINK_SECRET"),
        ({"pause_link_secret": "short"}, "PAUSE_LINK_SECRET"),
        ({"sendgrid_webhook_public_key": ""}, "SENDGRID_WEBHOOK_PUBLIC_KEY"),
        ({"embeddings_backend": "offline"}, "EMBEDDINGS_BACKEND"),
        ({"sendgrid_webhook_public_key": "bm90IGEga2V5"}, "SENDGRID_WEBHOOK_PUBLIC_KEY"),
    ],
)
def test_production_refuses_local_defaults(monkeypatch, override, named):
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    with pytest.raises(ValidationError, match=named):
        Settings(**{**PROD, **override})


def test_production_leaves_an_unset_public_base_url_empty(monkeypatch):
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    assert Settings(**{**PROD, "public_base_url": ""}).public_base_url == ""
    assert Settings(environment="test", port=9000).public_base_url == "http://127.0.0.1:9000"
