"""The offline engine: entities, summaries, memory scrubbing, honest replies, and the intent
model trained from the repository's dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.offline import reply
from common.offline.classifier import accuracy, read_jsonl
from common.offline.engine import MODEL_PATH, detect_intent, model
from common.offline.entities import extract
from common.offline.memory import extract_memory, normalize
from common.offline.summarize import MAX_CHARS, summarize
from common.offline.train import fingerprint

DATA = Path(MODEL_PATH).parent


@pytest.mark.parametrize(
    ("intent", "text", "expected"),
    [
        (
            "INVESTIGATE_COMPANY",
            "Can you look into Harlow Foods and their cage-free progress?",
            {"companyName": "Harlow Foods", "focus": "cage-free progress"},
        ),
        (
            "RESEARCH_INDIVIDUAL",
            "Who is Senator Dana Whitfield?",
            {"personName": "Dana Whitfield", "role": "senator"},
        ),
        (
            "RESEARCH_INDIVIDUAL",
            "Profile Marcus Oyelaran, CEO of Brightmeadow Poultry",
            {"personName": "Marcus Oyelaran", "role": "ceo", "companyName": "Brightmeadow Poultry"},
        ),
        (
            "CREATE_CONTENT",
            "Write an Instagram caption about fur farming in Finland",
            {"contentType": "caption", "platform": "instagram", "topic": "fur farming in Finland"},
        ),
        (
            "LEGAL_HELP",
            "Is leafleting outside a supermarket legal in Ohio?",
            {"activity": "leafleting", "jurisdiction": "Ohio"},
        ),
        (
            "TRACK_ISSUES",
            'Send me weekly updates on cage-free eggs and "Harlow Foods"',
            {"topics": ["cage-free"], "keywords": ["Harlow Foods"], "frequency": "weekly"},
        ),
        ("GENERAL_CHAT", "Thanks, that was helpful!", {}),
        (  # a name word with an apostrophe after a title; "&" in a company's name
            "RESEARCH_INDIVIDUAL",
            "Look up Dr. Kathleen O'Neill from Sorrel & Co",
            {"personName": "Kathleen O'Neill", "companyName": "Sorrel & Co"},
        ),
    ],
)
def test_entities(intent, text, expected):
    assert extract(intent, text) == expected


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Carla Jensen--the senator", "Carla Jensen"),  # a dash after a name ends it
        ("met Dana Whitfield-2024", "Dana Whitfield"),
        ("_Dana Whitfield Smith", "Whitfield Smith"),  # "_Dana" is no word of a name
        ("Ann\u00d7lee Smith", None),  # a sign inside a word opens no name
        ("Dana Whitfield3 and Jo Bland", "Jo Bland"),  # nor does a name run into digits
    ],
)
def test_a_persons_name_is_whole_name_words(text, person):
    assert extract("RESEARCH_INDIVIDUAL", text).get("personName") == person


def test_summary_keeps_the_question_and_the_decision_within_bounds():
    messages = [
        {"role": "user", "content": "How should we pressure Harlow Foods on cage-free eggs?"},
        {"role": "assistant", "content": "Start with their 2025 pledge. " * 3},
        {"role": "user", "content": "OK. We decided to launch a petition next week."},
        {"role": "assistant", "content": "Great, I will draft the petition text."},
    ] * 10
    summary = summarize(messages)
    assert "Goal: work out how to pressure Harlow Foods on cage-free eggs." in summary
    assert "The team will launch a petition next week." in summary
    assert len(summary) <= MAX_CHARS


def test_memory_keeps_work_facts_and_drops_personal_data():
    memory = extract_memory(
        [
            {
                "role": "user",
                "content": "I'm the campaign manager at Hope for Hens. Email me at "
                "jo@hope.example.org or call +44 20 7946 0958.",
            },
            {"role": "assistant", "content": "Noted."},
            {
                "role": "user",
                "content": "I'm researching Harlow Foods cage-free pledges and the "
                "votes of Senator Dana Whitfield. I prefer a friendly tone.",
            },
            {"role": "user", "content": "Our office is at 221 Baker Street. We work on fur."},
        ]
    )
    assert memory == {
        "organization": "Hope for Hens",
        "role": "campaign manager",
        "causeAreas": ["legislation", "cage-free", "fur"],
        "researchTopics": ["legislation", "cage-free", "Harlow Foods"],
        "preferences": ["tone: friendly"],
    }


@pytest.mark.parametrize(
    "leaky",
    [
        {"organization": "Jane Doe"},
        {"organization": "Mr. Smith"},
        {"organization": "Dr Ada Lovelace Group"},
        {"organization": "Hope for Hens, jo@hens.org"},
        {"role": "campaigner jo@x.org"},
        {"role": "Assistant to María García"},
        {"researchTopics": ["senator john smith and his wife mary smith"]},
        {"researchTopics": ["María García's votes", "Dana Whitfield"]},
        {"preferences": ["write like Mr. Smith"]},
        {"causeAreas": ["call +1 555 010 9999"]},
    ],
)
def test_normalize_drops_anything_that_could_hold_personal_data(leaky):
    memory = normalize(leaky)
    stored = repr(memory).lower()
    for fragment in ("jane", "smith", "ada", "jo@", "maría", "garcía", "whitfield", "555"):
        assert fragment not in stored


def test_normalize_keeps_closed_forms():
    memory = normalize(
        {
            "organization": "Mercy For Animals",
            "role": "Senior Campaign Manager",
            "causeAreas": ["fur", "fish farms"],
            "researchTopics": ["cage-free", "Brightmeadow Poultry"],
            "preferences": ["tone: friendly", "short answers", "bullet points"],
        }
    )
    assert memory == {
        "organization": "Mercy For Animals",
        "role": "senior campaign manager",
        "causeAreas": ["fur", "aquaculture"],
        "researchTopics": ["cage-free", "Brightmeadow Poultry"],
        "preferences": ["tone: friendly", "length: short", "format: bullet points"],
    }


def test_replies_point_only_at_operations_that_exist():
    info = {"topics": ["fur"], "frequency": "weekly"}
    served = {"POST /v1/tracking/subscriptions"}
    text = reply.reply("TRACK_ISSUES", info, memory=None, available=served)
    assert "POST /v1/tracking/subscriptions" in text
    assert '"frequency": "weekly"' in text
    missing = reply.reply(
        "INVESTIGATE_COMPANY", {"companyName": "Harlow Foods"}, memory=None, available=served
    )
    assert "cannot do that for you yet" in missing


def test_legal_replies_carry_the_disclaimer():
    text = reply.reply("LEGAL_HELP", {"activity": "protest"}, memory=None, available=set())
    assert reply.DISCLAIMER in text


def test_holdout_accuracy_does_not_drop_below_the_word_models():
    """0.917 (165/180) before the embedding model (issue 29: it must not drop)."""
    holdout = read_jsonl(DATA / "holdout.jsonl")
    assert len(holdout) >= 150
    assert accuracy(model(), holdout) >= 165 / 180


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        # advice on the user's own next step, a company named as context: chat (decision 0054)
        ("Norbury Foods never answered our email about broiler welfare. How do we step things "
         "up?", "GENERAL_CHAT"),
        ("Aldi said no to a meeting. Should we go public now or give them another month?",
         "GENERAL_CHAT"),
        ("the new CEO at Greggs keeps postponing our call - how would you handle it?",
         "GENERAL_CHAT"),
        ("Compass Group sent a vague reply that commits to nothing. What is our best move?",
         "GENERAL_CHAT"),
        # facts about the company, asked to plan a campaign against it: research
        ("Before we go after Norbury Foods, who are its biggest customers?",
         "INVESTIGATE_COMPANY"),
        ("We are about to launch on Aldi. What has it promised on cage-free eggs so far?",
         "INVESTIGATE_COMPANY"),
        ("who actually decides on chicken sourcing at Greggs? planning an ask",
         "INVESTIGATE_COMPANY"),
        ("How did Compass Group react the last time campaigners targeted it?",
         "INVESTIGATE_COMPANY"),
    ],
)  # fmt: skip
def test_research_of_a_named_company_is_told_from_advice_on_what_to_do(message, intent):
    """Messages written for this test, in neither the training set nor a held-out set."""
    assert detect_intent(message)[0] == intent


def test_messages_in_styles_the_training_set_lacked_are_understood():
    """Issue 29's held-out set (bench/data/intent_holdout_styles.jsonl: long, lower case,
    typos, brand names only, a company's strategy...), written apart and never tuned on: the
    intent, and the company an INVESTIGATE_COMPANY message names, as the issue asks."""
    from bench.intent import STYLES, _company_key

    rows = [json.loads(line) for line in STYLES.read_text().splitlines() if line.strip()]
    detected = [detect_intent(row["text"]) for row in rows]
    right = sum(intent == row["intent"] for (intent, _, _), row in zip(detected, rows, strict=True))
    assert right / len(rows) >= 0.95
    named = [
        (row, extract("INVESTIGATE_COMPANY", row["text"]).get("companyName"))
        for row in rows
        if row.get("companyName")
    ]
    exact = sum(_company_key(got) == _company_key(row["companyName"]) for row, got in named)
    assert exact / len(named) >= 0.90


def test_holdout_never_overlaps_training():
    normal = {" ".join(t.lower().split()) for t, _ in read_jsonl(DATA / "train.jsonl")}
    assert not any(
        " ".join(t.lower().split()) in normal for t, _ in read_jsonl(DATA / "holdout.jsonl")
    )


def test_only_messages_the_word_model_is_unsure_of_are_embedded(monkeypatch):
    """The embedding is most of a detection's time: a message the word model is sure of
    (``words_sure``, chosen by cross-validation, decision 0054) is answered without it."""
    from common.language import minilm

    engine = model()
    real = minilm.get_model
    calls: list[int] = []
    monkeypatch.setattr(minilm, "get_model", lambda: calls.append(1) or real())

    sure = "Please write a tweet about cage-free eggs"
    unsure = "what is mercado verde doing on cage-free eggs"
    assert not engine.needs_meaning(engine.word_probabilities(sure))
    assert engine.needs_meaning(engine.word_probabilities(unsure))
    assert detect_intent(sure)[0] == "CREATE_CONTENT"
    assert calls == []
    detect_intent(unsure)
    assert calls == [1]


def test_committed_model_is_the_one_the_training_data_gives():
    """Run ``python -m common.offline.train`` after editing the training set, the features or
    the training code (``fingerprint``)."""
    assert json.loads(MODEL_PATH.read_text())["trainedOn"] == fingerprint()


# Strategy and persuasion questions are GENERAL_CHAT, real legal questions LEGAL_HELP (decision
# record 0028). None of these messages is in the training data.
STRATEGY = [
    "What are the strongest arguments for a cage-free pledge campaign?",
    "How do we persuade a supermarket to drop battery-cage eggs?",
    "How should we plan a six-month corporate campaign?",
    "Can we use the welfare argument or the economic argument with retailers?",
    "What tactics escalate pressure on a company that broke its pledge?",
    "Should we go public or negotiate privately with Harlow Foods first?",
    "Which messaging works best with undecided voters on animal testing?",
    "How can we get a hotel chain's leadership to take our welfare ask seriously?",
    "Is a public campaign or a private letter the better opening move with a grocery chain?",
]
LEGAL = [
    "Is it legal to film inside a slaughterhouse in Iowa?",
    "Do we need police permission for a march in London?",
    "Could we be sued for calling a company's pledge a lie?",
    "Can we legally picket outside a supermarket that broke its cage-free pledge?",
    "Can the police stop us from protesting outside a company's headquarters in Toronto?",
]


def test_strategy_questions_are_chat_and_legal_questions_stay_legal():
    trained = {" ".join(t.lower().split()) for t, _ in read_jsonl(DATA / "train.jsonl")}
    assert not any(" ".join(t.lower().split()) in trained for t in STRATEGY + LEGAL)
    assert [detect_intent(t)[0] for t in STRATEGY] == ["GENERAL_CHAT"] * len(STRATEGY)
    assert [detect_intent(t)[0] for t in LEGAL] == ["LEGAL_HELP"] * len(LEGAL)


def test_confidence_is_a_probability():
    intent, confidence, _ = detect_intent("Please write a tweet about cage-free eggs")
    assert intent == "CREATE_CONTENT"
    assert 0.0 < confidence <= 1.0
    assert abs(sum(model().probabilities("hello").values()) - 1.0) < 1e-9


@pytest.mark.parametrize(
    ("message", "organization", "role"),
    [
        # the phrasings of issue 25, and the same typed in lower case
        (
            "I'm Sam, policy officer at Finwatch Collective.",
            "Finwatch Collective",
            "policy officer",
        ),
        ("i'm sam, policy officer at finwatch collective", "finwatch collective", "policy officer"),
        (
            "I work as a corporate campaigner for Fur Free Futures.",
            "Fur Free Futures",
            "corporate campaigner",
        ),
        ("Campaigns lead at Hen Harbour here, quick question.", "Hen Harbour", "campaigns lead"),
        ("Jo here, head of investigations at Tailwind.", "Tailwind", "head of investigations"),
        ("I'm the founder of Plantfirst, a group for vegan school meals.", "Plantfirst", "founder"),
        ("I work for Otwarte Klatki as an investigator.", "Otwarte Klatki", "investigator"),
        # a role said by its verb (issue 47, decision 0092)
        ("i run comms for open cages uk and mostly do press", "open cages uk", "comms lead"),
        (
            "I coordinate volunteers for Paws Place in Leeds.",
            "Paws Place",
            "volunteer coordinator",
        ),
        ("comms lead at a small rescue called Whisker Haven", "Whisker Haven", "comms lead"),
        (
            "Greetings from Nairobi! I'm a ranger with Tsavo Guardians.",
            "Tsavo Guardians",
            "ranger",
        ),
        (
            "The Humane League UK - I'm their head of campaigns.",
            "The Humane League UK",
            "head of campaigns",
        ),
        (
            "Our team at Meridian Society for Animals is small.",
            "Meridian Society for Animals",
            None,
        ),
        ("I lead cage-free work at Sunrise for Hens.", "Sunrise for Hens", None),
        # someone else's role, or no organisation at all
        ("I'll write to their head of sourcing at Harlow Foods.", None, None),
        ("I work from home on Fridays.", None, None),
        ("I'm Dana, I volunteer for Dana.", None, "volunteer"),  # a person is no organisation
    ],
)
def test_memory_reads_ordinary_introductions(message, organization, role):
    memory = extract_memory([{"role": "user", "content": message}])
    assert (memory["organization"], memory["role"]) == (organization, role)


@pytest.mark.parametrize(
    ("message", "causes"),
    [
        ("I'm vegan and I volunteer at a dog and cat rescue.", ["companion-animals"]),
        ("Peter Singer is my hero. I work on fishing bycatch.", ["fishing"]),
        ("We run a petition drive on fur farms.", ["fur"]),
        (
            "We oppose trophy hunting and the use of monkeys in labs.",
            ["wildlife", "animal-testing"],
        ),
    ],
)
def test_memory_cause_areas_are_what_people_work_on(message, causes):
    """Decision 0092: a diet is no cause area, a person's name or a petition is no pet, and
    people's own words for a topic count."""
    assert extract_memory([{"role": "user", "content": message}])["causeAreas"] == causes


def test_memory_cause_areas_come_from_the_users_own_work_not_their_questions():
    memory = extract_memory(
        [
            {"role": "user", "content": "I'm with Fur Free Futures. We work on salmon farms."},
            {"role": "user", "content": "Which zoos still keep orcas?"},
        ]
    )
    assert memory["organization"] == "Fur Free Futures"
    assert memory["causeAreas"] == ["aquaculture"]  # not fur (the name), not zoos (a question)


def test_memory_patterns_are_bounded_on_hostile_text():
    """A name-and-comma run once made the introduction pattern backtrack without end."""
    hostile = "I'm " + "Abc, " * 2000 + "x"
    assert extract_memory([{"role": "user", "content": hostile}])["role"] is None
    # a pattern that could start inside a word ran from every letter of a long run: quadratic
    # (decision 0092's "X is where I work", "Sofia from X", and "X here")
    for run in ("AB-" * 20000, "A" * 60000, "Ab from " * 8000):
        assert extract_memory([{"role": "user", "content": run}])["role"] is None
