"""Start, wait for, wipe and stop the official Firestore emulator (shipped with the Cloud SDK).

Used by ``make run``, the test suite and the benchmarks. The emulator is started with Java
directly: one process, a fast start and a clean stop.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

JAR_NAME = "cloud-firestore-emulator.jar"
MAIN_CLASS = "com.google.cloud.datastore.emulator.firestore.CloudFirestore"
_KNOWN_SDK_ROOTS = (
    "/usr/lib/google-cloud-sdk",
    "/usr/share/google-cloud-sdk",
    "/opt/google-cloud-sdk",
    "~/google-cloud-sdk",
)


class EmulatorError(RuntimeError):
    pass


def find_jar() -> Path:
    """The emulator jar: $FIRESTORE_EMULATOR_JAR, a known SDK root, or the root gcloud reports."""
    if explicit := os.environ.get("FIRESTORE_EMULATOR_JAR"):
        return Path(explicit)
    for root in _sdk_roots():
        jar = Path(root) / "platform" / "cloud-firestore-emulator" / JAR_NAME
        if root and jar.exists():
            return jar
    raise EmulatorError(
        "Firestore emulator not found. Install it with "
        "'gcloud components install cloud-firestore-emulator' (or the Debian package "
        "google-cloud-cli-firestore-emulator), or set FIRESTORE_EMULATOR_JAR."
    )


def _sdk_roots() -> Iterator[str]:
    yield from (os.path.expanduser(root) for root in _KNOWN_SDK_ROOTS)
    if shutil.which("gcloud"):  # slow (about a second), so asked last
        yield _gcloud_sdk_root()


def _gcloud_sdk_root() -> str:
    result = subprocess.run(
        ["gcloud", "info", "--format=value(installation.sdk_root)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result.stdout.strip()


def die_with_parent() -> None:
    """Run in a child before exec: the kernel sends it SIGTERM when its parent dies, so even a
    killed test run or supervisor leaves no emulator or server behind (Linux)."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def dies_with_parent(command: list[str]) -> list[str]:
    """``command`` started through ``setpriv --pdeathsig``: the same guarantee as
    ``die_with_parent`` without running Python in the forked child, which is unsafe once the
    parent runs threads (the gRPC clients' threads, in a test process)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--", *command] if setpriv else command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, seconds: float) -> bool:
    """Poll until something accepts connections on 127.0.0.1:port; False if nothing does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.1)
    return False


