"""Admin CLI for operators and local bootstrap: ``python -m common.admin COMMAND``.

Outside production it talks to the local emulator (127.0.0.1:EMULATOR_PORT); with
ENVIRONMENT=prod and Application Default Credentials it talks to the project's Firestore.
``issue-key`` prints only the key on stdout, so ``KEY=$(python -m common.admin issue-key ...)``
works; everything else a command says goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import EmailStr, TypeAdapter, ValidationError


def _email(value: str) -> str:
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
    from common.consumers import find_by_email

    consumer = find_by_email(email)
    if consumer is None:
        _say(f"No consumer with email {email}.")
        raise SystemExit(1)
    return consumer


def create_consumer(args: argparse.Namespace) -> None:
    from common.consumers import get_or_create_by_email

    consumer, created = get_or_create_by_email(args.email)
    _say("Created consumer." if created else "A consumer with this email already exists.")
    print(consumer["id"])


def issue_key(args: argparse.Namespace) -> None:
    from common.consumers import get_or_create_by_email
    from common.keys import issue_key as issue

    consumer, created = get_or_create_by_email(args.email)
    if created:
        _say(f"Created consumer {consumer['id']} for {args.email}.")
    issued = issue(consumer["id"], name=args.name, expires_in_days=args.expires_in_days)
    _say(f"Issued key {issued.key_id}; it is shown only now.")
    print(issued.plaintext)


def list_keys(args: argparse.Namespace) -> None:
    from common.keys import list_keys as keys_of

    consumer = _consumer_or_exit(args.email)
    for record in keys_of(consumer["id"]):
        print(json.dumps(record, default=_iso))


def revoke_key(args: argparse.Namespace) -> None:
    from common.keys import revoke_key as revoke

    if not revoke(args.key_id):
        _say(f"No key {args.key_id}.")
        raise SystemExit(1)
    _say(f"Revoked {args.key_id} (other instances stop accepting it within the cache TTL).")


def seed_demo(args: argparse.Namespace) -> None:
    """The demo consumer of `make run`: revoke its earlier demo keys, print a fresh one."""
    from common.config import get_settings
    from common.consumers import get_or_create_by_email
    from common.keys import issue_key as issue
    from common.keys import list_keys as keys_of
    from common.keys import revoke_key as revoke

    consumer, _ = get_or_create_by_email(get_settings().demo_email)
    for record in keys_of(consumer["id"]):
        if record["name"] == "demo" and record["revoked_at"] is None:
            revoke(record["id"])
    print(issue(consumer["id"], name="demo").plaintext)


def _iso(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="python -m common.admin",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = root.add_subparsers(dest="command", required=True)

    cmd = commands.add_parser("create-consumer", help="create a consumer; prints its id")
    cmd.add_argument("--email", type=_email, required=True)
    cmd.set_defaults(run=create_consumer)

    cmd = commands.add_parser("issue-key", help="issue an API key; prints only the key")
    cmd.add_argument("--email", type=_email, required=True)
    cmd.add_argument("--name", default="default")
    cmd.add_argument("--expires-in-days", type=_days, default=None)
    cmd.set_defaults(run=issue_key)

    cmd = commands.add_parser("list-keys", help="list a consumer's keys (never the key itself)")
    cmd.add_argument("--email", type=_email, required=True)
    cmd.set_defaults(run=list_keys)

    cmd = commands.add_parser("revoke-key", help="revoke a key by its id (key_...)")
    cmd.add_argument("key_id")
    cmd.set_defaults(run=revoke_key)

    cmd = commands.add_parser("seed-demo", help="seed the demo consumer; prints a new demo key")
    cmd.set_defaults(run=seed_demo)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    from common.firestore import is_backend_error

    args = parser().parse_args(argv)
    try:
        args.run(args)
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
