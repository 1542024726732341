"""The real functions-framework server of the single-port ``api`` entry point, started as a
process of its own: for the end-to-end tests and the benchmarks that measure over HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import IO

from devtools.emulator import dies_with_parent

ROOT = Path(__file__).resolve().parent.parent


def start_api(env: dict[str, str], port: int, log: IO[bytes]) -> subprocess.Popen[bytes]:
    """``functions-framework --target=api`` on 127.0.0.1:``port``, its output to ``log``."""
    return subprocess.Popen(
        dies_with_parent(  # the caller may run gRPC threads: no preexec_fn (see the helper)
            [
                str(Path(sys.executable).parent / "functions-framework"),
                "--target=api",
                f"--source={ROOT / 'main.py'}",
                "--host=127.0.0.1",
                f"--port={port}",
            ]
        ),
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
