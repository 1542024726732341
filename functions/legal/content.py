"""The offline legal guide's content: ``data/legal/activities.toml`` (the activities it
recognises, with their patterns, sections and questions) and ``data/legal/guide.toml`` (the
disclaimer and the fixed texts). Read and validated on first use, then kept (decision 0020)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from common.datafiles import Content, Line, Pattern, Prose, Template, Words, load

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]*$", max_length=40)]
Question = Annotated[Line, StringConstraints(pattern=r"\?$")]


class Activity(Content):
    """One activity: recognised by any of ``patterns`` (or by a weak pattern together with one
    of ``places``), it adds a section and questions for a lawyer to the guide."""

    key: Key
    label: Line  # in the summary: "... considerations for: <label>; <label>."
    short: Line  # in the title
    heading: Line
    examples: tuple[Line, ...] = Field(min_length=1)  # must be recognised (tests check it)
    patterns: tuple[Pattern, ...] = Field(min_length=1)
    weak_patterns: tuple[Pattern, ...] = ()
    places: tuple[Pattern, ...] = ()  # whole words
    body: Prose
    questions: tuple[Question, ...] = Field(min_length=1)
    note_words: Words = frozenset()  # make a note's sentence relevant (decision 0026)

    @model_validator(mode="after")
    def _weak_needs_places(self) -> Activity:
        if bool(self.weak_patterns) != bool(self.places):
            raise ValueError("weak_patterns and places go together: give both or neither")
        return self


class Activities(Content):
    activity: tuple[Activity, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Activities:
        for field in ("key", "heading", "label"):
            values = [getattr(a, field) for a in self.activity]
            repeated = sorted({v for v in values if values.count(v) > 1})
            if repeated:
                raise ValueError(f"two activities have the same {field}: {repeated[0]!r}")
        return self


class Section(Content):
    heading: Line
    body: Prose


class NoActivity(Content):
    title: Line
    summary: Prose
    section: tuple[Section, ...] = Field(min_length=1)


class BeforeYouAct(Content):
    heading: Line
    body: Annotated[Prose, Template("when")]
    when_timeline: Annotated[Prose, Template("timeline")]
    when_no_timeline: Prose


class JurisdictionNote(Content):
    heading: Line
    named: Annotated[Prose, Template("jurisdiction")]
    unnamed: Prose
    # once notes were looked up (decision 0026)
    named_opening: Annotated[Prose, Template("jurisdiction")]
    mentioned_opening: Annotated[Prose, Template("jurisdiction")]
    found: Annotated[Prose, Template("places")]
    general_only: Annotated[Prose, Template("place", "places")]
    no_notes: Annotated[Prose, Template("place")]
    no_matching_notes: Annotated[Prose, Template("place")]
    unavailable: Annotated[Prose, Template("place")]
    no_place: Prose


class NotesText(Content):
    """The sections quoting the knowledge base's notes on a place's law."""

    heading: Annotated[Line, Template("place")]
    source: Annotated[Line, Template("title", "url")]
    source_without_url: Annotated[Line, Template("title")]
    skip: tuple[Pattern, ...] = ()
    refers_back: tuple[Pattern, ...] = ()


class Refusal(Content):
    """What a request the guide could say nothing about is told (422, decision 0068)."""

    activity: Annotated[Prose, Template("fields", "activities")]
    activity_field: Line
    jurisdiction: Annotated[Prose, Template("places")]
    jurisdiction_field: Line


class GuideText(Content):
    disclaimer: Prose
    title_one: Annotated[Line, Template("activity")]
    title_two: Annotated[Line, Template("first", "second")]
    title_many: Line
    summary: Annotated[Prose, Template("activities")]
    summary_fallback: Prose
    general_questions: tuple[Question, ...] = Field(min_length=1)
    ignore: tuple[Pattern, ...] = ()
    no_activity: NoActivity
    before_you_act: BeforeYouAct
    jurisdiction: JurisdictionNote
    notes: NotesText
    refusal: Refusal


@dataclass(frozen=True)
class Detector:
    """An activity's compiled patterns."""

    activity: Activity
    strong: re.Pattern[str]
    weak: re.Pattern[str] | None
    places: re.Pattern[str] | None

    def finds(self, text: str) -> bool:
        if self.strong.search(text):
            return True
        return bool(
            self.weak is not None
            and self.places is not None
            and self.weak.search(text)
            and self.places.search(text)
        )


def _any(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


@cache
def activities() -> tuple[Activity, ...]:
    """The activities, in the order of the file (the order of the guide's sections)."""
    return load("legal/activities.toml", Activities).activity


@cache
def text() -> GuideText:
    return load("legal/guide.toml", GuideText)


@cache
def detectors() -> tuple[Detector, ...]:
    return tuple(
        Detector(
            activity,
            _any(activity.patterns),
            _any(activity.weak_patterns) if activity.weak_patterns else None,
            _any(tuple(rf"\b(?:{p})\b" for p in activity.places)) if activity.places else None,
        )
        for activity in activities()
    )


@cache
def ignored() -> re.Pattern[str] | None:
    """What is removed from a text before activities are looked for (dates in March)."""
    patterns = text().ignore
    return _any(patterns) if patterns else None


def detect(text_: str) -> list[Activity]:
    """The activities a text mentions, in the order of data/legal/activities.toml."""
    text_ = text_.replace("\u2019", "'")
    ignore = ignored()
    if ignore is not None:
        text_ = ignore.sub(" ", text_)
    return [d.activity for d in detectors() if d.finds(text_)]
