"""One-click pause of a subscription from its digest email (RFC 8058).

The link carries a signed token naming the subscription and the run that sent it. A POST (what
mail clients send for ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, and what the
confirmation page's button sends) sets ``active: false``; each token works once -- its use is
recorded under its hash in the same transaction -- and a second use is 410. A GET only shows the
confirmation page and changes nothing, so link scanners that prefetch URLs cannot pause anyone.
A pause from a digest sent to someone other than the owner also withdraws that recipient's
consent: the owner can resume the subscription, but nothing is sent there until the recipient
confirms again.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from common.adapters.firestore import (
    CONSUMERS,
    PAUSE_TOKENS,
    SUBSCRIPTIONS,
    get_db,
    run_transaction,
)
from common.errors import Gone, NotFound
from functions.tracking import recipients
from functions.tracking.pause_token import PauseClaim, read_token

_GONE = "This pause link was already used. Manage the subscription with the API."
_NOT_FOUND = "This subscription no longer exists."


def check(token: str) -> PauseClaim:
    """The token's claim, if it is valid and unused (the confirmation page)."""
    claim = read_token(token)
    if get_db().collection(PAUSE_TOKENS).document(claim.token_id).get().exists:
        raise Gone(_GONE)
    return claim


def pause(token: str) -> PauseClaim:
    claim = read_token(token)
    db = get_db()
    used_ref = db.collection(PAUSE_TOKENS).document(claim.token_id)
    sub_ref = db.collection(SUBSCRIPTIONS).document(claim.subscription_id)

    # Paused by someone other than the owner: resuming asks them again. The consent is in the
    # recipients database, so it is revoked first, outside the pause's transaction (0051).
    revoked = _third_party(sub_ref, db)
    if revoked is not None and not used_ref.get().exists:
        recipients.revoke(*revoked)

    def apply(transaction: Any) -> None:
        if used_ref.get(transaction=transaction).exists:
            raise Gone(_GONE)
        snapshot = sub_ref.get(transaction=transaction)
        if not snapshot.exists:
            raise NotFound(_NOT_FOUND)
        now = datetime.now(UTC)
        transaction.create(
            used_ref,
            {
                "subscription_id": claim.subscription_id,
                "run_id": claim.run_id,
                "used_at": now,
                "expires_at": claim.expires_at,
            },
        )
        transaction.update(sub_ref, {"active": False, "updated_at": now})

    run_transaction(apply)
    return claim


def _third_party(sub_ref: Any, db: Any) -> tuple[str, str] | None:
    """(owner id, address) of a subscription that mails someone other than its owner."""
    snapshot = sub_ref.get()
    subscription = snapshot.to_dict() or {} if snapshot.exists else {}
    address = subscription.get("delivery_email") or ""
    if not address:
        return None
    owner = db.collection(CONSUMERS).document(subscription["user_id"]).get()
    owner_email = (owner.to_dict() or {}).get("email", "") if owner.exists else ""
    return None if recipients.is_own(address, owner_email) else (subscription["user_id"], address)
