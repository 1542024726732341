"""The way one chat message takes through the code, measured (issue 45, "a message annotated
once"): the project modules (``common/``, ``functions/``) whose functions run while
``POST /v1/chat/message``'s handler answers it, in the order first visited, and how many times
the message's text is scanned for names of companies and people.

The handler (``functions.chat.routes.message``) runs in process on the offline engines, on a
Firestore emulator of its own loaded with the sample records (``data/sample``) and the
knowledge corpus (``data/knowledge``), with the local fixture feeds. Messages of the same
kinds are answered first (``WARM_MESSAGES``), so that what loads once per process (models, word
lists) is not counted; then ``sys.setprofile`` records every call into a project module while
the message is answered (the reply read to its end and its citations found, as the route does).

Two messages by default: a request to draft that names a company, and a question about a
company (``--message``, repeated, for others). Printed, as JSON, per message:

- ``modules``: the project modules visited (count and list, in order of first visit);
- ``handed_the_text``: the modules whose functions are handed the message's text (whole or
  clipped), with those functions: the modules that read its characters;
  ``handed_the_message``: those handed the annotated message (``common.language.message``),
  which read what was found in it;
- ``steps``: calls that cross from one project module into another (the walk's length), and
  ``calls``: every call of a project function;
- ``name_scans``: the reads of the message's characters for names of companies and people:
  calls of the name finders (``NAME_SCANS``) handed its text, and of the reading that scans an
  annotated message for its words (``READINGS``: ``common.language.names.atoms``, which every
  finder's words are assembled from); per function, and ``outermost``, those not made inside
  another (how many times the message is scanned for names).
  ``read_from_the_annotation``: name finders handed the annotated message, which scan nothing
  (they read its atoms, or what another finder found in them);
  ``part_of_message``, ``other_text``: the finders on a part of the message (a name found) or
  on other text (the sentences the screen reads, records).

Run: ``PYTHONPATH=. .venv/bin/python -m devtools.message_walk [--message TEXT]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = "What is Harlow Foods doing about cage-free eggs? Draft a short post for X."
# A company question: the message the intent engine, the assistant and the tables all read for
# a company's name.
QUESTION = "Has Brightwell kept its cage-free egg pledge?"
WARM_MESSAGES = (
    "Write a tweet about cage-free eggs for our supporters",
    "What is Tallis Dairy doing on animal welfare?",
)
PROJECT = ("common/", "functions/")
_RESUMABLE = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR
# Where a text is read for the names of companies or people (module, function): a call is a
# scan of the message when it is handed the message's text (whole or clipped) ...
NAME_SCANS = frozenset(
    [
        ("common.offline.companies", "_scan"),
        ("common.offline.companies", "company_name"),
        ("common.offline.companies", "sure_company"),
        ("common.offline.companies", "candidates"),
        ("common.offline.entities", "company_in"),
        ("common.offline.entities", "person_in"),
        ("common.language.gazetteer", "_words"),
        ("common.language.gazetteer", "find"),
        ("common.language.names", "words_of"),
        ("common.privacy.people", "_references"),
        ("common.privacy.people", "references"),
        ("common.privacy.people", "_found"),
        ("common.privacy.people", "names"),
        ("common.privacy.people", "every_name"),
        ("common.privacy.people", "cased_names"),
        ("common.privacy.people", "lowercase_names"),
        ("functions.chat.assist", "company_in_tables"),
        ("functions.chat.assist", "public_figure_named"),
        ("functions.chat.assist", "organization_named"),
        ("functions.chat.assist", "_named_in"),
    ]
)
# ... or the reading of the annotated message that reads its characters (decision 0073): the
# finders above, handed the annotation, assemble their words from what it found.
READINGS = frozenset([("common.language.names", "atoms")])


def module_of(filename: str) -> str | None:
    """The dotted name of a project module from its file, or None outside the project."""
    try:
        relative = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    path = relative.as_posix()
    if not path.startswith(PROJECT) or not path.endswith(".py"):
        return None
    dotted = path[: -len(".py")].replace("/", ".")
    return dotted.removesuffix(".__init__")


class Walk:
    """What ``sys.setprofile`` saw: project modules in order, module crossings, name scans."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.order: list[str] = []
        self.calls = 0
        self.steps = 0
        self.scans: Counter[str] = Counter()
        self.outermost: Counter[str] = Counter()
        self.part: Counter[str] = Counter()
        self.from_annotation: Counter[str] = Counter()
        self.other: Counter[str] = Counter()
        self._modules: dict[str, str | None] = {}
        self.text_readers: dict[str, list[str]] = {}
        self.message_readers: dict[str, list[str]] = {}
        self._started: dict[int, types.FrameType] = {}
        self._open: list[Any] = []  # frames of the name scans of the message under way

    def _module(self, code: types.CodeType) -> str | None:
        name = code.co_filename
        if name not in self._modules:
            self._modules[name] = module_of(name)
        return self._modules[name]

    def _caller_module(self, frame: types.FrameType) -> str | None:
        back = frame.f_back
        while back is not None:
            found = self._module(back.f_code)
            if found is not None:
                return found
            back = back.f_back
        return None

    def _text_of(self, frame: types.FrameType) -> str | None:
        code = frame.f_code
        if code.co_argcount == 0:
            return None
        first = frame.f_locals.get(code.co_varnames[0])
        return first if isinstance(first, str) else None

    def profile(self, frame: types.FrameType, event: str, _arg: object) -> None:
        if event == "return":
            if self._open and self._open[-1] is frame:
                self._open.pop()
            return
        if event != "call":
            return
        module = self._module(frame.f_code)
        if module is None:
            return
        if frame.f_code.co_flags & _RESUMABLE:  # a generator's frame: counted when it starts
            if id(frame) in self._started:
                return
            self._started[id(frame)] = frame  # kept, so that its id is not reused
        self.calls += 1
        if module not in self.order:
            self.order.append(module)
        if self._caller_module(frame) not in (module, None):
            self.steps += 1
        name = frame.f_code.co_name
        handed = self._handed(frame)
        if handed is not None:
            readers = self.text_readers if handed == "text" else self.message_readers
            readers.setdefault(module, []).append(name)
        if (module, name) in READINGS and handed == "message":
            scan = True
        elif (module, name) in NAME_SCANS:
            text = self._text_of(frame)
            scan = self._is_message(text)
            if handed == "message" and not scan:
                self.from_annotation[f"{module}.{name}"] += 1
            elif not scan and text is not None and text.strip() and text.strip() in self.message:
                self.part[f"{module}.{name}"] += 1
            elif not scan and handed is None:
                self.other[f"{module}.{name}"] += 1
        else:
            return
        if scan:
            key = f"{module}.{name}"
            self.scans[key] += 1
            if not self._open:
                self.outermost[key] += 1
            self._open.append(frame)

    def _handed(self, frame: types.FrameType) -> str | None:
        """ "text" when a function is handed the message's text (whole or clipped), "message"
        when it is handed the message annotated (``common.language.message.Message``)."""
        code = frame.f_code
        count = code.co_argcount + code.co_kwonlyargcount
        handed = None
        for name in code.co_varnames[:count]:
            value = frame.f_locals.get(name)
            if isinstance(value, str) and self._is_message(value):
                return "text"
            if type(value).__name__ == "Message" and getattr(value, "text", None) == self.message:
                handed = "message"
        return handed

    def _is_message(self, text: str | None) -> bool:
        """The message, or the message clipped (at least 80 % of it)."""
        if text is None:
            return False
        kept = text.rstrip("\u2026").strip()
        return bool(kept) and kept in self.message and len(kept) >= 0.8 * len(self.message)

    def report(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "modules": {"count": len(self.order), "list": self.order},
            "handed_the_text": {
                "count": len(self.text_readers),
                "list": {m: sorted(set(f)) for m, f in self.text_readers.items()},
            },
            "handed_the_message": {
                "count": len(self.message_readers),
                "list": {m: sorted(set(f)) for m, f in self.message_readers.items()},
            },
            "steps": self.steps,
            "calls": self.calls,
            "name_scans": {
                "outermost": sum(self.outermost.values()),
                "outermost_by_entry": dict(sorted(self.outermost.items())),
                "all_by_entry": dict(sorted(self.scans.items())),
                "read_from_the_annotation": dict(sorted(self.from_annotation.items())),
                "part_of_message": dict(sorted(self.part.items())),
                "other_text": dict(sorted(self.other.items())),
            },
        }


