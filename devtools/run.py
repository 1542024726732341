"""`make run`: the whole service on this machine, with no cloud account, key or network.

Starts the official Firestore emulator (data kept under .local/firestore between runs), seeds the
demo consumer, prints a demo API key and serves every route with
``functions-framework --target=api`` on 127.0.0.1:$PORT. A ticker calls the tracking dispatcher
every LOCAL_TICK_S seconds (Cloud Scheduler's job in production); tasks run on the server's
inline queue and emails land as .eml files in .local/outbox/; the server's output goes to
.local/server.log. With LOCAL_FEEDS=1 the demo fixture feeds are served on FEED_PORT and the
feed catalog points there. Ctrl-C or SIGTERM -- to this process or to the `make` above it --
stops the server and the emulator; nothing is left running.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from common.config import RUN_ENV_VARIABLES, run_env_path
from devtools import localidp
from devtools.emulator import Emulator, EmulatorError, die_with_parent, latest_export

ROOT = Path(__file__).resolve().parent.parent
LOCAL = Path(os.environ.get("LOCAL_DIR", ROOT / ".local"))
DATA = LOCAL / "firestore"
THREADS = 64


def main() -> int:
    os.environ.setdefault("ENVIRONMENT", "local")
    from common.config import get_settings

    settings = get_settings()
    if settings.environment != "local":
        print("make run is for ENVIRONMENT=local only.", file=sys.stderr)
        return 2
    LOCAL.mkdir(parents=True, exist_ok=True)
    emulator = Emulator("127.0.0.1", settings.emulator_port, settings.google_cloud_project)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: stop.set())
    parent = os.getppid()
    server: subprocess.Popen | None = None
    jwks = None
    feeds = None
    try:
        # The local identity provider: JWKS, sign-in form and token endpoint (decision 0030).
        jwks = localidp.serve_provider(
            localidp.load_or_create_key(),
            settings.jwks_port,
            issuer=settings.oidc_issuer,
            client_id=settings.oidc_client_id,
            webhook_url=f"http://127.0.0.1:{settings.port}/webhooks/idp",
            webhook_secret=settings.idp_webhook_secret.split()[0],
            environment=settings.environment,
        )
        print(f"Starting the Firestore emulator on {emulator.address} ...", flush=True)
        emulator.start(
            import_from=latest_export(DATA),
            log_path=LOCAL / "emulator.log",
            say=lambda line: print(line, flush=True),
        )
        env = {
            **os.environ,
            "ENVIRONMENT": "local",
            "FIRESTORE_EMULATOR_HOST": emulator.address,
            "GOOGLE_CLOUD_PROJECT": settings.google_cloud_project,
            "OUTBOX_DIR": str(LOCAL / "outbox"),
            # functions-framework's gunicorn threads (its default is 4 per CPU): a client that
            # stalls its body holds one for BODY_READ_TIMEOUT_S, so keep plenty (decision 0015).
            "THREADS": os.environ.get("THREADS", str(THREADS)),
        }
        if settings.local_feeds:
            feeds = _serve_fixture_feeds(settings.feed_port, env)
        demo_key = _run_module(["admin", "seed-demo"], env)
        if demo_key is None:
            return 1
        print(
            "Loading the sample search data and knowledge corpus (the first run embeds about "
            "500 texts: a minute or so; later runs skip what is unchanged) ...",
            flush=True,
        )
        loaded = _run_module(["devtools.sample_data"], env)
        if loaded is None:
            return 1
        print(f"Sample data: {loaded}", flush=True)
        server_log = (LOCAL / "server.log").open("wb")  # a new log each run
        server = subprocess.Popen(
            [
                shutil.which("functions-framework", path=str(Path(sys.executable).parent))
                or "functions-framework",
                "--target=api",
                "--source",
                str(ROOT / "main.py"),
                "--host=127.0.0.1",
                f"--port={settings.port}",
            ],
            env=env,
            cwd=ROOT,
            stdout=server_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        server_log.close()  # the server writes through its own descriptor
        if not _wait_until_serving(settings.port, server):
            print(
                f"The server did not start; see {LOCAL / 'server.log'}.",
                file=sys.stderr,
            )
            return 1
        _write_run_env(env, settings)
        key_file = LOCAL / "demo_key"
        key_file.touch(mode=0o600)
        key_file.chmod(0o600)  # also when an older file exists
        key_file.write_text(demo_key + "\n")
        print(f"Demo API key: {demo_key}", flush=True)
        print(
            f"Serving every route on http://127.0.0.1:{settings.port} "
            "(Ctrl-C stops the server and the emulator).",
            flush=True,
        )
        print(
            f"Developer portal: http://127.0.0.1:{settings.port}/portal/ "
            "(sign in with any email address at the local identity provider).",
            flush=True,
        )
        print(f"Server log: {LOCAL / 'server.log'}", flush=True)
        ticker = threading.Thread(
            target=_tick_forever, args=(settings.port, settings.local_tick_s, stop), daemon=True
        )
        ticker.start()
        while not stop.wait(0.5):
            if server.poll() is not None:
                print(
                    f"The server exited with code {server.returncode}; see {LOCAL / 'server.log'}.",
                    file=sys.stderr,
                )
                return 1
            if os.getppid() != parent:  # `make` was killed: stop with it
                break
        return 0
    except EmulatorError as exc:
        print(f"Cannot start the Firestore emulator: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"Cannot start: {exc} (is another `make run` using its ports?)", file=sys.stderr)
        return 1
    finally:
        run_env_path().unlink(missing_ok=True)
        if jwks is not None:
            jwks.shutdown()
        if feeds is not None:
            feeds.shutdown()
        _shutdown(server, emulator)


def _wait_until_serving(port: int, server: subprocess.Popen, timeout_s: float = 60.0) -> bool:
    """Whether the server answers ``/health`` (it imports the service first, a few seconds)
    with anything but 503 ``warming`` (it loads the encoder and the screen before it says it
    is ready; decision 0065): the demo key and "Serving" are printed only then, so a burst
    sent on seeing them is served like one a minute later. False when the server exits or
    is not ready within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.poll() is None:
        try:
            answer = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2.0)
        except httpx.TransportError:
            time.sleep(0.2)
            continue
        if answer.status_code != 503 or answer.json().get("code") != "warming":
            return True  # it serves (/health says itself how the database is)
        time.sleep(0.2)
    return False


