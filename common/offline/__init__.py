"""The offline engine: intent classification, entity extraction, summaries, memory extraction
and replies with no network and no model download. Default for `make run` and the tests, and
the fallback for intent detection when the provider fails."""
