"""Health check and API description. No Flask here."""

from __future__ import annotations

from typing import Any

from common.config import get_settings
from common.firestore import get_db


def check_health() -> dict[str, Any]:
    """Ok when the database answers; a failing database raises a backend error (502)."""
    get_db().collection("_health").document("ping").get()
    return {
        "status": "ok",
        "version": get_settings().service_version,
        "checks": {"firestore": "ok"},
    }


def openapi_document() -> dict[str, Any]:
    from common.openapi import build_openapi
    from functions.registry import all_routes

    return build_openapi(all_routes(), version=get_settings().service_version)
