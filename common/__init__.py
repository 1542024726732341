"""Cross-cutting code shared by every endpoint group."""

__version__ = "0.1.0"
