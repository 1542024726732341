"""Per-consumer rate limiting: a fixed window counted with one atomic increment.

Each request adds 1 to ``ratelimit_windows/{consumer}_{window start}`` with a server-side
``Increment`` transform and reads the value that increment produced from the commit's result:
one round trip, no read, no transaction. Concurrent requests each get a distinct count, so at
most ``limit`` of them are admitted in a window, however many arrive at once. Rejected attempts
count too (a client hammering through a 429 stays limited). Window documents carry
``expires_at`` for Firestore's TTL policy. If the store cannot be reached the request fails
with 502 (fail closed): the limit protects paid upstreams.

Headers follow the IETF httpapi ratelimit-headers draft:
``RateLimit-Policy: "default";q=60;w=60`` and ``RateLimit: "default";r=59;t=42``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from common.config import get_settings
from common.errors import RateLimited
from common.firestore import RATELIMIT_WINDOWS, get_db


@dataclass(frozen=True)
class Decision:
    limit: int
    window_s: int
    count: int
    reset_s: int

    @property
    def admitted(self) -> bool:
        return self.count <= self.limit

    def headers(self) -> dict[str, str]:
        remaining = max(0, self.limit - self.count)
        headers = {
            "RateLimit-Policy": f'"default";q={self.limit};w={self.window_s}',
            "RateLimit": f'"default";r={remaining};t={self.reset_s}',
        }
        if not self.admitted:
            headers["Retry-After"] = str(self.reset_s)
        return headers


def policy_for(principal: Any) -> tuple[int, int]:
    """(requests, window_s): the consumer's own override, else its plan's, else the default."""
    settings = get_settings()
    if principal.rate_limit:
        return principal.rate_limit
    plan = settings.rate_limit_plans.get(principal.plan)
    return plan or (settings.rate_limit_requests, settings.rate_limit_window_s)


def admit(principal: Any, now: float | None = None) -> Decision:
    """Count this request in the consumer's current window; raise RateLimited past the limit."""
    from google.cloud.firestore import Increment

    limit, window_s = policy_for(principal)
    now = time.time() if now is None else now
    start = int(now // window_s) * window_s
    ref = get_db().collection(RATELIMIT_WINDOWS).document(f"{principal.consumer_id}_{start}")
    batch = get_db().batch()
    expires = datetime.fromtimestamp(start + 2 * window_s, UTC) + timedelta(minutes=5)
    batch.set(ref, {"count": Increment(1), "expires_at": expires}, merge=True)
    count = int(_transform_result(batch.commit()[0]))
    decision = Decision(limit, window_s, count, max(1, math.ceil(start + window_s - now)))
    if not decision.admitted:
        raise RateLimited(
            f"At most {limit} requests per {window_s} s; retry in {decision.reset_s} s.",
            headers=decision.headers(),
        )
    return decision


def _transform_result(write_result: Any) -> int | float:
    value = write_result.transform_results[0]
    return value.integer_value or value.double_value
