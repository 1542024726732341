"""One message annotated once (issue 45, decision 0073): what the intent engine, the entity
rules, the assistant and the personal-data screen read of a chat message, each computed the
first time one of them asks and kept for the others, instead of each re-scanning the text.

``annotate(text)`` makes the ``Message`` where a request enters (``functions.chat.routes``);
every reader also takes a plain string and annotates it itself, so that other callers (the
trainer, the benches, the tests, other doors) are unchanged.

A ``Message`` holds what this room can say of a text (it is the text toolkit's, the lowest
room but ``datafiles``): its lower-case form, its search terms and, only when asked, its
MiniLM sentence embedding. What higher rooms read of it (the companies it names: the
gazetteer's words and the offline engine's candidates; the people the screen finds; the
catalog's topics; the intent model's features) are *readings*: a function of the message,
defined beside the rules it applies, computed once per message by ``Message.read`` (the
rooms of decision 0069 keep ``language`` from importing the offline engine or the screen).
A reading must be a pure function of the message: its result is shared by every reader.

A message is made per request and read on one thread; it is not shared between requests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from common.language.index import terms

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Message:
    """A message's text and what has been read of it (see the module docstring)."""

    text: str
    _readings: dict[Callable[[Message], Any], Any] = field(
        default_factory=dict, init=False, repr=False
    )

    @cached_property
    def lowered(self) -> str:
        return self.text.lower()

    @cached_property
    def terms(self) -> tuple[str, ...]:
        """Its search terms (``common.language.index.terms``: stop words dropped, stemmed)."""
        return tuple(terms(self.text))

    @cached_property
    def embedding(self) -> list[float]:
        """Its sentence embedding by the bundled encoder (``common.language.minilm``), computed
        on first use only: most messages are never embedded (decision 0054)."""
        from common.language.minilm import get_model

        return get_model().embed([self.text])[0]

    def read(self, reading: Callable[[Message], T]) -> T:
        """``reading(self)``, computed once: a later call with the same function answers what
        the first computed."""
        try:
            return self._readings[reading]
        except KeyError:
            value = self._readings[reading] = reading(self)
            return value


def annotate(text: str | Message) -> Message:
    """The message of ``text``; a message already annotated is itself."""
    return text if isinstance(text, Message) else Message(text)
