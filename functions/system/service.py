"""Health check and API description. No Flask here."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from common.config import get_settings
from common.firestore import get_db

if TYPE_CHECKING:
    from common.http import Route

HEALTH_CACHE_S = 5.0
_last_ok = float("-inf")


def check_health() -> dict[str, Any]:
    """Ok when the database answers; a failing database raises a backend error (502).

    A success is remembered for HEALTH_CACHE_S, so an unauthenticated caller polling /health
    costs at most one database read per instance every few seconds."""
    global _last_ok
    if time.monotonic() - _last_ok >= HEALTH_CACHE_S:
        get_db().collection("_health").document("ping").get()
        _last_ok = time.monotonic()
    return {
        "status": "ok",
        "version": get_settings().service_version,
        "checks": {"firestore": "ok"},
    }


def openapi_document(routes: Sequence[Route]) -> dict[str, Any]:
    """The OpenAPI document of ``routes`` (every route of the API, from the registry)."""
    from common.http.openapi import build_openapi

    return build_openapi(routes, version=get_settings().service_version)
