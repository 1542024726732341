"""HTTP routes of the knowledge group: search the advocacy knowledge corpus."""

from __future__ import annotations

from common.http import Call, Route, Tool
from common.search import relevance
from functions.knowledge import service
from functions.knowledge.models import KnowledgeRequest, KnowledgeResults, Passage


def search_knowledge(call: Call[KnowledgeRequest]) -> KnowledgeResults:
    body = call.body
    found = service.searched(body.query, body.limit, body.tags)
    data = [Passage.model_validate(hit) for hit in relevance.shown(found.hits)]
    answered = found.answered
    call.billed = answered  # billed when a passage answers (decisions 0039, 0067)
    message = OUTSIDE if found.outside else None if answered else NEAREST if data else NOTHING
    return KnowledgeResults(data=data, total=len(data), message=message)


NOTHING = (
    "No passage of the knowledge base holds a word of this query or answers it (none scores "
    f"{relevance.SHOWN_FLOOR} or more); this search is not billed. Try other words, or a topic "
    "the guides cover."
)
OUTSIDE = (
    "This query is about another field than animal advocacy, which the knowledge base covers: "
    "nothing is returned and this search is not billed. Ask about an animal, a practice, a law "
    "or a campaign."
)
NEAREST = (
    "No passage answers this closely (see score): a search answers when "
    f"{relevance.ANSWERS}. These are the nearest found, and this search is not billed."
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
        description="Semantic (vector) and word search over the corpus's passages, in the order "
        "retrieval ranks them; the relevance judge scores each (score: the probability that "
        f"it answers). A search is billed when {relevance.ANSWERS}; "
        "otherwise the "
        "nearest passages come with a message and it is free, and a query no passage holds a "
        "word of and none answers, or one about another field altogether (a recipe, a mortgage), "
        "gets data [] with a message (free). Word "
        "search counts an everyday word as the corpus's word for the same "
        'thing ("jail" finds "imprisonment"). Each passage cites its document\'s title, URL and '
        "section.",
        warm="common.search.retrieval:warm",
    ),
)
