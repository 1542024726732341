"""Admin CLI for operators and local bootstrap: ``python -m admin COMMAND``.

Outside production it talks to the local emulator (127.0.0.1:EMULATOR_PORT); with
ENVIRONMENT=prod and Application Default Credentials it talks to the project's Firestore.
``issue-key`` prints only the key on stdout, so ``KEY=$(python -m admin issue-key ...)``
works; everything else a command says goes to stderr.

An entry point, like ``main.py`` (decision 0019): it may use ``functions/`` and ``common/``,
and nothing deployed imports it. The local identity-provider commands are in
``devtools.idp``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import EmailStr, TypeAdapter, ValidationError


def email_arg(value: str) -> str:
    """An argparse type: a valid email address, or a usage error naming the value."""
    try:
        return TypeAdapter(EmailStr).validate_python(value)
    except ValidationError:
        raise argparse.ArgumentTypeError(f"not a valid email address: {value!r}") from None


def _days(value: str) -> int:
    days = int(value)
    if not 1 <= days <= 3650:
        raise argparse.ArgumentTypeError("must be between 1 and 3650")
    return days


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _consumer_or_exit(email: str) -> dict[str, Any]:
    from common.accounts.consumers import find_by_email

    consumer = find_by_email(email)
    if consumer is None:
        _say(f"No consumer with email {email}.")
        raise SystemExit(1)
    return consumer


def create_consumer(args: argparse.Namespace) -> None:
    from common.accounts.consumers import get_or_create_by_email

    consumer, created = get_or_create_by_email(args.email)
    _say("Created consumer." if created else "A consumer with this email already exists.")
    print(consumer["id"])


def issue_key(args: argparse.Namespace) -> None:
    from common.accounts.consumers import get_or_create_by_email
    from common.accounts.keys import issue_key as issue

    consumer, created = get_or_create_by_email(args.email)
    if created:
        _say(f"Created consumer {consumer['id']} for {args.email}.")
    issued = issue(consumer["id"], name=args.name, expires_in_days=args.expires_in_days)
    _say(f"Issued key {issued.key_id}; it is shown only now.")
    print(issued.plaintext)


def list_keys(args: argparse.Namespace) -> None:
    from common.accounts.keys import list_keys as keys_of

    consumer = _consumer_or_exit(args.email)
    for record in keys_of(consumer["id"]):
        print(json.dumps(record, default=_iso))


def revoke_key(args: argparse.Namespace) -> None:
    from common.accounts.keys import revoke_key as revoke

    if not revoke(args.key_id):
        _say(f"No key {args.key_id}.")
        raise SystemExit(1)
    _say(f"Revoked {args.key_id} (other instances stop accepting it within the cache TTL).")


def rotate_key(args: argparse.Namespace) -> None:
    from common.accounts.keys import rotate_key as rotate

    issued = rotate(args.key_id, grace_hours=args.grace_hours)
    if issued is None:
        _say(f"No active key {args.key_id}.")
        raise SystemExit(1)
    _say(f"Issued {issued.key_id}; {args.key_id} expires in {args.grace_hours:g} h.")
    print(issued.plaintext)


def usage(args: argparse.Namespace) -> None:
    """Requests and cost per operation of one consumer for a month, as a table or CSV."""
    import csv
    from datetime import UTC, datetime

    from common.billing.metering import month_bounds, summary

    consumer = _consumer_or_exit(args.email)
    first, last = month_bounds(args.month, datetime.now(UTC).date())
    lines, total = summary(consumer["id"], first, last)
    rows = [line.as_dict() for line in [*lines, total]]
    if args.csv:
        writer = csv.DictWriter(
            sys.stdout, fieldnames=["operation", "requests", "cost_micros", "cost"]
        )
        writer.writeheader()
        writer.writerows(rows)
        return
    print(f"Usage of {args.email} from {first} to {last} (USD)")
    for row in rows:
        print(f"{row['operation']:<24} {row['requests']:>8} {row['cost']:>14}")


def _month(value: str) -> str:
    try:
        datetime.strptime(value, "%Y-%m")
    except ValueError:
        raise argparse.ArgumentTypeError("use YYYY-MM, e.g. 2026-11") from None
    return value


def seed_demo(args: argparse.Namespace) -> None:
    """The demo consumer of `make run`: revoke its earlier demo keys, print a fresh one."""
    from common.accounts.consumers import get_or_create_by_email
    from common.accounts.keys import issue_key as issue
    from common.accounts.keys import list_keys as keys_of
    from common.accounts.keys import revoke_key as revoke
    from common.config import get_settings

    consumer, _ = get_or_create_by_email(email_arg(get_settings().demo_email))
    for record in keys_of(consumer["id"]):
        if record["name"] == "demo" and record["revoked_at"] is None:
            revoke(record["id"])
    print(issue(consumer["id"], name="demo").plaintext)


def tick(args: argparse.Namespace) -> None:
    """Run the dispatcher once, as Cloud Scheduler does.

    Locally, while `make run` serves, the tick goes to its dispatch endpoint, so the runs happen
    on the server's inline queue with the server's feeds and outbox. Otherwise the dispatcher
    runs here: with Cloud Tasks it only enqueues; with the inline backend this command runs the
    tasks itself and waits for them."""
    from common.adapters import tasks
    from common.config import get_settings, run_env_path
    from functions.tracking.dispatch import dispatch
    from registry import run_task

    settings = get_settings()
    tasks.set_runner(run_task)  # the inline queue runs the dispatched runs in this process
    if settings.environment == "local" and settings.tasks_backend == "inline":
        served = _tick_local_server(settings.port)
        if served is not None:
            print(served)
            return
        if run_env_path().exists():  # `make run` is running, yet its server did not answer
            _say(f"make run's server does not answer on port {settings.port}; is it starting?")
            raise SystemExit(1)
    report = dispatch()
    print(json.dumps(report.as_dict()))
    waited = settings.tasks_backend == "inline" and report.enqueued
    if waited and not tasks.inline_queue().drain(args.wait):
        _say(f"Some runs were still going after {args.wait} s.")
        raise SystemExit(1)


def _tick_local_server(port: int) -> str | None:
    """The dispatch report of the local server, or None when no server is listening."""
    import httpx

    from common.adapters.tasks import bearer_for_local

    try:
        answer = httpx.post(
            f"http://127.0.0.1:{port}/internal/dispatch",
            headers={"Authorization": f"Bearer {bearer_for_local()}"},
            timeout=60,
        )
    except httpx.ConnectError:
        return None
    if answer.status_code != 200:
        _say(f"The local server's dispatcher answered {answer.status_code}: {answer.text}")
        raise SystemExit(1)
    return answer.text


def _progress(label: str) -> Any:
    """A progress line on a terminal (stderr), rewritten in place; nothing when piped."""
    if not sys.stderr.isatty():
        return None

    started = time.monotonic()

    def show(done: int, total: int) -> None:
        elapsed = max(time.monotonic() - started, 1e-6)
        rate = done / elapsed
        left = (total - done) / rate if rate > 0 else 0.0
        width = 30
        bar = "#" * int(width * done / max(total, 1))
        line = (
            f"\r{label}: [{bar:<{width}}] {done}/{total} ({rate:.1f}/s, "
            f"{int(left // 60)}m{int(left % 60):02d}s left)"
        )
        print(line, end="\n" if done >= total else "", file=sys.stderr, flush=True)

    return show


def import_records(args: argparse.Namespace) -> None:
    """Load a JSONL or CSV file into a search table (upsert by id); rejected rows are listed
    with their line numbers, the valid ones still load. Exit 1 if any row was rejected."""
    from pathlib import Path

    from common.errors import ImportFileError
    from functions.search.importer import import_records as load
    from functions.search.tables import TABLES

    try:
        report = load(
            TABLES[args.table],
            Path(args.path),
            dry_run=args.dry_run,
            progress=_progress(f"{args.table}"),
        )
    except ImportFileError as exc:
        _say(str(exc))
        raise SystemExit(2) from None
    for line, reason in report.rejected:
        _say(f"{args.path}:{line}: {reason}")
    print(json.dumps({**report.as_dict(), "rejected": len(report.rejected)}))
    if report.rejected:
        raise SystemExit(1)


def import_knowledge(args: argparse.Namespace) -> None:
    """Load Markdown, text or JSONL documents (files or directories) into the knowledge corpus;
    re-importing a document replaces its passages."""
    from pathlib import Path

    from functions.knowledge.importer import import_knowledge as load

    report = load(
        [Path(p) for p in args.paths], dry_run=args.dry_run, progress=_progress("documents")
    )
    for where, reason in report.rejected:
        _say(f"{where}: {reason}")
    print(json.dumps({**report.as_dict(), "rejected": len(report.rejected)}))
    if report.rejected:
        raise SystemExit(1)


def reindex(args: argparse.Namespace) -> None:
    """Embed every record and passage again with the configured embedder (after changing
    EMBEDDINGS_BACKEND, the model or its dimension), and rebuild the text indexes;
    ``--text-only`` rebuilds the text indexes alone (after an upgrade that asks for it);
    ``--check`` changes nothing and lists the records whose stored search terms differ from
    their text's (exit 1 when there are any: run ``reindex --text-only``)."""
    from functions.knowledge.importer import reindex as reindex_knowledge
    from functions.search.importer import reindex as reindex_table
    from functions.search.tables import TABLES

    if args.check:
        _check_terms(args.tables or [*TABLES, "knowledge"])
        return
    counts = {}
    for name in args.tables or [*TABLES, "knowledge"]:
        if name == "knowledge":
            counts[name] = reindex_knowledge(progress=_progress(name), embed=not args.text_only)
        else:
            counts[name] = reindex_table(
                TABLES[name], progress=_progress(name), embed=not args.text_only
            )
    print(json.dumps(counts))


