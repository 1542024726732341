"""Request, response and result models of the legal group (DESIGN.md §3 "legal")."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from common.fields import Input
from common.language.safety import NOT_BLANK

MAX_TEXT = 2000
MAX_TIMELINE = 200
MAX_JURISDICTION = 100

# Whitespace is stripped first, so a blank string is too short: invalid, never "missing".
Text = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK),
]
Timeline = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=MAX_TIMELINE, pattern=NOT_BLANK
    ),
]
Jurisdiction = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=MAX_JURISDICTION, pattern=NOT_BLANK
    ),
]

ONE_OF = "Send a prompt or a situation (or both): at least one of 'prompt' and 'situation'."


class GuidanceRequest(Input):
    model_config = ConfigDict(
        strict=True,
        json_schema_extra={
            "anyOf": [
                {"required": ["prompt"], "properties": {"prompt": {"type": "string"}}},
                {"required": ["situation"], "properties": {"situation": {"type": "string"}}},
            ]
        },
    )

    prompt: Text | None = Field(None, description="What you want to know, 1..2000 characters.")
    situation: Text | None = Field(
        None, description="The activity you plan, 1..2000 characters (with or without prompt)."
    )
    timeline: Timeline | None = Field(
        None, description="When you plan to act, at most 200 characters."
    )
    jurisdiction: Jurisdiction | None = Field(
        None, description="Country, state or city where you act, 1..100 characters."
    )

    @model_validator(mode="after")
    def _prompt_or_situation(self) -> GuidanceRequest:
        if self.prompt is None and self.situation is None:
            raise ValueError(ONE_OF)
        return self


class TaskAccepted(BaseModel):
    taskId: str
    message: str
    estimatedTime: str = Field(description="A rough estimate, such as '1-2 minutes'.")
    taskType: str = Field(description="'legal.guidance'.")


class GuideSection(BaseModel):
    heading: str
    body: str


class Source(BaseModel):
    title: str
    url: str | None = Field(description="The source's address, when it has one.")


class Guide(BaseModel):
    """The stored result of a legal.guidance task."""

    title: str
    summary: str
    jurisdiction: str | None = Field(description="The jurisdiction named in the request.")
    sections: list[GuideSection]
    questionsForLawyer: list[str]
    disclaimer: str = Field(description="Always the service's own 'not legal advice' notice.")
    engine: str = Field(description="'offline' or 'provider:<name>'.")
    sources: list[Source] = Field(
        default_factory=list,
        description="The knowledge base's documents whose notes on the jurisdiction's law the "
        "guide was written with (empty when it had none).",
    )


# What the provider must answer (JSON schema response format): every field required, no other
# properties in the schema (as strict structured outputs want). Extra keys a model adds anyway
# (a "disclaimer" of its own, say) are ignored rather than failing the answer.
class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})


class SectionReply(_Reply):
    heading: str
    body: str


class GuideReply(_Reply):
    title: str
    summary: str
    sections: list[SectionReply]
    questionsForLawyer: list[str]
