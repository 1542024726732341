"""Cold start figures, printed as JSON.

- ``import_main_ms``: cumulative import time of ``main`` (``python -X importtime``), median of
  several fresh interpreters. Budget: 400 ms.
- ``entry_points``: per entry point, the import time of ``main`` plus everything its first
  request imports (its group's routes and the Firestore client), and the number of modules.
- ``first_health_200_ms``: from spawning ``functions-framework --target=health`` to the first
  200 of ``GET /health`` (the emulator already running).

Run: ``.venv/bin/python bench/coldstart.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.emulator import Emulator, free_port  # noqa: E402

FIRST_REQUEST = {
    "health": "from registry import app; app('system'); import google.cloud.firestore",
    "tracking": "from registry import app; app('tracking'); import google.cloud.firestore",
    "api": "from registry import app; app('all'); import google.cloud.firestore",
    # the MCP server's first tools/list imports every route table that declares tools
    "mcp": "from registry import app, all_routes; app('mcp'); all_routes(); "
    "import google.cloud.firestore",
}


def import_profile(code: str) -> tuple[float, int]:
    """Total import time in ms (sum of top-level cumulative times) and the module count."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    total_us, modules = 0, 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative_us, name = line.split("|")
        modules += 1
        if not name.startswith("  "):  # top level: one space; nested imports are indented
            total_us += int(cumulative_us)
    return total_us / 1000, modules


def first_health(emulator: Emulator) -> float:
    port = free_port()
    env = {
        **os.environ,
        "ENVIRONMENT": "local",
        "FIRESTORE_EMULATOR_HOST": emulator.address,
        "GOOGLE_CLOUD_PROJECT": emulator.project,
    }
    started = time.perf_counter()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "functions-framework"),
            "--target=health",
            f"--source={ROOT / 'main.py'}",
            "--host=127.0.0.1",
            f"--port={port}",
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    return (time.perf_counter() - started) * 1000
            except httpx.TransportError:
                time.sleep(0.01)
            if time.perf_counter() - started > 60:
                raise RuntimeError("no 200 from /health within 60 s")
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    main_ms = [import_profile("import main")[0] for _ in range(runs)]
    entry_points = {}
    for name, code in FIRST_REQUEST.items():
        profiles = [import_profile(f"import main; {code}") for _ in range(runs)]
        entry_points[name] = {
            "first_request_imports_ms": round(statistics.median(p[0] for p in profiles), 1),
            "modules": profiles[0][1],
        }
    emulator = Emulator("127.0.0.1", free_port(), "demo-coldstart").start()
    try:
        health_ms = [first_health(emulator) for _ in range(max(3, runs // 2))]
    finally:
        emulator.stop()
    print(
        json.dumps(
            {
                "import_main_ms": {
                    "median": round(statistics.median(main_ms), 1),
                    "max": round(max(main_ms), 1),
                    "budget": 400,
                    "runs": runs,
                },
                "entry_points": entry_points,
                "first_health_200_ms": {
                    "median": round(statistics.median(health_ms), 1),
                    "runs": [round(ms, 1) for ms in health_ms],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
