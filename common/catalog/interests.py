"""What a request for news names (a research run, a tracking subscription): topic ids from the
catalog, custom keywords and specific interests, their limits, and the rule that at least one
topic or keyword is sent. Shared by the research and tracking groups, so neither borrows the
other's types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, Field, StringConstraints, model_validator

from common.catalog.topics import ids as topic_ids
from common.catalog.topics import is_topic
from common.language.safety import NOT_BLANK

MAX_TOPICS = 20
MAX_KEYWORDS = 20
MAX_INTERESTS = 1000


def _known_topic(value: str) -> str:
    if not is_topic(value):
        raise ValueError(f"Unknown topic '{value[:100]}'; GET /v1/tracking/topics lists them.")
    return value


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


class _TopicIdsSchema:
    """A topic id's JSON schema: an enum of the catalog's ids, read from data/topics.toml when
    a schema is generated (never at import)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "enum": list(topic_ids())}


Topic = Annotated[str, AfterValidator(_known_topic), _TopicIdsSchema()]
Keyword = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100, pattern=NOT_BLANK)
]
Topics = Annotated[list[Topic], Field(max_length=MAX_TOPICS), AfterValidator(_unique)]
Keywords = Annotated[list[Keyword], Field(max_length=MAX_KEYWORDS), AfterValidator(_unique)]
Interests = Annotated[str, Field(max_length=MAX_INTERESTS)]

TOPICS_DOC = "Topic identifiers from GET /v1/tracking/topics (at most 20)."
KEYWORDS_DOC = "Custom keywords, 1..100 characters each (at most 20)."


@dataclass(frozen=True)
class TopicsOrKeywords:
    """The rule of a request naming topics and custom keywords (a subscription, a research run):
    at least one of the two lists is sent and not empty. The model publishes it in its JSON
    schema (``schema()``) and checks it (``validator()``); the field names differ by group."""

    topics: str
    keywords: str
    message: ClassVar[str] = "Send at least one topic or custom keyword."

    def schema(self) -> dict[str, Any]:
        fields = (self.topics, self.keywords)
        return {"anyOf": [{"required": [f], "properties": {f: {"minItems": 1}}} for f in fields]}

    def validator(self) -> Any:
        def check(model: BaseModel) -> BaseModel:
            if not getattr(model, self.topics) and not getattr(model, self.keywords):
                raise ValueError(self.message)
            return model

        return model_validator(mode="after")(check)