@dataclass
class Emulator:
    host: str
    port: int
    project: str
    process: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"http://{self.address}"

    def start(
        self,
        *,
        import_from: Path | None = None,
        log_path: Path | None = None,
        timeout_s: float = 60.0,
        loading_timeout_s: float = 900.0,
        say: Callable[[str], None] | None = None,
    ) -> Emulator:
        if _answers(self.base_url):
            raise EmulatorError(f"Port {self.port} is already in use; set EMULATOR_PORT.")
        args = [
            "java",
            "-Duser.language=en",
            "-Xss2m",
            # The emulator holds every document in its heap, and an export builds another copy:
            # at 100,000 records the JVM's default (a quarter of the memory) ran out during the
            # export (issue 26), and `make run` would have stopped without saving its data.
            "-XX:MaxRAMPercentage=60",
            "-cp",
            str(find_jar()),
            MAIN_CLASS,
            "start",
            f"--host={self.host}",
            f"--port={self.port}",
            f"--project_id={self.project}",
        ]
        if import_from is not None:
            args.append(f"--import-data={import_from}")
        out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
        # Own process group, so a Ctrl-C in the terminal reaches only our supervisor, which
        # then stops the emulator itself (after exporting its data).
        self.process = subprocess.Popen(
            args,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EmulatorError(f"The emulator exited with code {self.process.returncode}.")
            if _answers(self.base_url):
                if import_from is not None:
                    self._wait_for_data(import_from, loading_timeout_s, say)
                    self._import_named(import_from)
                return self
            time.sleep(0.1)
        self.stop()
        raise EmulatorError(f"The emulator did not answer within {timeout_s:.0f} s.")

    def _wait_for_data(
        self, source: Path, timeout_s: float, say: Callable[[str], None] | None
    ) -> None:
        """The emulator answers HTTP before it has loaded an export (issue 26: 119 MB after
        10,000 records took longer than a Firestore call's 5 s deadline, and `make run`
        failed): read one document, with a long timeout, until a read answers (404: there is
        no such document, and the data is loaded), saying every few seconds that it loads."""
        documents = f"{self.base_url}/v1/projects/{self.project}/databases/(default)/documents"
        url = f"{documents}/_ready/_ready"
        started = time.monotonic()
        folder = source.parent if source.is_file() else source  # the metadata file's export
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6
        told = 0.0
        while True:
            waited = time.monotonic() - started
            if waited > timeout_s:
                self.stop()
                raise EmulatorError(
                    f"The emulator had not loaded its data after {timeout_s:.0f} s."
                )
            if self.process is not None and self.process.poll() is not None:
                raise EmulatorError(f"The emulator exited with code {self.process.returncode}.")
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    response.read()
                return
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    return
            except (urllib.error.URLError, OSError):
                pass
            if say is not None and waited - told >= 5:
                say(f"The emulator is loading its data ({size:.0f} MB), {waited:.0f} s so far ...")
                told = waited
            time.sleep(0.5)

    def _import_named(self, source: Path) -> None:
        """The ``--import-data`` flag loads the default database only: the named ones
        (``databases()``), exported beside it by ``export``, are loaded through the API."""
        folder = source.parent if source.is_file() else source
        for name in databases()[1:]:
            found = latest_export(folder / NAMED / name)
            if found is not None:
                self._post(":import", name, found, 600.0)

    def wipe(self, timeout_s: float = 5.0) -> None:
        """Delete every document of the service's databases (``databases()``)."""
        for name in databases():
            self._wipe(name, timeout_s)

    def _wipe(self, database: str, timeout_s: float) -> None:
        """The emulator answers 409 while a transaction it still holds open (one a test
        abandoned) locks a document: the delete is asked again until the lock expires or
        ``timeout_s`` passes."""
        url = f"{self.base_url}/emulator/v1/projects/{self.project}/databases/{database}/documents"
        deadline = time.monotonic() + timeout_s
        while True:
            request = urllib.request.Request(url, method="DELETE")
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    response.read()
                return
            except urllib.error.HTTPError as exc:
                if exc.code != 409 or time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    def export(self, directory: Path, timeout_s: float = 600.0) -> Path | None:
        """Export all data to ``directory``; returns the metadata file to import it again
        (``start(import_from=...)``). The default database's export holds the named ones'
        under ``NAMED/<database>/``. ``timeout_s``: 100,000 records are several hundred MB
        to write (issue 26)."""
        main, *named = databases()
        directory.mkdir(parents=True, exist_ok=True)
        self._post(":export", main, directory.resolve(), timeout_s)
        saved = latest_export(directory)
        if saved is not None:
            for name in named:
                (saved.parent / NAMED / name).mkdir(parents=True, exist_ok=True)
                self._post(":export", name, (saved.parent / NAMED / name).resolve(), timeout_s)
        return saved

    def _post(self, verb: str, database: str, path: Path, timeout_s: float) -> None:
        body = json.dumps(
            {
                "database": f"projects/{self.project}/databases/{database}",
                "export_directory": str(path),
            }
        ).encode()
        request = urllib.request.Request(
            f"{self.base_url}/emulator/v1/projects/{self.project}{verb}",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            response.read()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        except ProcessLookupError:
            pass


NAMED = "databases"  # where an export keeps the named databases' exports


def databases() -> list[str]:
    """The service's Firestore databases, the main one first (``common.adapters.firestore``)."""
    from common.adapters.firestore import MAIN, OSINT, RECIPIENTS, database_id

    return [database_id(kind) for kind in (MAIN, RECIPIENTS, OSINT)]


def latest_export(directory: Path) -> Path | None:
    found = sorted(
        glob.glob(str(directory / "*" / "*.overall_export_metadata")), key=os.path.getmtime
    )
    return Path(found[-1]) if found else None


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=0.5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False
