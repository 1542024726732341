"""One message annotated once (common.language.message, decision 0073): its readers answer as
they do on the plain text, and what they read of it is computed once, the companies it names
scanned once and the people it names looked for only when a private detail is asked."""

from __future__ import annotations

import pytest

from common.language import gazetteer
from common.language.index import terms
from common.language.message import Message, annotate
from common.offline import classifier, companies, engine
from common.offline.entities import extract, topics_in
from common.privacy import people
from functions.chat.assist import asks_private, company_in_tables, small_talk

MESSAGES = [
    "What is Harlow Foods doing about cage-free eggs? Draft a short post for X.",
    "Has Brightwell kept its cage-free egg pledge?",
    "Review Kroger's sow-stall phase-out",
    "research fernhill supermarkets",
    "Who is Senator Carla Jensen and how has she voted on ag-gag bills?",
    "Is it legal to film inside a factory farm in Iowa?",
    "Send me weekly updates on 'Atlas Poultry' and fur farming",
    "What is Dana Whitfield's home address?",
    "Hi there! How are you today?",
    ".",
]


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    """Calls of ``module.name`` from now on, one entry per call (its first argument)."""
    calls: list[object] = []
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_annotating_a_message_gives_the_same_message() -> None:
    message = annotate("Has Brightwell kept its pledge?")
    assert annotate(message) is message
    assert message.text == "Has Brightwell kept its pledge?"
    assert message.lowered == "has brightwell kept its pledge?"
    assert message.terms == tuple(terms(message.text))


def test_a_reading_is_computed_once_per_message() -> None:
    calls: list[str] = []

    def words(message: Message) -> int:
        calls.append(message.text)
        return len(message.text.split())

    message = Message("two words")
    assert message.read(words) == message.read(words) == 2
    assert calls == ["two words"]
    assert Message("two words").read(words) == 2  # another message: read again
    assert len(calls) == 2


@pytest.mark.parametrize("text", MESSAGES)
def test_the_readers_answer_a_message_as_they_answer_its_text(text: str) -> None:
    message = annotate(text)
    known = gazetteer.index_of(["Brightwell", "Harlow Foods"])
    assert engine.detect_intent(message) == engine.detect_intent(text)
    assert engine.reads(message) == engine.reads(text)
    assert classifier.features(message) == classifier.features(text)
    for intent in ("CREATE_CONTENT", "INVESTIGATE_COMPANY", "TRACK_ISSUES", "LEGAL_HELP"):
        assert extract(intent, message) == extract(intent, text)
    assert companies.company_name(message) == companies.company_name(text)
    assert companies.company_name(message, known) == companies.company_name(text, known)
    assert companies.sure_company(message) == companies.sure_company(text)
    assert gazetteer.find(message, known) == gazetteer.find(text, known)
    assert topics_in(message) == topics_in(text)
    assert people.references(message) == people.references(text)
    extra = frozenset({"dana"})
    assert people.references(message, extra) == people.references(text, extra)
    assert asks_private(message) == asks_private(text)
    assert small_talk(message) == small_talk(text)


def test_a_company_question_is_scanned_for_companies_once(monkeypatch) -> None:
    """The intent model's features, the entity rules and the tables' lookup (with the names
    the tables hold) read one scan of the message."""
    from functions.chat import assist

    scans = counting(monkeypatch, companies, "candidates")
    words = counting(monkeypatch, gazetteer, "_words")
    found = [{"table": "organizations", "record": {"name": "Brightwell Supermarkets"}}]
    monkeypatch.setattr(assist, "_records", lambda tables, query, search_type="hybrid": found)
    message = annotate("Has Brightwell Supermarkets kept its cage-free egg pledge?")
    intent, _, info = engine.detect_intent(message)
    assert (intent, info["companyName"]) == ("INVESTIGATE_COMPANY", "Brightwell Supermarkets")
    assert company_in_tables(message) == "Brightwell Supermarkets"
    assert engine.reads(message)
    assert len(scans) == 1
    assert len(words) == 1


def test_detection_and_billing_read_the_features_once(monkeypatch) -> None:
    features = counting(monkeypatch, classifier, "_features")
    message = annotate("How do I start a campaign asking a supermarket to go cage-free?")
    engine.detect_intent(message)
    assert engine.reads(message)
    assert len(features) == 1


def test_people_are_looked_for_once_per_message(monkeypatch) -> None:
    """The private-details check reads the people a message names (the rule's half and the
    classifier's signal, decision 0067), and the screen reads the same reading."""
    looked = counting(monkeypatch, people, "_references")
    asking = annotate("What is Dana Whitfield's home address?")
    assert asks_private(asking)
    assert not asks_private(annotate("What has Dana Whitfield said about cage-free eggs?"))
    people.references(asking)
    asks_private(asking)
    assert len(looked) == 2  # once for each message


def test_a_message_is_embedded_only_when_the_words_are_unsure(monkeypatch) -> None:
    from common.language import minilm

    embedded = counting(monkeypatch, minilm.MiniLM, "embed")
    sure = annotate("Write a tweet about cage-free eggs")
    words = engine.model().word_probabilities(sure)
    assert not engine.model().needs_meaning(words)  # the word model is sure of this one
    engine.detect_intent(sure)
    assert "embedding" not in vars(sure)
    assert embedded == []
