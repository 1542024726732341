"""What the identity provider would do, for local runs: ``python -m devtools.idp COMMAND``.

    webhook TYPE --email E   send a signed user.created/updated/deleted event to the local server
    token --email E          print an ID token from the local IdP stand-in (devtools.localidp)

Never deployed (decision 0019), and refused when ENVIRONMENT=prod.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from admin import email_arg


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _local_only(command: str) -> None:
    from common.config import get_settings

    if get_settings().environment == "prod":
        _say(f"{command} is for local development only.")
        raise SystemExit(2)


def token(args: argparse.Namespace) -> None:
    """An ID token from the local IdP stand-in, as the portal's sign-in would give."""
    _local_only("token")
    from common.config import get_settings
    from devtools import localidp

    settings = get_settings()
    print(
        localidp.id_token(
            localidp.load_or_create_key(),
            sub=localidp.local_user_id(args.email),
            issuer=settings.oidc_issuer,
            audience=settings.oidc_audience,
            email=args.email,
            lifetime_s=args.minutes * 60,
        )
    )


def webhook(args: argparse.Namespace) -> None:
    """Send a signed IdP user event to the local server, as the IdP would."""
    _local_only("webhook")
    import httpx

    from common.config import get_settings
    from devtools import localidp

    settings = get_settings()
    secret = settings.idp_webhook_secret.split()[0]
    body, headers = localidp.signed_webhook(localidp.user_event(args.type, args.email), secret)
    url = args.url or f"http://127.0.0.1:{settings.port}/webhooks/idp"
    response = httpx.post(url, content=body, headers=headers, timeout=10)
    _say(f"{args.type} for {args.email}: HTTP {response.status_code} {response.text}".strip())
    if response.status_code >= 300:
        raise SystemExit(1)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="python -m devtools.idp",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = root.add_subparsers(dest="command", required=True)

    cmd = commands.add_parser("token", help="an ID token for the portal API")
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.add_argument("--minutes", type=int, default=60)
    cmd.set_defaults(run=token)

    cmd = commands.add_parser("webhook", help="send a signed IdP user event")
    cmd.add_argument("type", choices=["user.created", "user.updated", "user.deleted"])
    cmd.add_argument("--email", type=email_arg, required=True)
    cmd.add_argument("--url", default=None, help="default: http://127.0.0.1:$PORT/webhooks/idp")
    cmd.set_defaults(run=webhook)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    import httpx

    from common.config import use_local_run

    args = parser().parse_args(argv)
    use_local_run()  # a running `make run`'s ports (.local/run.env)
    try:
        args.run(args)
    except httpx.TransportError as exc:
        _say(f"Cannot reach the local server ({type(exc).__name__}): is `make run` running?")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
