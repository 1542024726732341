"""Issue 29, the provider path: a provider's intent answers recorded by
``devtools/record_intents.py`` and replayed by the loopback fake, as ``bench/intent.py
--provider`` measures them."""

from __future__ import annotations

import json

from common import container
from devtools import record_intents
from functions.chat import assist
from functions.chat import service as chat
from functions.chat.models import ExtractedFields
from tests.fakes.openai_server import replayed, reply, status

COMPANY = "Review Kroger's sow-stall phase-out"
UNSURE = "what is mercado verde doing on cage-free eggs"


def answer(intent: str, confidence: float, **found: object) -> str:
    info = {key: found.get(key) for key in ExtractedFields.model_fields}
    return json.dumps({"intent": intent, "extractedInfo": info, "confidence": confidence})


def test_answers_are_recorded_in_the_engines_schema_and_failures_kept(fake_llm, tmp_path):
    fake_llm.script(
        reply(answer("INVESTIGATE_COMPANY", 0.9, companyName="Kroger", personName="nobody")),
        status(400),  # not retried: the provider refused the request
    )
    out = tmp_path / "answers.jsonl"
    counts = record_intents.record([COMPANY, UNSURE], out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert counts == {"answered": 1, "failed": 1}
    # the fields the intent takes, as the service keeps them (personName is not one)
    assert rows[0] == {
        "text": COMPANY,
        "model": "openai:fake-1",
        "intent": "INVESTIGATE_COMPANY",
        "extractedInfo": {"companyName": "Kroger"},
        "confidence": 0.9,
    }
    assert rows[1]["text"] == UNSURE
    assert "error" in rows[1]
    assert fake_llm.requests[0].messages[-1] == {"role": "user", "content": COMPANY}


def test_a_replayed_answer_reaches_the_service_only_where_the_engine_is_unsure(
    settings_env, monkeypatch
):
    from common.adapters.llm import PROVIDER

    monkeypatch.setattr(assist, "company_in_tables", lambda message: None)  # no database here
    recorded = [
        {"text": COMPANY, "model": "openai:m", "intent": "GENERAL_CHAT",
         "extractedInfo": {}, "confidence": 0.99},
        {"text": UNSURE, "model": "openai:m", "intent": "INVESTIGATE_COMPANY",
         "extractedInfo": {"companyName": "Mercado Verde"}, "confidence": 0.93},
    ]  # fmt: skip
    with replayed(recorded) as environment:
        settings_env(**environment)
        container.reset(PROVIDER)
        try:
            confident = chat.detect_intent(COMPANY)  # the engine is sure: its own answer
            unsure = chat.detect_intent(UNSURE)
            never_recorded = chat.detect_intent("tell me about tesco's egg policy, maybe?")
        finally:
            container.reset(PROVIDER)
    assert confident[0] == "INVESTIGATE_COMPANY"
    assert confident[3] == "offline"
    assert unsure[:2] == ("INVESTIGATE_COMPANY", {"companyName": "Mercado Verde"})
    assert unsure[3] == "openai:m"
    assert never_recorded[3] == "offline"  # a 503 from the fake: the engine's answer stands
