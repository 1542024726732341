"""HTTP routes of the knowledge group: search the advocacy knowledge corpus."""

from __future__ import annotations

from common.http import Call, Route, Tool
from functions.knowledge import service
from functions.knowledge.models import KnowledgeRequest, KnowledgeResults, Passage


def search_knowledge(call: Call[KnowledgeRequest]) -> KnowledgeResults:
    body = call.body
    hits = service.search(body.query, body.limit, body.tags)
    data = [Passage.model_validate(hit) for hit in hits]
    call.billed = bool(data)  # a search that found nothing is not billed (decision 0039)
    return KnowledgeResults(data=data, total=len(data))


ROUTES = (
    Route(
        method="POST",
        path="/v1/knowledge/search",
        handler=search_knowledge,
        operation_id="searchKnowledge",
        tools=(Tool("search_knowledge", read_only=True, idempotent=True),),
        summary="Find the passages of the knowledge corpus that answer a question",
        tag="Knowledge",
        body=KnowledgeRequest,
        response=KnowledgeResults,
        price="knowledge.search",
        capacity="search",
        description="Semantic (vector) and word search over the corpus's passages, fused by "
        "reciprocal rank. Word search counts an everyday word as the corpus's word for the same "
        'thing ("jail" finds "imprisonment"). Each passage cites its document\'s title, URL and '
        "section.",
        warm="common.retrieval:warm",
    ),
)
