"""Request and response models of the content group (spec §4.4, DESIGN.md §3 "content")."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from common.fields import Citation, Input
from common.http.streams import Event
from common.language.safety import NOT_BLANK

ContentType = Literal[
    "social_post",
    "thread",
    "email",
    "press_release",
    "blog_post",
    "petition",
    "talking_points",
    "letter",
]
Platform = Literal["x", "instagram", "facebook", "linkedin", "email", "web"]
Tone = Literal["informative", "urgent", "hopeful", "formal", "conversational"]
Length = Literal["short", "medium", "long"]

MAX_CTA = 200  # fits in a post of 280 characters with a fact's worth of room


class ContentRequest(Input):
    topic: str = Field(
        min_length=1,
        max_length=500,
        pattern=NOT_BLANK,
        description="What the content is about, e.g. 'cage-free eggs'. Facts are drawn from "
        "the knowledge base passages that match it. Read as plain text: markup is removed "
        "(tags and what script and style elements hold; entities decoded).",
    )
    contentType: ContentType = Field("social_post", description="What to draft.")
    platform: Platform | None = Field(
        None,
        description="Where it will be published. Defaults by contentType: x for social_post "
        "and thread, email for email and letter, web otherwise. Each platform takes some "
        "content types only (a thread is for x).",
    )
    tone: Tone = Field("informative", description="The voice of the opening and the framing.")
    audience: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        pattern=NOT_BLANK,
        description="Who it is for, e.g. 'the CEO of Harlow Foods'. Letters are addressed "
        "and petitions directed to it; the organisation it names (after 'of', 'at' or "
        "'from', or the whole of it) is named in a letter's or an email's first line and a "
        "press release's lead. Read as plain text, as the topic is.",
    )
    length: Length = Field("medium", description="How many facts the draft uses.")
    callToAction: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_CTA,
        pattern=NOT_BLANK,
        description="The action readers are asked to take, used as written. A default one "
        "for the content type when absent (talking points have none).",
    )
    replyBy: dt.date | None = Field(
        None,
        description="Letters and emails: the date the recipient is asked to reply by "
        "(YYYY-MM-DD, after today in UTC). Without it the draft asks for a reply and names "
        "no date.",
    )


class Source(BaseModel):
    title: str
    url: str | None


class Post(BaseModel):
    text: str
    characterCount: int


class ContentResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"additionalProperties": False})

    content: str = Field(description="The draft. A thread's posts are separated by blank lines.")
    contentType: ContentType
    platform: Platform
    characterCount: int = Field(
        description="Characters of `content` as the platform counts them (X: links 23, most "
        "characters outside Latin scripts and emoji 2)."
    )
    characterLimit: int = Field(description="The platform's limit for one post.")
    posts: list[Post] = Field(
        description="The posts to publish, each within characterLimit: one, or a thread's."
    )
    hashtags: list[str]
    sources: list[Source] = Field(
        description="The knowledge-base documents every fact of the draft comes from."
    )
    citations: list[Citation] = Field(
        default_factory=list,
        description="One per factual sentence of the draft, with the source that holds it "
        "(decision 0042). The opening, the call to action and other words of the frame are "
        "not facts and have none.",
    )


# -- the server-sent events of a streamed draft (Accept: text/event-stream) -----------------


class ContentSources(Event):
    type: Literal["sources"] = "sources"
    sources: list[Source]


class ContentDelta(Event):
    type: Literal["delta"] = "delta"
    text: str


class ContentDone(ContentResponse, Event):
    """The whole response object, as the JSON answer gives it."""

    type: Literal["done"] = "done"


CONTENT_EVENTS = (ContentSources, ContentDelta, ContentDone)
