"""Prices per request, in integer micro-dollars (never floats): the one price table.

Routes name their operation (``Route.price``); a request is billed only when it delivered what
it is priced for, exactly once (decision 0039: ``Call.billed``, ``Streamed.delivered``, or a
job's finishing transaction). Tracking subscription management, usage reads and the portal
are free and not metered. ``PRICE_OVERRIDES`` (JSON, e.g. ``{"content.generate": 300000}``)
changes the defaults.
"""

from __future__ import annotations

from common.config import get_settings

MICROS_PER_USD = 1_000_000

DEFAULT_PRICES: dict[str, int] = {
    "chat.message": 250_000,
    "chat.intent": 100_000,
    "chat.summarize": 250_000,
    "chat.extract_memory": 100_000,
    "legal.guidance": 1_000_000,
    "research.topics": 250_000,
    "tracking.research_run": 250_000,
    "search.query": 50_000,
    "knowledge.search": 50_000,
    "content.generate": 250_000,
    "osint.personal_profile": 1_000_000,
    "osint.company_profile": 1_000_000,
}


def prices() -> dict[str, int]:
    return {**DEFAULT_PRICES, **get_settings().price_overrides}


def price_of(operation: str) -> int:
    table = prices()
    if operation not in table:
        raise KeyError(f"no price for operation {operation!r}")
    return table[operation]


def format_usd(micros: int) -> str:
    """$0.25, $1.00, $0.000125: cents always, more digits only when they matter."""
    sign = "-" if micros < 0 else ""
    dollars, rest = divmod(abs(micros), MICROS_PER_USD)
    digits = f"{rest:06d}".rstrip("0").ljust(2, "0")
    return f"{sign}${dollars}.{digits}"
