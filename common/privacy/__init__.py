"""The personal-data screen every door of the service passes what it writes about people
through (decision 0037, DESIGN.md §3): OSINT profiles, the assistant, research streams and
digests, content drafts, legal answers, and any later door.

``screen(sentence, known)`` names the category of personal data a sentence carries, or None;
``screen_text`` drops such sentences from a text; ``screen_stream`` from a streamed text. The
screen finds the people a sentence names itself (``people``): it never depends on what the
caller said the subject is. The patterns and word lists are data (``data/privacy/``), the
classifier a model trained from a labelled set kept there (``classifier``).
"""

from common.privacy.normalise import clean
from common.privacy.screen import (
    NOBODY,
    Known,
    Screened,
    screen,
    screen_many,
    screen_stream,
    screen_text,
    warm,
)

__all__ = [
    "NOBODY",
    "Known",
    "Screened",
    "clean",
    "screen",
    "screen_many",
    "screen_stream",
    "screen_text",
    "warm",
]
