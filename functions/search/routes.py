"""HTTP routes of the search group: the tables, by words, by meaning or both."""

from __future__ import annotations

from typing import Any

from common.http import Call, Route, Tool
from common.search import relevance
from functions.search import service
from functions.search.models import (
    TABLE_NAMES,
    AllTablesRequest,
    SearchHit,
    SearchRequest,
    SearchResults,
    TablePath,
)


def search_all(call: Call[AllTablesRequest]) -> SearchResults:
    tables = [service.table(name) for name in (call.body.tables or TABLE_NAMES)]
    return _search(call, tables)


def search_table(call: Call[SearchRequest, None, TablePath]) -> SearchResults:
    return _search(call, [service.table(call.path.table)])


def _search(call: Call[Any, Any, Any], tables: list[Any]) -> SearchResults:
    body: SearchRequest = call.body
    found = service.search_results(
        tables,
        body.query,
        body.search_type,
        body.limit,
        body.filters,
        hybrid_weight=body.hybrid_weight,
        min_score=body.min_score,
    )
    answered = found.answered
    hits = relevance.shown(found.hits) if found.words or answered else []
    data = [SearchHit.model_validate(hit) for hit in hits]
    call.billed = answered  # billed when a record answers (decisions 0039, 0067)
    return SearchResults(
        data=data,
        total=len(data),
        searchType=body.search_type,
        degraded=found.degraded,
        message=OUTSIDE if found.outside else None if answered else NEAREST if data else NOTHING,
    )


NOTHING = (
    "No record holds a word of this query or answers it (none scores min_score, or "
    f"{relevance.SHOWN_FLOOR}); this search is not billed. Try other words or fewer filters."
)
OUTSIDE = (
    "This query is about another field than animal advocacy, which the records cover: nothing "
    "is returned and this search is not billed. Name the company, person, campaign or issue "
    "you are looking for."
)
NEAREST = (
    "No record answers this closely (see score): a search answers when "
    f"{relevance.RECORD_ANSWERS}. These are the nearest found, and this search is not billed."
)


_DESCRIPTION = (
    "search_type text matches words (stemmed, any of them; BM25: more and rarer matched words "
    "and words in the title rank higher); semantic finds records close in meaning (vector "
    "search); hybrid (default) fuses both rankings by reciprocal rank, weighted by "
    "hybrid_weight (0 words only, 1 meaning only). The relevance judge scores every result "
    "(score: the probability that it answers the query); results keep retrieval's order and "
    f"min_score leaves out those below it. A search is billed when {relevance.RECORD_ANSWERS}; "
    "otherwise the nearest come with a message and it is free, and "
    "a query no record "
    "holds a word of and none answers, or one about another field altogether (a recipe, a "
    "mortgage) that names no animal and no word of a record's name, gets data [] with a "
    "message (free). A "
    "search that runs out of its time budget answers with what finished (degraded: true). "
    "Results carry the whole record."
)

ROUTES = (
    Route(
        method="POST",
        path="/v1/search",
        handler=search_all,
        operation_id="searchAllTables",
        tools=(Tool("search_records", read_only=True, idempotent=True),),
        summary="Search every table (or those listed in tables)",
        tag="Search",
        body=AllTablesRequest,
        response=SearchResults,
        price="search.query",
        capacity="search",
        description=_DESCRIPTION,
        warm="common.search.retrieval:warm",
    ),
    Route(
        method="POST",
        path="/v1/search/{table}",
        handler=search_table,
        operation_id="searchTable",
        tools=(Tool("search_table", read_only=True, idempotent=True),),
        summary="Search one table: campaigns, organizations, public_figures, actions, content",
        tag="Search",
        body=SearchRequest,
        path_params=TablePath,
        response=SearchResults,
        price="search.query",
        capacity="search",
        errors=(404,),
        description=_DESCRIPTION + " An unknown table is 404.",
        warm="common.search.retrieval:warm",
    ),
)
