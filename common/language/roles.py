"""The roles people hold and the kinds of action campaigns take, as a text names them
(``data/text/roles.toml``): a chief executive, a vice president, a creative director; a
petition, a boycott, a protest. The relevance judge reads them (decision 0067): a request for a
company's chief executive is not answered by the record of its vice president, nor one for a
petition by the record of a boycott. How names are found: ``common.language.taxonomy``.
"""

from __future__ import annotations

from common.language.taxonomy import Entry, Taxonomy, Tree


class Roles(Tree):
    """data/text/roles.toml."""

    role: tuple[Entry, ...]


_ROLES = Taxonomy("text/roles.toml", Roles)
named = _ROLES.named  # the keys of the roles and kinds of action a text names
around = _ROLES.around  # the broader roles a role lies within, nearest first