def _write_run_env(env: dict[str, str], settings: Any) -> None:
    """What this run started, for the command-line tools in another shell
    (``common.config.use_local_run``); removed when the run stops."""
    started = {
        **{name: env[name] for name in RUN_ENV_VARIABLES if env.get(name)},
        "PORT": str(settings.port),
        "EMULATOR_PORT": str(settings.emulator_port),
        "JWKS_PORT": str(settings.jwks_port),
        "FEED_PORT": str(settings.feed_port),
    }
    path = run_env_path()
    path.write_text("".join(f"{name}={value}\n" for name, value in sorted(started.items())))
    path.chmod(0o600)


def _run_module(args: list[str], env: dict[str, str]) -> str | None:
    """``python -m ARGS`` with the server's environment: its stdout, or None (its stderr shown)
    when it failed."""
    done = subprocess.run(
        [sys.executable, "-m", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    return done.stdout.strip()


def _serve_fixture_feeds(port: int, env: dict[str, str]) -> Any:
    """LOCAL_FEEDS=1: serve the demo fixture feeds and point the catalog and search there."""
    from devtools import feedserver

    server = feedserver.serve(port)
    env["FEED_CATALOG_PATH"] = str(feedserver.write_catalog(server.url, LOCAL / "feeds.json"))
    env["NEWS_SEARCH_URL"] = feedserver.search_template(server.url)
    print(f"Serving the fixture feeds on {server.url}", flush=True)
    return server


def _tick_forever(port: int, every_s: float, stop: threading.Event) -> None:
    """What Cloud Scheduler does in production: call the dispatcher on a fixed tick."""
    import httpx

    from common.adapters.tasks import bearer_for_local

    url = f"http://127.0.0.1:{port}/internal/dispatch"
    headers = {"Authorization": f"Bearer {bearer_for_local()}"}
    while not stop.wait(every_s):
        try:
            response = httpx.post(url, headers=headers, timeout=max(every_s, 30.0))
            if response.status_code != 200:
                print(f"tick: dispatcher answered {response.status_code}", file=sys.stderr)
        except httpx.HTTPError as exc:
            print(f"tick: {type(exc).__name__}", file=sys.stderr)


def _shutdown(server: subprocess.Popen | None, emulator: Emulator) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup
    if server is not None and server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    if emulator.process is not None and emulator.process.poll() is None:
        try:
            saved = emulator.export(DATA)
            for old in DATA.iterdir():
                if saved is not None and old != saved.parent:
                    shutil.rmtree(old, ignore_errors=True)
            print(f"Saved the emulator's data under {DATA}.", flush=True)
        except OSError as exc:
            print(f"Could not save the emulator's data: {exc}", file=sys.stderr)
    emulator.stop()
    print("Stopped.", flush=True)


if __name__ == "__main__":
    sys.exit(main())
