"""The failed-authentication limiter's cost per failure (decision 0050), printed as JSON.

For each size, the limiter's map is filled to ``AUTH_FAILURE_MAX_ADDRESSES`` = size with
addresses that still have failures left and a tenth that are closed, then timed over 20,000
more failures from new addresses, each of which evicts one (the worst case: a flood from
many addresses). Before decision 0050 each eviction scanned the map under the lock: 9 ms per
failure at 10,000 addresses. In process, no server: ``.venv/bin/python bench/edgelimit.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FAILURES = 20_000


def per_failure_us(size: int) -> float:
    from common.config import get_settings
    from common.http import edgelimit

    os.environ["AUTH_FAILURE_MAX_ADDRESSES"] = str(size)
    os.environ["AUTH_FAILURES_PER_ADDRESS"] = "10"
    get_settings.cache_clear()
    edgelimit.reset()
    for n in range(size):
        for _ in range(10 if n % 10 == 0 else 1):  # a tenth closed
            edgelimit.failed(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}", now=0.0)
    started = time.perf_counter()
    for n in range(FAILURES):
        edgelimit.failed(f"2001:db8:{n:x}::1", now=1.0)
    return (time.perf_counter() - started) / FAILURES * 1e6


def main() -> None:
    os.environ.setdefault("ENVIRONMENT", "test")
    sizes = (1_000, 10_000, 100_000)
    print(json.dumps({f"{s}_addresses_us_per_failure": round(per_failure_us(s), 2) for s in sizes}))


if __name__ == "__main__":
    main()
