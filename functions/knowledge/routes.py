"""HTTP routes of the knowledge group: search the advocacy knowledge corpus."""

from __future__ import annotations

from common.http import Call, Route, Tool
from functions.knowledge import service
from functions.knowledge.models import KnowledgeRequest, KnowledgeResults, Passage


def search_knowledge(call: Call[KnowledgeRequest]) -> KnowledgeResults:
    body = call.body
    hits = service.search(body.query, body.limit, body.tags, kind="search")
    data = [Passage.model_validate(hit) for hit in hits]
    call.billed = bool(data)  # a search that found nothing is not billed (decisions 0039, 0067)
    return KnowledgeResults(data=data, total=len(data), message=None if data else NOTHING)


NOTHING = (
    "No passage of the knowledge base answers this closely enough (the relevance judge scores "
    "every candidate below 0.3); this search is not billed. Try other words, or a topic the "
    "guides cover."
)


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
        description="Semantic (vector) and word search over the corpus's passages; the "
        "relevance judge scores every candidate (score: the probability that it answers), and "
        "none below 0.3 is returned: a search nothing answers is data [] and free. Word "
        "search counts an everyday word as the corpus's word for the same "
        'thing ("jail" finds "imprisonment"). Each passage cites its document\'s title, URL and '
        "section.",
        warm="common.retrieval:warm",
    ),
)
