"""`make run`'s supervisor: prints a working demo key, keeps data across runs, and leaves no
process behind after Ctrl-C (SIGINT) or SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from devtools.emulator import free_port
from tests.conftest import ROOT
from tests.e2e.conftest import healthy_within
from tests.helpers import streamed_events

pytestmark = pytest.mark.e2e


def start(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "devtools.run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 300  # the first run embeds the sample search data
    for line in process.stdout:
        if line.startswith("Demo API key: "):
            # Then where the API and the developer portal are (decision 0030).
            serving, portal = next(process.stdout), next(process.stdout)
            assert serving.startswith("Serving every route on http://127.0.0.1:"), serving
            assert portal.startswith("Developer portal: http://127.0.0.1:"), portal
            assert portal.split()[2].endswith("/portal/"), portal
            # serving when it says so: the first request, sent at once, is answered (it was
            # refused while the server still imported the service)
            assert httpx.get(f"{serving.split()[4]}/health", timeout=10).status_code in (200, 502)
            return process, line.removeprefix("Demo API key: ").strip()
        if time.monotonic() > deadline:
            break
    process.kill()
    pytest.fail("make run printed no demo key")


def stop(process: subprocess.Popen, signum: int) -> str:
    process.send_signal(signum)
    out, _ = process.communicate(timeout=60)
    return out


def running(pattern: str) -> list[str]:
    """The processes whose command line matches ``pattern``. (``--`` first: a pattern such as
    ``--port=...`` was read as an option, pgrep failed, and every check "nothing is left
    running" passed whatever ran.)"""
    found = subprocess.run(["pgrep", "-af", "--", pattern], capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr  # 1: no process matched
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def wait_healthy(base: str) -> None:
    if not healthy_within(base, 30):
        pytest.fail("the server never became healthy")


def readme_examples() -> list[str]:
    """The bash blocks of the API tour's "Try it" section (docs/api.md)."""
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("\n## Try it\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)


def run_readme_examples(workdir: Path, port: int, env: dict[str, str]) -> None:
    """Each example as a user runs it after `make run`, from a checkout (here: a directory
    with the same .venv and .local), only the port changed to the test's free port."""
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    blocks = readme_examples()
    assert len(blocks) >= 3
    for block in blocks:
        script = block.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=workdir,
            env={**env, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{block}\n{done.stdout}\n{done.stderr}"
        if "user.deleted" in block:  # the identity flow ends with the erased user's key
            assert done.stdout.strip().endswith("401"), done.stdout


TICK_S = 3


def assert_a_realtime_digest_arrives_within_two_ticks(base: str, auth: dict, outbox: Path) -> None:
    """The issue's acceptance: with the fixture feeds, a new realtime subscription gets its
    first digest in .local/outbox/ within two ticks of the ticker (no manual tick)."""
    import email
    import email.policy

    before = set(outbox.glob("*.eml"))
    created = httpx.post(
        f"{base}/v1/tracking/subscriptions",
        json={
            "topics": ["wildlife-trade"],
            "custom_keywords": ["pangolin"],
            "frequency": "realtime",
        },
        headers=auth,
        timeout=10,
    )
    assert created.status_code == 201

    def digests() -> list[email.message.Message]:  # other subscriptions get digests too
        new = [
            email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            for path in set(outbox.glob("*.eml")) - before
        ]
        return [m for m in new if "pangolin" in m.get_body(("plain",)).get_content()]

    deadline = time.monotonic() + 2 * TICK_S + 5  # two ticks, plus the run itself
    while time.monotonic() < deadline and not digests():
        time.sleep(0.2)
    (message,) = digests()
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.is_multipart()
    assert {part.get_content_type() for part in message.walk()} >= {"text/plain", "text/html"}


def assert_a_third_party_address_gets_mail_only_as_it_chose(
    base: str, auth: dict, outbox: Path
) -> None:
    """The trust issue's acceptance: a realtime subscription to someone else's address produces
    only the confirmation email until its link is POSTed, then digests (whose List-Unsubscribe
    is one plain <http...> line); after the recipient unsubscribes, nothing, whatever the owner
    does."""
    import email
    import email.policy

    friend = f"friend-{os.getpid()}@example.net"

    def mail_to_friend() -> list[tuple[bytes, email.message.EmailMessage]]:
        found = []
        for path in sorted(outbox.glob("*.eml")):
            raw = path.read_bytes()
            message = email.message_from_bytes(raw, policy=email.policy.default)
            if message["To"] == friend:
                found.append((raw, message))
        return found

    def wait_for(count: int) -> list[tuple[bytes, email.message.EmailMessage]]:
        deadline = time.monotonic() + 2 * TICK_S + 5
        while time.monotonic() < deadline and len(mail_to_friend()) < count:
            time.sleep(0.2)
        return mail_to_friend()

    def post_link(text: str, path: str) -> int:
        link = re.search(rf"http://127\.0\.0\.1:\d+{path}\?token=[A-Za-z0-9_.-]+", text)
        assert link, text
        return httpx.post(
            link.group(), data={"List-Unsubscribe": "One-Click"}, timeout=10
        ).status_code

    url = f"{base}/v1/tracking/subscriptions"
    body = {"topics": ["wildlife-trade"], "frequency": "realtime", "delivery_email": friend}
    created = httpx.post(url, json=body, headers=auth, timeout=10)
    assert created.status_code == 201
    assert created.json()["data"]["delivery_status"] == "pending_confirmation"
    time.sleep(2 * TICK_S + 2)  # two ticks: the runs find the address unconfirmed
    # Only the confirmation; under load it may come after the two ticks (the inline queue can
    # be backing off a task the stalled database left behind).
    [(_, confirmation)] = wait_for(1)
    assert confirmation["Subject"].startswith("Confirm")
    text = confirmation.get_body(("plain",)).get_content()
    assert post_link(text, "/v1/tracking/confirm") == 200

    received = wait_for(2)
    assert len(received) == 2
    raw, digest = received[1]
    assert not digest["Subject"].startswith("Confirm")
    [header] = [line for line in raw.splitlines() if line.lower().startswith(b"list-unsubscribe:")]
    assert re.fullmatch(rb"List-Unsubscribe: <http://[!-~]+>", header), header
    assert raw.splitlines()[raw.splitlines().index(header) + 1][:1] not in (b" ", b"\t")

    stop = digest.get_body(("plain",)).get_content()
    assert post_link(stop, "/v1/tracking/unsubscribe") == 200
    sub_id = created.json()["data"]["id"]
    resumed = httpx.patch(f"{url}/{sub_id}", json={"active": True}, headers=auth, timeout=10)
    assert resumed.json()["data"]["delivery_status"] == "suppressed"
    again = httpx.post(url, json={**body, "topics": ["fur"]}, headers=auth, timeout=10)
    assert again.json()["data"]["delivery_status"] == "suppressed"
    time.sleep(2 * TICK_S + 2)
    assert len(mail_to_friend()) == 2


def assert_imported_records_are_found_by_words_and_meaning(
    base: str, auth: dict, cli_env: dict[str, str], tmp_path: Path
) -> None:
    """The search issue's acceptance: records imported with the admin CLI (one bad row reported
    with its line, the rest loaded) are found by words and by meaning; a paraphrased question
    finds its knowledge passage among the top 5; bad input is a clear 400/404."""

    rows = tmp_path / "campaigns.jsonl"
    rows.write_text(
        json.dumps(
            {
                "id": "camp-e2e-1",
                "title": "Stop the Lindqvist octopus farm",
                "description": "The first commercial octopus farm would raise cephalopods in "
                "tanks for food; the campaign asks regulators to refuse its licence.",
                "status": "active",
                "topics": ["aquaculture"],
            }
        )
        + "\n"
        + json.dumps({"id": "camp-e2e-2", "status": "won"})
        + "\n"
    )
    loaded = admin(cli_env, "import-records", "campaigns", str(rows))
    assert loaded.returncode == 1, loaded.stderr  # one row was rejected...
    assert f"{rows}:2: title: required" in loaded.stderr
    assert json.loads(loaded.stdout)["written"] == 1  # ...and the valid one loaded

    def top(path: str, body: dict, n: int = 3) -> list[str]:
        answer = httpx.post(f"{base}{path}", json=body, headers=auth, timeout=30)
        assert answer.status_code == 200, answer.text
        return [hit.get("id") or hit.get("title") for hit in answer.json()["data"][:n]]

    words = {"query": "Lindqvist octopus", "search_type": "text"}
    meaning = {"query": "farming cephalopods for seafood", "search_type": "semantic"}
    assert top("/v1/search/campaigns", words)[0] == "camp-e2e-1"
    assert "camp-e2e-1" in top("/v1/search/campaigns", meaning)
    assert "camp-e2e-1" in top("/v1/search", {"query": "octopus farm licence"})
    question = {"query": "Could I be prosecuted for secretly recording video in an Iowa hog barn?"}
    titles = top("/v1/knowledge/search", {**question, "limit": 5}, n=5)
    assert any("Iowa" in title for title in titles), titles
    unknown = httpx.post(f"{base}/v1/search/whales", json={"query": "x"}, headers=auth)
    empty = httpx.post(f"{base}/v1/search", json={"query": "", "limit": 51}, headers=auth)
    assert unknown.status_code == 404
    assert empty.status_code == 400
    assert {e["field"] for e in empty.json()["errors"]} == {"query", "limit"}


def assert_the_portal_signs_in_with_the_local_idp(base: str, jwks_port: int) -> None:
    """The portal page's flow over plain HTTP (the browser tests drive it in chromium): the
    local IdP's sign-in form provisions the user and its code + PKCE verifier become an ID
    token the portal API accepts (decision 0030)."""
    import base64
    import hashlib
    from urllib.parse import parse_qs, urlsplit

    config = httpx.get(f"{base}/portal/config.json", timeout=10).json()
    assert config["authorization_endpoint"] == f"http://127.0.0.1:{jwks_port}/authorize"
    verifier = "make-run-portal-verifier-0123456789-abcdefghijklmnop"
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    params = {
        "response_type": "code",
        "client_id": config["client_id"],
        "redirect_uri": f"{base}/portal/",
        "scope": config["scope"],
        "state": "s",
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
    }
    form = httpx.get(config["authorization_endpoint"], params=params, timeout=10)
    assert "Email address" in form.text
    signed_in = httpx.post(
        config["authorization_endpoint"], data={**params, "email": "dev@example.org"}, timeout=10
    )
    code = parse_qs(urlsplit(signed_in.headers["location"]).query)["code"][0]
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": params["redirect_uri"],
        "client_id": config["client_id"],
        "code_verifier": verifier,
    }
    token = httpx.post(config["token_endpoint"], data=exchange, timeout=10).json()["id_token"]
    keys = httpx.get(
        f"{base}/v1/portal/keys", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert keys.status_code == 200, keys.text


def own_key(cli_env: dict[str, str], email: str) -> dict[str, str]:
    """A consumer of its own and its key's header, made with the admin CLI: a step whose
    requests must not meet the demo key's minute, spent by the steps before it."""
    assert admin(cli_env, "create-consumer", "--email", email).returncode == 0
    issued = admin(cli_env, "issue-key", "--email", email)
    assert issued.returncode == 0, issued.stderr
    return {"Authorization": f"Bearer {issued.stdout.strip()}"}


def admin(cli_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The admin CLI from "another shell", against make run's emulator."""
    return subprocess.run(
        [sys.executable, "-m", "admin", *args],
        cwd=ROOT,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


PLANTED = (
    "Watford",
    "Orchard Close",
    "leukaemia",
    "forty-six",
    "twins",
    "Unite",
    "council candidate",
    "priyar1979",
    "gmail",
    "7700 900456",
    "husband",
    "dentist",
    "marathon",
)


def ndjson(response: httpx.Response) -> list[dict]:
    assert response.status_code == 200, response.text
    return streamed_events(response)  # each line checked against its event model


def assert_osint_holds_on_news_wording(base: str, auth: dict, cli_env: dict[str, str]) -> None:
    """Issue 22's acceptance, over HTTP: with a fixture feed that words personal data as real
    news words it, no door shows any of it, and an opt-out holds however the name is written."""
    person = {"firstName": "Priya", "lastName": "Raman", "companyName": "Brightwell Supermarkets"}
    profile = httpx.post(f"{base}/v1/osint/personal-profile", json=person, headers=auth, timeout=60)
    findings = {e["claim"]: e["sourceUrl"] for e in ndjson(profile) if e["type"] == "finding"}
    audit = "Raman said Brightwell Supermarkets would publish its welfare audit in June."
    assert (
        findings[audit]
        == "https://news.example.org/people/protest-at-brightwell-sourcing-chiefs-home"
    )
    employer = httpx.post(
        f"{base}/v1/osint/company-profile",
        json={"companyName": "Brightwell Supermarkets"},
        headers=auth,
        timeout=60,
    )
    ndjson(employer)
    as_company = httpx.post(
        f"{base}/v1/osint/company-profile", json={"companyName": "Priya Raman"}, headers=auth
    )
    assert as_company.status_code == 422
    assert as_company.json()["code"] == "not_an_organization"
    assistant = httpx.post(
        f"{base}/v1/chat/message",
        json={"message": "Investigate Priya Raman as a company"},
        headers=auth,
        timeout=60,
    )
    assert assistant.status_code == 200
    for answer in (profile, employer, as_company, assistant):
        for planted in PLANTED:
            assert planted not in answer.text, (planted, answer.request.url)

    def optout(*args: str) -> None:
        done = admin(cli_env, "osint-optout", *args)
        assert done.returncode == 0, done.stderr

    optout("add", "--name", "Priya Raman-Shah")
    try:
        for first, last in (
            ("priya", "raman-shah"),
            ("Priya", "Raman Shah"),
            ("Priya Anne", "Raman-Shah"),
            ("Priya", "Raman-Shah Said"),
            ("Príya", "Ráman-Shah"),
        ):
            refused = httpx.post(
                f"{base}/v1/osint/personal-profile",
                json={"firstName": first, "lastName": last},
                headers=auth,
            )
            assert refused.status_code == 403, (first, last, refused.text)
            assert refused.json()["code"] == "subject_opted_out"
            company = httpx.post(
                f"{base}/v1/osint/company-profile",
                json={"companyName": f"{first} {last}"},
                headers=auth,
            )
            assert company.status_code == 403, (first, last, company.text)
    finally:
        optout("remove", "--name", "Priya Raman-Shah")


HIDDEN_IN_FEED = ("CANCER", "Chemotherapy", "anxiety", "Copper Kettle", "Mill Street")


def assert_every_door_knows_who_it_is_about(base: str, cli_env: dict[str, str]) -> None:
    """Issue 42's acceptance, over HTTP: a surname at the company door profiles no one; a
    profile whose feed words personal data in capitals, lower case, the next sentence and as
    whereabouts shows none of it and keeps the professional fact; no hidden character from a
    feed reaches a response; an opted-out person is refused at the person door, absent from
    research and refused as a tracking keyword, all free."""
    import unicodedata

    assert admin(cli_env, "create-consumer", "--email", "doors@example.org").returncode == 0
    issued = admin(cli_env, "issue-key", "--email", "doors@example.org")
    assert issued.returncode == 0, issued.stderr
    auth = {"Authorization": f"Bearer {issued.stdout.strip()}"}

    def brightwell() -> httpx.Response:
        return httpx.post(
            f"{base}/v1/research/topics",
            json={"customKeywords": ["Brightwell Supermarkets"], "limit": 20},
            headers=auth,
            timeout=60,
        )

    for name in ("Raman", "Raman & Co", "Raman and"):
        refused = httpx.post(
            f"{base}/v1/osint/company-profile", json={"companyName": name}, headers=auth
        )
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["code"] == "not_an_organization"
    person = {"firstName": "Priya", "lastName": "Raman", "companyName": "Brightwell Supermarkets"}
    profile = httpx.post(f"{base}/v1/osint/personal-profile", json=person, headers=auth, timeout=60)
    claims = [e["claim"] for e in ndjson(profile) if e["type"] == "finding"]
    assert any("cage-free egg figures to investors" in claim for claim in claims), claims
    assert "Raman said the chain\u2019s egg audit would be published in the spring." in claims
    research = brightwell()
    assert [e for e in ndjson(research) if e["type"] == "item"]
    for answer in (profile, research):
        for hidden in HIDDEN_IN_FEED:
            assert hidden not in answer.text, (hidden, answer.url)
        assert not [c for c in answer.text if unicodedata.category(c) == "Cf"], answer.url

    billed, _ = usage_of(base, auth, "research.topics")
    assert admin(cli_env, "osint-optout", "add", "--name", "Priya Raman").returncode == 0
    try:
        refused = httpx.post(f"{base}/v1/osint/personal-profile", json=person, headers=auth)
        assert refused.status_code == 403
        assert refused.json()["code"] == "subject_opted_out"
        for keywords in (["Priya Raman"], ["P. Raman"]):
            for path, body in (
                ("/v1/research/topics", {"customKeywords": keywords}),
                ("/v1/tracking/subscriptions", {"custom_keywords": keywords}),
            ):
                answer = httpx.post(f"{base}{path}", json=body, headers=auth, timeout=30)
                assert answer.status_code == 403, (path, keywords, answer.text)
                assert answer.json()["code"] == "subject_opted_out"
        research = brightwell()
        assert [e for e in ndjson(research) if e["type"] == "item"]
        assert "Raman" not in research.text
        assert "Priya" not in research.text
        assert usage_of(base, auth, "research.topics")[0] == billed + 1  # refusals are free
    finally:
        assert admin(cli_env, "osint-optout", "remove", "--name", "Priya Raman").returncode == 0


def usage_of(base: str, auth: dict, operation: str) -> tuple[int, int]:
    """(requests billed, requests answered but not billed) of one operation this month."""
    bill = httpx.get(f"{base}/v1/usage", headers=auth, timeout=10).json()
    line = next((o for o in bill["operations"] if o["operation"] == operation), None)
    return (line["requests"], line["unbilled_requests"]) if line else (0, 0)


def assert_billing_is_for_value_delivered(base: str, auth: dict, cli_env: dict[str, str]) -> None:
    """Issue 24's acceptance, over HTTP (decision 0039): realtime runs with nothing new cost
    nothing and say so in the usage API; small talk is free; an uncovered content topic is 422
    and free; a stream cut right after its first item is billed once. (A profile with no
    finding: the emulator tests.)"""
    billed, free = usage_of(base, auth, "tracking.research_run")
    time.sleep(4 * TICK_S + 2)  # at least three ticks with nothing new (usage reads count
    # against the rate limit, so they are not polled)
    now_billed, now_free = usage_of(base, auth, "tracking.research_run")
    assert now_free >= free + 3  # ticks ran and found nothing new ...
    assert now_billed == billed  # ... and cost nothing

    # A consumer of its own for the rest: the demo key's minute is spent by the other checks.
    assert admin(cli_env, "create-consumer", "--email", "billing@example.org").returncode == 0
    issued = admin(cli_env, "issue-key", "--email", "billing@example.org")
    assert issued.returncode == 0, issued.stderr
    auth = {"Authorization": f"Bearer {issued.stdout.strip()}"}
    chat = usage_of(base, auth, "chat.message")
    hello = httpx.post(
        f"{base}/v1/chat/message",
        json={"message": "Hi there! How are you today?"},
        headers=auth,
        timeout=30,
    )
    assert hello.status_code == 200
    assert usage_of(base, auth, "chat.message") == (chat[0], chat[1] + 1)

    content = usage_of(base, auth, "content.generate")
    # decision 0067: a topic the guides have nothing on is not covered, and costs nothing
    uncovered = httpx.post(
        f"{base}/v1/content/generate",
        json={"topic": "quantum chromodynamics of gluons"},
        headers=auth,
        timeout=60,
    )
    assert uncovered.status_code == 422
    assert uncovered.json()["code"] == "topic_not_covered"
    assert usage_of(base, auth, "content.generate") == content  # an error: neither billed nor noted

    research = usage_of(base, auth, "research.topics")
    body = {"topics": ["cage-free"], "customKeywords": ["hens"], "limit": 5}
    url = f"{base}/v1/research/topics"
    with httpx.stream("POST", url, json=body, headers=auth, timeout=60) as stream:
        for line in stream.iter_lines():
            if line and json.loads(line)["type"] == "item":
                break  # hang up with the first item in hand
    for _ in range(5):  # settled when the server came back for the next chunk
        if usage_of(base, auth, "research.topics") != research:
            break
        time.sleep(1)
    assert usage_of(base, auth, "research.topics") == (research[0] + 1, research[1])


def assert_assistants_use_the_tools_over_mcp(base: str, cli_env: dict[str, str]) -> None:
    """Issue 28's acceptance: the official MCP client, in both eras, lists the tools (each
    described, each with an object input schema); a search tool call returns records and is
    billed once as search.query, listing is not billed; a bad key is 401 naming where to sign
    in; bad arguments and a company investigation of a person's name are unbilled tool
    errors (the OSINT screen of the REST route)."""
    from tests.e2e.test_mcp_client import connect

    # a consumer of its own: the demo key spent its minute's requests on the steps before
    issued = admin(cli_env, "issue-key", "--email", "assistant@example.org")
    assert issued.returncode == 0, issued.stderr
    key = issued.stdout.strip()
    auth = {"Authorization": f"Bearer {key}"}
    profiles = usage_of(base, auth, "osint.company_profile")
    for mode in ("legacy", "auto"):
        before = usage_of(base, auth, "search.query")[0]

        async def work(client: Any) -> tuple[Any, Any, Any, Any]:
            listed = await client.list_tools()
            billed_after_listing = usage_of(base, auth, "search.query")[0]
            found = await client.call_tool("search_records", {"query": "cage-free eggs"})
            bad = await client.call_tool("search_records", {"query": "eggs", "limit": 0})
            person = await client.call_tool("investigate_company", {"companyName": "Jane Smith"})
            return listed, billed_after_listing, found, (bad, person)

        listed, billed_after_listing, found, (bad, person) = connect(base, key, mode, work)
        assert listed.tools
        for tool in listed.tools:
            assert tool.description
            assert tool.input_schema["type"] == "object"
        assert billed_after_listing == before  # listing is free
        assert not found.is_error
        assert found.structured_content["data"], "the search tool returns records"
        assert bad.is_error
        assert person.is_error
        assert "not_an_organization" in person.content[0].text
        assert usage_of(base, auth, "search.query")[0] == before + 1, mode
    assert usage_of(base, auth, "osint.company_profile") == profiles  # refused: not billed
    refused = httpx.post(
        f"{base}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": "Bearer ars_live_" + "0" * 38},
        timeout=10,
    )
    assert refused.status_code == 401
    assert "resource_metadata=" in refused.headers["WWW-Authenticate"]


def assert_a_stalled_database_gives_quick_answers_and_loses_nothing(
    base: str, cli_env: dict[str, str], emulator_port: int
) -> None:
    """Issue 27's acceptance: the emulator stopped (SIGSTOP) for 8 s under 12 concurrent keyed
    requests: each answers, none is a 500 or slower than 20 s; /health answers within 3 s;
    after it continues the service recovers within 30 s with every subscription there."""
    from concurrent.futures import ThreadPoolExecutor

    # A consumer of its own, with a subscription to keep: the demo key's minute may be spent
    # by the steps before (a 429 here once read as a listing without "data"). Its requests,
    # recovery polls included, stay under the 60 a minute.
    auth = own_key(cli_env, "stall@example.org")
    url = f"{base}/v1/tracking/subscriptions"
    saved = httpx.post(url, json={"topics": ["fur"]}, headers=auth, timeout=10)
    assert saved.status_code == 201, saved.text
    listing = httpx.get(url, headers=auth, timeout=10)
    assert listing.status_code == 200, listing.text
    before = {s["id"] for s in listing.json()["data"]}
    assert saved.json()["data"]["id"] in before
    (pid,) = {int(line.split()[0]) for line in running(f"--port={emulator_port}")}

    def keyed(_: int) -> tuple[int, float]:
        started = time.monotonic()
        status = httpx.get(url, headers=auth, timeout=30).status_code
        return status, time.monotonic() - started

    os.kill(pid, signal.SIGSTOP)
    try:
        stalled_at = time.monotonic()
        with ThreadPoolExecutor(12) as pool:
            answers = pool.map(keyed, range(12))
            started = time.monotonic()
            health = httpx.get(f"{base}/health", timeout=10).status_code
            health_s = time.monotonic() - started
            answers = list(answers)
        time.sleep(max(0.0, 8 - (time.monotonic() - stalled_at)))
    finally:
        os.kill(pid, signal.SIGCONT)
    continued = time.monotonic()
    assert all(status in (200, 502, 503) for status, _ in answers), answers
    assert max(seconds for _, seconds in answers) < 20, answers
    assert health in (200, 502), health
    assert health_s < 3, health_s
    while True:
        answer = httpx.get(url, headers=auth, timeout=10)
        if answer.status_code == 200:
            break
        assert time.monotonic() - continued < 30, answer.text
        time.sleep(1)
    assert before <= {s["id"] for s in answer.json()["data"]}


def test_run_serves_keeps_data_and_stops_cleanly(tmp_path: Path):
    port, emulator_port, jwks_port, feed_port = (free_port() for _ in range(4))
    env = {
        **os.environ,
        "PORT": str(port),
        "EMULATOR_PORT": str(emulator_port),
        "JWKS_PORT": str(jwks_port),
        "FEED_PORT": str(feed_port),
        "LOCAL_TICK_S": str(TICK_S),
        "LOCAL_DIR": str(tmp_path / ".local"),
        "ENVIRONMENT": "local",
        # the opt-out list changed by the CLI shows in research at once (decision 0058)
        "OSINT_OPTOUT_CACHE_SECONDS": "0",
    }
    env.pop("FIRESTORE_EMULATOR_HOST", None)
    base = f"http://127.0.0.1:{port}"

    process, key = start(env)
    wait_healthy(base)
    run_readme_examples(tmp_path, port, env)
    assert_the_portal_signs_in_with_the_local_idp(base, jwks_port)
    auth = {"Authorization": f"Bearer {key}"}
    created = httpx.post(
        f"{base}/v1/tracking/subscriptions", json={"topics": ["fur"]}, headers=auth, timeout=10
    )
    assert created.status_code == 201
    # The admin CLI from "another shell" reaches the same emulator with no extra setup.
    cli_env = {k: v for k, v in env.items() if k != "LOCAL_DIR"}
    listed = admin(cli_env, "list-keys", "--email", "demo@example.org")
    assert listed.returncode == 0, listed.stderr
    assert '"name": "demo"' in listed.stdout
    assert_a_realtime_digest_arrives_within_two_ticks(base, auth, tmp_path / ".local" / "outbox")
    assert_billing_is_for_value_delivered(base, auth, cli_env)
    assert_imported_records_are_found_by_words_and_meaning(base, auth, cli_env, tmp_path)
    assert_osint_holds_on_news_wording(base, auth, cli_env)
    assert_every_door_knows_who_it_is_about(base, cli_env)
    assert_assistants_use_the_tools_over_mcp(base, cli_env)
    assert_a_stalled_database_gives_quick_answers_and_loses_nothing(base, cli_env, emulator_port)
    # The server's log is where the README says: its JSON lines in .local/server.log.
    assert '"message": "request"' in (tmp_path / ".local" / "server.log").read_text()
    # its own consumer: the demo key's minute may be spent by the steps before (a 429)
    assert_a_third_party_address_gets_mail_only_as_it_chose(
        base, own_key(cli_env, "trust@example.org"), tmp_path / ".local" / "outbox"
    )
    answer = httpx.get(f"{base}/v1/tracking/subscriptions", headers=auth, timeout=10)
    assert answer.status_code == 200, (answer.status_code, answer.headers, answer.text)
    kept = answer.json()
    # The restricted databases (decision 0051) are saved and loaded with the main one.
    assert admin(cli_env, "osint-optout", "add", "--name", "Kept Overnight").returncode == 0
    out = stop(process, signal.SIGINT)
    assert process.returncode == 0, out
    assert not running(f"--port={emulator_port}")
    assert not running(f"--port={port}")

    process, new_key = start(env)  # the data survives a restart; the old demo key is revoked
    wait_healthy(base)
    listed = httpx.get(
        f"{base}/v1/tracking/subscriptions",
        headers={"Authorization": f"Bearer {new_key}"},
        timeout=10,
    ).json()
    assert [s["id"] for s in listed["data"]] == [s["id"] for s in kept["data"]]
    assert created.json()["data"]["id"] in [s["id"] for s in listed["data"]]
    listed_optouts = admin(cli_env, "osint-optout", "list")
    assert "Kept Overnight" in listed_optouts.stdout, listed_optouts
    assert (
        httpx.get(f"{base}/v1/tracking/subscriptions", headers=auth, timeout=10).status_code == 401
    )
    stop(process, signal.SIGTERM)
    assert not running(f"--port={emulator_port}")
    assert not running(f"--port={port}")
