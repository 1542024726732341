"""Property-based contract test: schemathesis drives every operation of /openapi.json against
the running server. No response may be a 5xx, every response must match its documented schema,
status and content type, and every response must carry x-correlation-id."""

from __future__ import annotations

import uuid

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from common.accounts import keys
from common.accounts.keys import verify
from common.adapters.firestore import CONSUMERS, get_db
from tests.e2e.conftest import issue_key

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def api_schema(server):
    loaded = schemathesis.openapi.from_url(f"{server}/openapi.json")
    # Both schema-valid data (must be accepted) and invalid data (must be a 4xx, never a 5xx).
    # The key is sent by the test, never generated: a case the fuzzer meant to send without a
    # key must not become a keyed request (authentication has tests of its own, and the
    # fuzzer's "ignored auth" check still probes every operation without the key).
    loaded.config.generation.update(
        modes=list(schemathesis.GenerationMode), with_security_parameters=False
    )
    # A body past MAX_BODY_BYTES is refused before it is read, with 413 rather than 400: an
    # invalid case can be megabytes of items past a maxItems (2.9 MB to /webhooks/sendgrid).
    loaded.config.checks.negative_data_rejection.expected_statuses.append("413")
    return loaded


@pytest.fixture(scope="module")
def api_key(emulator):
    """A key whose consumer may make far more requests than the fuzzer sends, so every case
    reaches its operation instead of a 429."""
    key = issue_key(emulator, f"fuzz-{uuid.uuid4().hex[:8]}@example.org")
    consumer_id = verify(key).consumer_id
    get_db().collection(CONSUMERS).document(consumer_id).update({"rate_limit": [100_000, 60]})
    keys.clear_cache()
    return key


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
# derandomize: the same examples on every run, so CI never flakes on a new random draw.
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_contract(case, api_key):
    # Rules JSON Schema cannot state make some schema-valid queries rightly 400: a cursor and a
    # pause-link token are opaque (only one the API issued is valid), and a usage period must
    # run forwards and span at most 366 days. The emulator tests check those rules; for such cases
    # the fuzzer skips only the "valid data must be accepted" check.
    # A pause token is signed: only one the service issued is valid.
    cross_field = bool(case.query and {"cursor", "from", "to", "token"} & set(case.query))
    # An Idempotency-Key may be reused only with the same request: the fuzzer draws the same
    # few keys for different bodies, which is rightly 422 idempotency_key_reused.
    cross_field |= bool(case.headers and "Idempotency-Key" in case.headers)
    # Whether the knowledge corpus covers a topic is not a rule of the schema: a valid topic
    # such as "0" is rightly 422 topic_not_covered (the content tests check both outcomes).
    cross_field |= case.path == "/v1/content/generate"
    # Whether a name is an organisation's is not a rule of the schema either: a valid name such
    # as "0" or "Whitfield" is rightly 422 not_an_organization (decision 0058).
    cross_field |= case.path == "/v1/osint/company-profile"
    # Nor whether an activity or a place is one the legal guides know: a valid prompt such as
    # "0" is rightly 422 activity_not_recognised (decision 0068).
    cross_field |= case.path == "/v1/legal/guidance"
    # A search filter must name a field of the tables searched (the description says so; the
    # schema lists every table's fields): a filter on another table's field is rightly 400.
    searched = case.path.startswith("/v1/search") and isinstance(case.body, dict)
    cross_field |= searched and bool(case.body.get("filters"))
    response = case.call_and_validate(
        headers={"Authorization": f"Bearer {api_key}"},
        excluded_checks=[positive_data_acceptance] if cross_field else None,
    )
    assert response.headers.get("x-correlation-id"), "every response carries x-correlation-id"
