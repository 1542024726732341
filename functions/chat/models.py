"""Request and response models of the chat group (spec §4.3, DESIGN.md §3 "Chat")."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from pydantic import BaseModel, ConfigDict, Field

from common.fields import Citation, Input
from common.http.streams import Event
from common.language.safety import NOT_BLANK
from common.offline.intents import Intent  # the intents, defined beside the model's schemas

MAX_HISTORY = 50


def is_intent(label: str) -> TypeGuard[Intent]:
    return label in get_args(Intent)


class ChatMessage(Input):
    role: Literal["user", "assistant"] = Field(description="user or assistant (no system).")
    content: str = Field(min_length=1, max_length=5000)


class MessageRequest(Input):
    message: str = Field(min_length=1, max_length=5000, pattern=NOT_BLANK)
    history: list[ChatMessage] = Field(
        default_factory=list, max_length=MAX_HISTORY, description="Earlier turns, oldest first."
    )


class Source(BaseModel):
    title: str
    url: str | None


CITATIONS = (
    "One per factual sentence or record line of the reply, with the source that holds it "
    "(decision 0042); empty for a reply that quotes nothing."
)


class MessageResponse(BaseModel):
    response: str
    intent: Intent
    sources: list[Source] = Field(
        default_factory=list,
        description="The knowledge-base documents or records the reply used; empty when none.",
    )
    citations: list[Citation] = Field(default_factory=list, description=CITATIONS)


class ChatDelta(Event):
    """A piece of the reply's text (server-sent event ``delta``)."""

    type: Literal["delta"] = "delta"
    text: str


class ChatDone(Event):
    """The whole reply, once it is complete (``done``)."""

    type: Literal["done"] = "done"
    intent: Intent
    response: str
    sources: list[Source]
    citations: list[Citation] = Field(default_factory=list, description=CITATIONS)


class ChatError(Event):
    """The provider failed after the first piece (``error``, a problem object): not billed."""

    type: Literal["error"] = "error"
    code: str
    status: int
    detail: str


CHAT_EVENTS = (ChatDelta, ChatDone, ChatError)


class IntentRequest(Input):
    message: str = Field(min_length=1, max_length=2000)


class IntentResponse(BaseModel):
    intent: Intent
    extractedInfo: dict[str, str | list[str]] = Field(
        description="Entities found for the intent; keys appear only when found."
    )
    confidence: float = Field(ge=0, le=1)


class SummarizeRequest(Input):
    messages: list[ChatMessage] = Field(min_length=2, max_length=200)


class SummarizeResponse(BaseModel):
    summary: str


class ExtractMemoryRequest(Input):
    messages: list[ChatMessage] = Field(min_length=4, max_length=200)
    conversationId: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="Calling again with the same id replaces that conversation's memory.",
    )


class Memory(BaseModel):
    organization: str | None = Field(None, max_length=100)
    role: str | None = Field(None, max_length=100)
    causeAreas: list[str] = Field(default_factory=list, max_length=20)
    researchTopics: list[str] = Field(default_factory=list, max_length=20)
    preferences: list[str] = Field(default_factory=list, max_length=20)


class ExtractMemoryResponse(BaseModel):
    memory: Memory
    conversationId: str


class MemoryView(BaseModel):
    memory: Memory = Field(description="What is remembered, merged over conversations.")
    conversations: int


class MemoryDeleted(BaseModel):
    deleted: bool
    conversations: int


# What the provider must answer (JSON schema response format). Every field is required and
# nullable, as strict structured outputs want.
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExtractedFields(Strict):
    contentType: str | None
    platform: str | None
    topic: str | None
    companyName: str | None
    focus: str | None
    personName: str | None
    role: str | None
    activity: str | None
    jurisdiction: str | None
    topics: list[str] | None
    keywords: list[str] | None
    frequency: Literal["daily", "weekly", "realtime"] | None


class IntentReply(Strict):
    intent: Intent
    extractedInfo: ExtractedFields
    confidence: float = Field(ge=0, le=1)


class SummaryReply(Strict):
    summary: str = Field(max_length=2000)


class MemoryReply(Strict):
    organization: str | None
    role: str | None
    causeAreas: list[str]
    researchTopics: list[str]
    preferences: list[str]
