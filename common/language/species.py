"""The animals a text names (``data/text/species.toml``): species and the groups they belong to,
by the words people use for them and the products named after them ("veal", "eggs"), and the
groups each lies within. The relevance judge reads them (decision 0067): a request about turkeys
is not answered by a passage about broiler chickens, and one about sows is answered by one about
pigs. How names are found: ``common.language.taxonomy``.
"""

from __future__ import annotations

from common.language.taxonomy import Entry, Taxonomy, Tree


class Species(Tree):
    """data/text/species.toml."""

    species: tuple[Entry, ...]


_SPECIES = Taxonomy("text/species.toml", Species)
named = _SPECIES.named  # the keys of the animals a text names
around = _SPECIES.around  # the groups an animal lies within, nearest first
