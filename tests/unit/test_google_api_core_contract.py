"""The private attributes of google-api-core and the Firestore client that
``common.adapters.firestore._bound_rpc_deadlines`` rewrites (decision 0004) still exist and still
take effect. An upgrade that renames them would otherwise silently bring back the 60 s default retry
(the lock, requirements-lock.txt, pins the versions; this test guards its regeneration)."""

from __future__ import annotations

import pytest
from google.api_core import exceptions, retry
from google.api_core.gapic_v1.method import _GapicCallable
from google.auth.credentials import AnonymousCredentials

from common.adapters.firestore import _TIMEOUTS, _bound_rpc_deadlines


@pytest.fixture
def client(monkeypatch):
    from google.cloud import firestore

    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)  # the production client
    # No connection is made until an RPC: nothing here reaches a network.
    return firestore.Client(project="demo-contract", credentials=AnonymousCredentials())


def test_the_transport_keeps_its_wrapped_methods(client):
    transport = client._firestore_api._transport
    wrapped = transport._wrapped_methods
    assert isinstance(wrapped, dict)
    names = set()
    for method in wrapped:  # gRPC multi-callables; their _method is the RPC's path
        raw = getattr(method, "_method", None) or method.__name__
        names.add((raw.decode() if isinstance(raw, bytes) else str(raw)).rsplit("/", 1)[-1])
    assert {"Commit", "RunQuery", "BatchGetDocuments", "BeginTransaction"} <= names
    for callable_ in wrapped.values():
        assert isinstance(callable_, _GapicCallable)
        assert hasattr(callable_, "_retry")
        assert hasattr(callable_, "_timeout")


def test_the_rewrite_bounds_every_default_retry_and_timeout(client):
    transport = client._firestore_api._transport
    before = [c._retry for c in transport._wrapped_methods.values() if c._retry is not None]
    assert before, "no method has a default retry any more: the rewrite has nothing to do"
    assert any(r.timeout and r.timeout > 5 for r in before)  # the 60 s it exists to cap
    _bound_rpc_deadlines(client, 2.5)
    for callable_ in transport._wrapped_methods.values():
        assert callable_._timeout == 2.5
        if callable_._retry is not None:
            assert isinstance(callable_._retry, retry.Retry)
            assert callable_._retry.timeout == 2.5


def test_the_exception_names_the_error_mapping_relies_on_exist():
    for name in _TIMEOUTS | {"Aborted", "GoogleAPIError"}:
        assert hasattr(exceptions, name) or hasattr(retry, name), name


def test_the_query_stream_request_is_built_from_the_names_stream_documents_uses(client):
    """``common.adapters.firestore.stream_documents`` sends the request ``Query.stream`` sends,
    built from the query's private helpers and the client's routing metadata."""
    from google.cloud.firestore_v1.base_query import FieldFilter
    from google.cloud.firestore_v1.types import query as query_types

    active = FieldFilter("active", "==", True)
    query = client.collection("subscriptions").where(filter=active).select(["a"])
    assert query._client is client
    parent, _ = query._parent._parent_info()
    assert parent == "projects/demo-contract/databases/(default)/documents"
    assert isinstance(query._to_protobuf(), query_types.StructuredQuery)
    assert ("google-cloud-resource-prefix", "projects/demo-contract/databases/(default)") in (
        client._rpc_metadata
    )


def test_the_streaming_channel_reads_on_the_callers_thread_with_bounded_deadlines(
    client, settings_env
):
    """The dispatcher's query streams go through their own channel, built from the client's
    target and credentials, with gRPC's single-threaded unary-stream calls (decision 0036)."""
    from grpc._channel import _SingleThreadedUnaryStreamMultiCallable

    from common.adapters import firestore

    settings_env(FIRESTORE_TIMEOUT_S="2.5")
    assert client._emulator_host is None  # the production branch: a secure channel
    assert client._target == "firestore.googleapis.com"
    assert client._credentials is not None
    api = firestore._build_streaming_api(client)
    raw = api._transport.run_query
    assert isinstance(raw, _SingleThreadedUnaryStreamMultiCallable)
    assert api._transport._wrapped_methods[raw]._timeout == 2.5