def _check_terms(names: list[str]) -> None:
    from functions.knowledge.importer import stale_terms as stale_passages
    from functions.search.importer import stale_terms as stale_records
    from functions.search.tables import TABLES

    found = {}
    for name in names:
        read, stale = stale_passages() if name == "knowledge" else stale_records(TABLES[name])
        found[name] = {"checked": read, "stale": len(stale), "ids": stale[:20]}
    print(json.dumps(found))
    if any(report["stale"] for report in found.values()):
        _say("Some stored search terms are not their text's: run `reindex --text-only`.")
        raise SystemExit(1)


def move_restricted(args: argparse.Namespace) -> None:
    """Once, when upgrading a deployment made before decision 0051: move the suppression
    list, recipients' consents and the OSINT opt-out list, audit log and counts from the main
    database to the restricted ones, copying only what the destination lacks (a document
    already there is newer and kept); run it again after a failure, it moves what is left."""
    from common.adapters.firestore import move_restricted as move

    print(json.dumps(move()))


def osint_audit(args: argparse.Namespace) -> None:
    """OSINT audit entries, newest first, one JSON line each: all, one consumer's (--email),
    or those about one person or company (--subject)."""
    from common.language import names
    from common.subjects import audit

    consumer_id = _consumer_or_exit(args.email)["id"] if args.email else None
    subject_key = None
    if args.subject:
        subject_key = (
            names.canonical_key(args.subject) if args.person else names.company_core(args.subject)
        )
    found = audit.search(
        consumer_id=consumer_id, subject_key=subject_key, person=args.person, limit=args.limit
    )
    for record in found:
        entry = audit.view(record)
        print(json.dumps({**entry, "consumerId": record.get("consumer_id")}, default=_iso))