def load() -> None:
    """The sample records and the knowledge corpus, embedded offline."""
    from functions.knowledge.importer import import_knowledge
    from functions.search.importer import import_records
    from functions.search.tables import TABLES

    for name, table in TABLES.items():
        report = import_records(table, ROOT / "data" / "sample" / f"{name}.jsonl")
        if report.rejected:
            raise SystemExit(f"{name}: rejected rows {report.rejected}")
    report = import_knowledge([ROOT / "data" / "knowledge"])
    if report.rejected:
        raise SystemExit(f"knowledge: rejected {report.rejected}")


def answer(message: str, consumer_id: str) -> dict[str, Any]:
    """The chat route's handler on one message, as ``POST /v1/chat/message`` runs it (JSON)."""
    import registry
    from common.http import Call
    from functions.chat import routes
    from functions.chat.models import MessageRequest

    call: Call[MessageRequest] = Call(
        principal=types.SimpleNamespace(consumer_id=consumer_id),  # type: ignore[arg-type]
        body=MessageRequest(message=message),
        query=None,
        path=None,
        api_routes=registry.all_routes,
    )
    response = routes.message(call)
    body = response.model_dump() if hasattr(response, "model_dump") else {}
    return {"intent": body.get("intent"), "billed": call.billed, "reply": body.get("response")}


def walk(message: str, consumer_id: str, show_reply: bool) -> dict[str, Any]:
    """The walk of one message through the handler, with its answer."""
    seen = Walk(message)
    sys.setprofile(seen.profile)
    try:
        answered = answer(message, consumer_id)
    finally:
        sys.setprofile(None)
    report = seen.report()
    report["answer"] = {k: v for k, v in answered.items() if k != "reply" or show_reply}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--message",
        action="append",
        help=f"a message to walk (repeat for more; default: {MESSAGE!r}, then {QUESTION!r})",
    )
    parser.add_argument("--reply", action="store_true", help="print the replies too")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from bench.emulated import with_fixture_feeds
    from devtools.emulator import Emulator, free_port

    emulator = Emulator("127.0.0.1", free_port(), "demo-message-walk").start()
    feeds = with_fixture_feeds(emulator, ROOT / ".local" / "walk", LLM_BACKEND="offline")
    try:
        with redirect_stdout(sys.stderr):  # the service's logs stay off the figures
            load()
            from common.accounts.consumers import get_or_create_by_email

            consumer_id = get_or_create_by_email("walk@example.org")[0]["id"]
            for warm in WARM_MESSAGES:  # what loads once per process is not counted
                answer(warm, consumer_id)
            walks = [walk(m, consumer_id, args.reply) for m in args.message or (MESSAGE, QUESTION)]
        print(json.dumps(walks, indent=2, ensure_ascii=False))
    finally:
        feeds.shutdown()
        emulator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
