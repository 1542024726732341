"""HTTP routes of the search group: the tables, by words, by meaning or both."""

from __future__ import annotations

from typing import Any

from common.http import Call, Route
from functions.search import service
from functions.search.models import (
    TABLE_NAMES,
    AllTablesRequest,
    SearchHit,
    SearchRequest,
    SearchResults,
    SearchType,
    TablePath,
)


def search_all(call: Call[AllTablesRequest]) -> SearchResults:
    body = call.body
    tables = [service.table(name) for name in (body.tables or TABLE_NAMES)]
    hits = service.search(tables, body.query, body.search_type, body.limit, body.filters)
    call.billed = bool(hits)  # a search that found nothing is not billed (decision 0039)
    return _results(hits, body.search_type)


def search_table(call: Call[SearchRequest, None, TablePath]) -> SearchResults:
    body = call.body
    table = service.table(call.path.table)
    hits = service.search([table], body.query, body.search_type, body.limit, body.filters)
    call.billed = bool(hits)
    return _results(hits, body.search_type)


def _results(hits: list[dict[str, Any]], search_type: SearchType) -> SearchResults:
    data = [SearchHit.model_validate(hit) for hit in hits]
    return SearchResults(data=data, total=len(data), searchType=search_type)


_DESCRIPTION = (
    "search_type text matches words (stemmed, any of them; more and rarer matched words and "
    "words in the title rank higher); semantic finds records close in meaning (vector search); "
    "hybrid (default) fuses both rankings by reciprocal rank. Results carry the whole record."
)

ROUTES = (
    Route(
        method="POST",
        path="/v1/search",
        handler=search_all,
        operation_id="searchAllTables",
        summary="Search every table (or those listed in tables)",
        tag="Search",
        body=AllTablesRequest,
        response=SearchResults,
        price="search.query",
        description=_DESCRIPTION,
    ),
    Route(
        method="POST",
        path="/v1/search/{table}",
        handler=search_table,
        operation_id="searchTable",
        summary="Search one table: campaigns, organizations, public_figures, actions, content",
        tag="Search",
        body=SearchRequest,
        path_params=TablePath,
        response=SearchResults,
        price="search.query",
        errors=(404,),
        description=_DESCRIPTION + " An unknown table is 404.",
    ),
)