def osint_optout(args: argparse.Namespace) -> None:
    """The OSINT opt-out list: add or remove a person, list everyone on it, or rewrite entries
    made before names were canonical (reindex)."""
    from common.subjects import optout

    if args.action == "list":
        for entry in optout.entries():
            print(json.dumps(entry.as_dict()))
        return
    if args.action == "reindex":
        print(json.dumps({"rewritten": optout.reindex()}))
        return
    if not args.name:
        _say('Give the person\'s name: --name "First Last".')
        raise SystemExit(2)
    try:
        if args.action == "add":
            entry, added = optout.add(args.name)
            _say("Added." if added else "Already on the list.")
            print(json.dumps(entry.as_dict()))
        elif not optout.remove(args.name):
            _say(f"{args.name} is not on the list.")
            raise SystemExit(1)
        else:
            _say("Removed.")
    except ValueError as exc:
        _say(str(exc))
        raise SystemExit(2) from None


def _iso(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="python -m admin",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = root.add_subparsers(dest="command", required=True)

    cmd = commands.add_parser("create-consumer", help="create a consumer; prints its id")
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.set_defaults(run=create_consumer)

    cmd = commands.add_parser("issue-key", help="issue an API key; prints only the key")
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.add_argument("--name", default="default")
    cmd.add_argument("--expires-in-days", type=_days, default=None)
    cmd.set_defaults(run=issue_key)

    cmd = commands.add_parser("list-keys", help="list a consumer's keys (never the key itself)")
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.set_defaults(run=list_keys)

    cmd = commands.add_parser("revoke-key", help="revoke a key by its id (key_...)")
    cmd.add_argument("key_id")
    cmd.set_defaults(run=revoke_key)

    cmd = commands.add_parser("rotate-key", help="issue a successor key; the old one expires")
    cmd.add_argument("key_id")
    cmd.add_argument("--grace-hours", type=float, default=24.0)
    cmd.set_defaults(run=rotate_key)

    cmd = commands.add_parser("usage", help="a consumer's requests and cost for a month")
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.add_argument("--month", type=_month, default=None, help="YYYY-MM (default: this one)")
    cmd.add_argument("--csv", action="store_true", help="CSV on stdout")
    cmd.set_defaults(run=usage)

    cmd = commands.add_parser("tick", help="dispatch due tracking subscriptions once")
    cmd.add_argument("--wait", type=float, default=300.0, help="seconds to wait for inline runs")
    cmd.set_defaults(run=tick)

    cmd = commands.add_parser("seed-demo", help="seed the demo consumer; prints a new demo key")
    cmd.set_defaults(run=seed_demo)

    tables = ["campaigns", "organizations", "public_figures", "actions", "content"]
    cmd = commands.add_parser("import-records", help="load a JSONL or CSV file into a table")
    cmd.add_argument("table", choices=tables)
    cmd.add_argument("path")
    cmd.add_argument("--dry-run", action="store_true", help="validate only; write nothing")
    cmd.set_defaults(run=import_records)

    cmd = commands.add_parser("import-knowledge", help="load documents into the knowledge corpus")
    cmd.add_argument("paths", nargs="+", help=".md, .txt or .jsonl files, or directories")
    cmd.add_argument("--dry-run", action="store_true", help="validate and chunk only")
    cmd.set_defaults(run=import_knowledge)

    cmd = commands.add_parser("reindex", help="re-embed every record and passage")
    cmd.add_argument("tables", nargs="*", choices=[*tables, "knowledge"], metavar="TABLE")
    cmd.add_argument(
        "--text-only", action="store_true", help="rebuild the text indexes only (no embedding)"
    )
    cmd.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list records whose stored search terms are not their text's",
    )
    cmd.set_defaults(run=reindex)

    cmd = commands.add_parser(
        "move-restricted", help="upgrade: move sensitive collections to their databases"
    )
    cmd.set_defaults(run=move_restricted)

    cmd = commands.add_parser("osint-audit", help="OSINT audit entries, newest first (JSONL)")
    cmd.add_argument("--email", type=email_arg, help="only this consumer's requests")
    cmd.add_argument("--subject", help="only requests about this person (or --company)")
    kind = cmd.add_mutually_exclusive_group()
    kind.add_argument("--person", action="store_true", default=True, help="--subject is a person")
    kind.add_argument("--company", dest="person", action="store_false", help="... a company")
    cmd.add_argument("--limit", type=_days, default=50, help="most entries (1..3650, 50)")
    cmd.set_defaults(run=osint_audit)

    cmd = commands.add_parser("osint-optout", help="people who may not be profiled")
    cmd.add_argument("action", choices=["add", "remove", "list", "reindex"])
    cmd.add_argument("--name", help='"First Last"')
    cmd.set_defaults(run=osint_optout)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    from common.adapters.firestore import is_backend_error
    from common.config import use_local_run
    from common.errors import AppError

    args = parser().parse_args(argv)
    use_local_run()  # a running `make run`'s ports and emulator (.local/run.env)
    try:
        args.run(args)
    except AppError as exc:  # e.g. an index of another embedding model: run reindex
        _say(exc.detail)
        return 1
    except Exception as exc:
        if not is_backend_error(exc):
            raise
        from common.config import get_settings

        settings = get_settings()
        where = settings.firestore_emulator_host or f"project {settings.google_cloud_project}"
        _say(f"Cannot reach Firestore ({where}): {type(exc).__name__}. Is `make run` running?")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
