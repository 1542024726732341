"""`make vendor`: re-fetch the vendored front-end libraries of static/vendor/ and check them.

For each package of static/vendor/manifest.json: ``npm pack NAME@VERSION`` (the npm registry),
check the tarball's integrity hash against the manifest, copy the listed files into
static/vendor/NAME/ and check each file's sha256. ``--check`` only checks the committed files
against the manifest (no npm, no network): what the tests do. Never deployed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "static" / "vendor"
MANIFEST = VENDOR / "manifest.json"


def manifest() -> list[dict[str, Any]]:
    return json.loads(MANIFEST.read_text())["packages"]


def sha256(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


def sri(data: bytes) -> str:
    """npm's integrity string (sha512, base64) of a tarball."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def check() -> list[str]:
    """Problems with the committed files (empty: all match the manifest)."""
    problems = []
    for package in manifest():
        for name, digest in package["files"].items():
            path = VENDOR / package["name"] / name
            if not path.is_file():
                problems.append(f"missing: {path.relative_to(ROOT)}")
            elif sha256(path.read_bytes()) != digest:
                problems.append(f"hash mismatch: {path.relative_to(ROOT)}")
    return problems


def fetch() -> None:
    for package in manifest():
        spec = f"{package['name']}@{package['version']}"
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                ["npm", "pack", spec, "--json", "--pack-destination", tmp],
                capture_output=True,
                text=True,
                check=True,
            )
            tarball = Path(tmp) / json.loads(done.stdout)[0]["filename"]
            if sri(tarball.read_bytes()) != package["integrity"]:
                raise SystemExit(f"{spec}: the tarball's integrity does not match the manifest")
            target = VENDOR / package["name"]
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            with tarfile.open(tarball) as archive:
                for name in package["files"]:
                    member = archive.extractfile(f"package/{name}")
                    if member is None:
                        raise SystemExit(f"{spec}: no file {name}")
                    (target / name).write_bytes(member.read())
        print(f"fetched {spec}")


def main(argv: list[str]) -> int:
    if "--check" not in argv:
        fetch()
    problems = check()
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print("static/vendor matches static/vendor/manifest.json")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
