"""The places a text names (``data/text/places.toml``): regions, countries, their states and
nations, large cities, each by its name, its adjective ("Canadian") or its abbreviation ("UK"),
and the places each lies within. The relevance judge reads them (decision 0067): a request about
Canada's rules is not answered by a passage about the EU's, and one about a march in Manchester
is answered by one about England. How names are found: ``common.language.taxonomy``.
"""

from __future__ import annotations

from common.language.taxonomy import Entry, Taxonomy, Tree


class Places(Tree):
    """data/text/places.toml."""

    place: tuple[Entry, ...]


_PLACES = Taxonomy("text/places.toml", Places)
named = _PLACES.named  # the keys of the places a text names
around = _PLACES.around  # the places a place lies within, nearest first
called = _PLACES.called  # a place's name by its key or abbreviation ("BR" -> "Brazil"), or None


def related(one: str, other: str) -> bool:
    """Whether two places are one, or one lies within the other ("us-ca" and "us")."""
    return one == other or other in around(one) or one in around(other)
