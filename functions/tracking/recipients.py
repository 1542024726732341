"""Who may receive digests: consent of third-party recipients and the suppression list.

A digest goes to a subscription's ``delivery_email``. The consumer's own (verified) address
needs nothing more. Any other address first gets one confirmation email with a signed link, and
no digest goes there until the recipient confirms; a confirmation is remembered per
(consumer, address) in ``recipient_consents``. Every email also carries an "unsubscribe this
address" link: it puts the address on the suppression list (``email_suppressions``, keyed by
a hash of the address, so the list holds no address in clear), which every subscription of
every consumer respects and no owner can override. SendGrid's bounce, drop, spam-report and
unsubscribe events feed the same list (``functions/webhooks``).

A subscription's ``delivery_status`` is derived when it is read, never stored, so it cannot go
stale: ``suppressed`` if the address is on the list, else ``confirmed`` for the owner's own
address or a confirmed one, else ``pending_confirmation``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from common.adapters import suppressions
from common.adapters.firestore import (
    CONFIRMATION_COUNTS,
    CONSENTS,
    RECIPIENTS,
    CounterPlaces,
    add_to_counters,
    collection,
    get_db,
    run_transaction,
)
from common.adapters.tasks import Enqueued, Job, Task, enqueue
from common.config import get_settings
from common.errors import BackendUnavailable, ConfirmationLimit, Gone, NotFound
from functions.tasks import records

logger = logging.getLogger("ars.recipients")

DeliveryStatus = Literal["confirmed", "pending_confirmation", "suppressed"]
CONFIRMED: DeliveryStatus = "confirmed"
PENDING: DeliveryStatus = "pending_confirmation"
SUPPRESSED: DeliveryStatus = "suppressed"

KIND = "recipient.confirm"
CONFIRM_PURPOSE = "confirm"
UNSUBSCRIBE_PURPOSE = "unsubscribe"
UNSUBSCRIBE_LINK_TTL = timedelta(days=365)


def consent_id(consumer_id: str, address: str) -> str:
    return hashlib.sha256(f"{consumer_id}\n{address.strip().lower()}".encode()).hexdigest()


def is_own(address: str, owner_email: str) -> bool:
    return bool(owner_email) and address.strip().lower() == owner_email.strip().lower()


def _consent_ref(consumer_id: str, address: str) -> Any:
    return collection(CONSENTS).document(consent_id(consumer_id, address))


# --- status ------------------------------------------------------------------------------


def statuses(
    consumer_id: str, owner_email: str, addresses: Iterable[str]
) -> dict[str, DeliveryStatus]:
    """``delivery_status`` of each address (keyed by its lower-case form), in one read."""
    wanted = {address.strip().lower() for address in addresses}
    if not wanted:
        return {}
    refs = [suppressions.ref(a) for a in wanted]
    refs += [_consent_ref(consumer_id, a) for a in wanted if not is_own(a, owner_email)]
    found = {snap.reference.path: snap for snap in get_db(RECIPIENTS).get_all(refs) if snap.exists}
    result = {}
    for address in wanted:
        if suppressions.ref(address).path in found:
            result[address] = SUPPRESSED
        elif is_own(address, owner_email):
            result[address] = CONFIRMED
        else:
            consent = found.get(_consent_ref(consumer_id, address).path)
            confirmed = consent is not None and consent.get("state") == "confirmed"
            result[address] = CONFIRMED if confirmed else PENDING
    return result


def status(consumer_id: str, owner_email: str, address: str) -> DeliveryStatus:
    return statuses(consumer_id, owner_email, [address])[address.strip().lower()]


def blocked(consumer_id: str, owner_email: str, address: str) -> str | None:
    """Why nothing may be sent to ``address`` now (``suppressed`` / ``unconfirmed``): the
    check made as a digest's send begins. Read from the recipients database, outside the
    task's transaction (a transaction holds one database; decision 0051): an entry written
    after this read and before the send is missed, as one written during the send is."""
    if suppressions.ref(address).get().exists:
        return "suppressed"
    if is_own(address, owner_email):
        return None
    consent = _consent_ref(consumer_id, address).get()
    return None if consent.exists and consent.get("state") == "confirmed" else "unconfirmed"


# --- asking for consent ----------------------------------------------------------------------


@dataclass
class Place(CounterPlaces):
    """One confirmation email of the account's day, taken before it is sent (no counter: no
    email due, or no limit); ``release`` gives it back when none was sent (once)."""

    full: bool = False  # none was left today: no email may be sent


def take_place(
    consumer_id: str, owner_email: str, address: str, *, unless_asked: bool = False
) -> Place:
    """Before a subscription is saved with ``address``: if the address would get a
    confirmation email, take one of the account's ``CONFIRMATIONS_PER_DAY``, raising
    ConfirmationLimit when none is left (nothing saved, nothing sent), so that one account
    cannot make the service mail thousands of strangers. No place is taken when the address
    gets no email (the owner's own, confirmed, suppressed, or asked within
    ``CONSENT_RESEND_HOURS``; with ``unless_asked``, asked ever)."""
    return _take(consumer_id, owner_email, address, unless_asked=unless_asked, strict=True)


def _take(
    consumer_id: str, owner_email: str, address: str, *, unless_asked: bool, strict: bool
) -> Place:
    limit = get_settings().confirmations_per_day
    if is_own(address, owner_email) or not _would_ask(consumer_id, address, unless_asked):
        return Place()
    if limit <= 0:
        return Place()
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
    ref = collection(CONFIRMATION_COUNTS).document(f"{consumer_id}_{now.date()}")
    expires_at = midnight + timedelta(days=1)
    [count] = add_to_counters([ref], 1, expires_at)
    if count <= limit:
        return Place([ref], expires_at)
    add_to_counters([ref], -1, expires_at)
    if not strict:
        return Place(full=True)
    retry = max(1, int((midnight - now).total_seconds()) + 1)
    logger.warning("confirmation limit reached", extra={"limit": limit})
    raise ConfirmationLimit(
        f"This account has sent {limit} confirmation emails to new recipients today, the most "
        f"a day allows (CONFIRMATIONS_PER_DAY); nothing was saved. Your own and already "
        f"confirmed addresses still work; retry after midnight UTC (in {retry} s).",
        headers={"Retry-After": str(retry)},
    )


def _would_ask(consumer_id: str, address: str, unless_asked: bool) -> bool:
    """Whether ``request_confirmation`` would email the address now (read outside its
    transaction: a race costs a place given back, or one email over the limit at most)."""
    if suppressions.is_suppressed(address):
        return False
    snapshot = _consent_ref(consumer_id, address).get()
    consent = snapshot.to_dict() if snapshot.exists else None
    if consent is None:
        return True
    if consent.get("state") == "confirmed":
        return False
    last = consent.get("requested_at")
    if last is None or _never_sent(consumer_id, snapshot.id, last):
        return True
    resend = timedelta(hours=get_settings().consent_resend_hours)
    return not unless_asked and datetime.now(UTC) - last >= resend


def request_confirmation(
    consumer_id: str,
    owner_email: str,
    address: str,
    *,
    unless_asked: bool = False,
    place: Place | None = None,
) -> str:
    """The address's ``delivery_status``; for an unconfirmed third-party address, also send it
    a confirmation email -- at most one per (consumer, address) per ``CONSENT_RESEND_HOURS``,
    so an owner cannot make the service mail anyone repeatedly, and only with a ``place`` of
    the account's day (``take_place``; without one, a place is taken here, and a run with none
    left asks on a later run). With ``unless_asked`` (a tracking run finding the address
    unconfirmed) only an address never successfully asked is asked: an unanswered confirmation
    is not repeated by the service on its own."""
    if is_own(address, owner_email):
        return SUPPRESSED if suppressions.is_suppressed(address) else CONFIRMED
    if place is None:
        place = _take(consumer_id, owner_email, address, unless_asked=unless_asked, strict=False)
    if place.full:
        return status(consumer_id, owner_email, address)  # no place left today: a later run
    suppression_ref, ref = suppressions.ref(address), _consent_ref(consumer_id, address)
    resend = timedelta(hours=get_settings().consent_resend_hours)

    def ask(transaction: Any) -> tuple[str, int | None]:
        suppressed = suppression_ref.get(transaction=transaction).exists
        snapshot = ref.get(transaction=transaction)
        consent = snapshot.to_dict() if snapshot.exists else None
        if suppressed:
            return SUPPRESSED, None
        if consent is not None and consent.get("state") == "confirmed":
            return CONFIRMED, None
        now = datetime.now(UTC)
        last = (consent or {}).get("requested_at")
        if last is not None and _never_sent(consumer_id, ref.id, last):
            # its email failed after every attempt: not asked, in truth; the new request
            # needs its own second (the task's id and the link's nonce are whole seconds)
            now, last = max(now, last + timedelta(seconds=1)), None
        if last is not None and (unless_asked or now - last < resend):
            return PENDING, None  # asked recently: wait for the answer
        transaction.set(
            ref,
            {
                "consumer_id": consumer_id,
                "address": address.strip(),
                "address_lower": address.strip().lower(),
                "state": "pending",
                "requested_at": now,
                "updated_at": now,
            },
        )
        return PENDING, int(now.timestamp())

    result, nonce = run_transaction(ask, database=RECIPIENTS)
    if nonce is None and place is not None:
        place.release()  # asked meanwhile, confirmed or suppressed: no email
    if nonce is not None:
        task = confirmation_task(consumer_id, ref.id, nonce)
        if enqueue(task) is Enqueued.FAILED:
            if place is not None:
                place.release()
            # Forget the request, so the next run of a subscription asks again. (If even this
            # fails, the owner's next change asks again once CONSENT_RESEND_HOURS have passed.)
            logger.warning("confirmation email not queued", extra={"consentId": ref.id})
            try:
                ref.update({"requested_at": None})
            except Exception:
                logger.exception("confirmation request not reset", extra={"consentId": ref.id})
    return result


def _never_sent(consumer_id: str, consent: str, requested_at: datetime) -> bool:
    """The confirmation email of this request ended ``failed`` (SendGrid down past its last
    attempt; decision 0051). Read from the main database, outside the transaction."""
    task = confirmation_task(consumer_id, consent, int(requested_at.timestamp()))
    snapshot = records.ref(task.task_id).get()
    return snapshot.exists and (snapshot.to_dict() or {}).get("status") == "failed"


def confirmation_task(consumer_id: str, consent: str, nonce: int) -> Task:
    return Task(
        f"confirm-{consent[:40]}-{nonce}",
        KIND,
        {"ownerId": consumer_id, "consentId": consent, "nonce": nonce},
    )


def revoke(consumer_id: str, address: str) -> None:
    """The recipient paused a digest sent to them: the owner's resuming needs a new consent.
    (Written before the pause itself, which is in the main database: a pause that then
    fails leaves the consent revoked, never a pause without it; decision 0051.)"""
    ref = _consent_ref(consumer_id, address)
    # merge: a consent that was never asked for stays a stub without an address
    stub = {"consumer_id": consumer_id, "state": "revoked", "updated_at": datetime.now(UTC)}
    ref.set(stub, merge=True)


# --- the recipient's answers -----------------------------------------------------------------


def confirm_link(consent: str, nonce: int) -> str:
    from functions.tracking.pause_token import sign_claims

    ttl = timedelta(hours=get_settings().consent_resend_hours)
    token = sign_claims({"c": consent, "n": nonce}, CONFIRM_PURPOSE, ttl)
    return f"{get_settings().public_base_url}/v1/tracking/confirm?token={token}"


def unsubscribe_link(address: str) -> str:
    from functions.tracking.pause_token import sign_claims

    token = sign_claims(
        {"a": suppressions.address_key(address)}, UNSUBSCRIBE_PURPOSE, UNSUBSCRIBE_LINK_TTL
    )
    return f"{get_settings().public_base_url}/v1/tracking/unsubscribe?token={token}"


def check_confirm(token: str) -> dict[str, Any]:
    """The claims of a valid confirm link (the page shown before the button)."""
    from functions.tracking.pause_token import verify_claims

    claims = verify_claims(token, CONFIRM_PURPOSE)
    if not isinstance(claims.get("c"), str) or not isinstance(claims.get("n"), int):
        raise NotFound("This confirmation link is not valid.")
    return claims


def confirm(token: str) -> None:
    """The recipient said yes: the (consumer, address) consent is confirmed (idempotent)."""
    claims = check_confirm(token)
    ref = collection(CONSENTS).document(claims["c"])

    def apply(transaction: Any) -> None:
        snapshot = ref.get(transaction=transaction)
        consent = snapshot.to_dict() if snapshot.exists else None
        if consent is None or not consent.get("address"):
            raise NotFound("Nothing is waiting for this confirmation any more.")
        if consent.get("state") == "confirmed":
            return
        requested = consent.get("requested_at")
        if requested is None or int(requested.timestamp()) != claims["n"]:
            raise Gone("A newer confirmation email replaced this link; use the newest one.")
        now = datetime.now(UTC)
        transaction.update(ref, {"state": "confirmed", "confirmed_at": now, "updated_at": now})

    run_transaction(apply, database=RECIPIENTS)


def check_unsubscribe(token: str) -> str:
    """The address key named by a valid unsubscribe link."""
    from functions.tracking.pause_token import verify_claims

    key = verify_claims(token, UNSUBSCRIBE_PURPOSE).get("a")
    if not isinstance(key, str) or len(key) != 64:
        raise NotFound("This unsubscribe link is not valid.")
    return key


def unsubscribe(token: str) -> None:
    """The recipient stopped all mail from the service to their address (idempotent)."""
    suppressions.suppress_keys({check_unsubscribe(token): "unsubscribed"}, source="link")


# --- the confirmation email (a task, so nothing is lost and nothing is sent twice) -----------


class ConfirmPayload(BaseModel):
    ownerId: str = Field(min_length=1, max_length=128)
    consentId: str = Field(pattern=r"^[0-9a-f]{64}$")
    nonce: int = Field(ge=0)


def run_confirmation(task: Task) -> str:
    from common.accounts.consumers import get_consumer
    from functions.tasks.email_once import email_state, recover, send_once

    payload = ConfirmPayload.model_validate(task.payload)
    record = records.claim(task.task_id, {"kind": KIND, "owner_id": payload.ownerId})
    if record is None:
        return "duplicate"
    owner_id = record["owner_id"]

    def finish_sent(pending: dict[str, Any], message_id: str | None, assumed: bool) -> None:
        records.finish(
            task.task_id,
            status="succeeded",
            result={"sent": True},
            email=email_state(message_id, assumed),
        )

    if record["email"]["state"] == "sending":
        return recover(task.task_id, record, finish_sent)
    ref = collection(CONSENTS).document(payload.consentId)
    snapshot = ref.get()
    consent = snapshot.to_dict() if snapshot.exists else None
    consumer = get_consumer(owner_id)
    reason = _no_confirmation_reason(consent, consumer, payload.nonce, owner_id)
    if reason is None and consent is not None and suppressions.is_suppressed(consent["address"]):
        reason = "suppressed"
    if reason is not None or consent is None or consumer is None:
        records.finish(task.task_id, status="skipped", result={"reason": reason, "sent": False})
        return f"skipped_{reason}"

    def still_wanted(transaction: Any) -> str | None:
        # the recipients database, outside the task's transaction (``blocked`` says why)
        if suppressions.ref(consent["address"]).get().exists:
            return "suppressed"
        current = ref.get()
        return _no_confirmation_reason(
            current.to_dict() if current.exists else None, consumer, payload.nonce, owner_id
        )

    email = confirmation_email(consent["address"], consumer["email"], payload, task.task_id)
    return send_once(task.task_id, record, email, {}, finish_sent, guard=still_wanted)


def _no_confirmation_reason(
    consent: dict[str, Any] | None, consumer: dict[str, Any] | None, nonce: int, owner_id: str
) -> str | None:
    if consent is None or consent.get("consumer_id") != owner_id:
        return "withdrawn"
    if consent.get("state") == "confirmed":
        return "already_confirmed"
    requested = consent.get("requested_at")
    if requested is None or int(requested.timestamp()) != nonce:
        return "superseded"
    if consumer is None or consumer.get("status") != "active" or not consumer.get("email"):
        return "owner_inactive"
    return None


def confirmation_email(address: str, owner_email: str, payload: Any, task_id: str) -> Any:
    """The one email a third-party address gets before it confirms. It carries no text of the
    owner's choosing (no keywords, no interests): only who asked, and the two links."""
    from common.adapters.email import Email
    from common.adapters.templates import render
    from functions.tracking.digest import list_unsubscribe_headers

    if not get_settings().public_base_url:
        raise BackendUnavailable("PUBLIC_BASE_URL is not set: the email needs its links.")
    stop = unsubscribe_link(address)
    context = {
        "service": get_settings().email_from_name or "Advocacy Research",
        "owner": owner_email,
        "confirm_link": confirm_link(payload.consentId, payload.nonce),
        "unsubscribe_link": stop,
        "days": max(1, round(get_settings().consent_resend_hours / 24)),
    }
    subject = f"Confirm: do you want research digests from {context['service']}?"
    return Email(
        to=address,
        subject=subject,
        text=render("confirm_request.txt.j2", subject=subject, **context),
        html=render("confirm_request.html.j2", subject=subject, **context),
        headers=list_unsubscribe_headers(stop),
        custom_args={"task_id": task_id},
        category="recipient-confirmation",
    )


JOB = Job(KIND, run_confirmation)
