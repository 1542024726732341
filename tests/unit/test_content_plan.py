"""A plan per content type (issue 46, decision 0081): the organisation an audience names, and a
topic as a frame sentence holds it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from functions.content.compose import _topic
from functions.content.service import organisation_of


@pytest.mark.parametrize(
    ("audience", "organisation"),
    [
        ("the CEO of Brightwell Supermarkets", "Brightwell Supermarkets"),
        ("the Head of Sustainability at Harlow & Finch Foods", "Harlow & Finch Foods"),
        ("Lumière Beauté's Head of Regulatory Affairs", "Lumière Beauté"),
        ("Brightwell Supermarkets' Director of Agriculture", "Brightwell Supermarkets"),
        ("Sainsbury's head of sourcing", "Sainsbury's"),
        ("McDonald's UK", "McDonald's"),
        ("Crestline Eggs Ltd", "Crestline Eggs Ltd"),
        ("the Harbourside Port Authority board", "Harbourside Port Authority"),
        ("Greenleaf Bakeries Ltd buying team", "Greenleaf Bakeries Ltd"),
        ("the buyers at Tesco, in London", "Tesco"),
        ("the head of procurement at Northgate Foods in Leeds", "Northgate Foods"),
        ("Fiona Carrick at Harlow & Finch", "Harlow & Finch"),
        ("Fiona Carrick's team", None),
        ("our supporters", None),
        ("local councillors", None),
        ("the Minister of State", None),
        ("the company's board", None),
        # a role, then whose it is after a comma
        ("Head of Cargo, Skyward Cargo Airlines", "Skyward Cargo Airlines"),
        (
            "Head of Stewardship, Coalition for Responsible Protein Investment",
            "Coalition for Responsible Protein Investment",
        ),
        ("Ms Jane Smith, Head of Sourcing", None),
        ("the buyers, Leeds", None),
        # "of" inside a government's name, which opens with its kind (spent set 30)
        (
            "the Animal Care Program at the California Department of Food and Agriculture",
            "the California Department of Food and Agriculture",
        ),
        ("the Secretary of State of the Department of Health", "the Department of Health"),
        ("the press office of the Iowa Senate", "the Iowa Senate"),
        ("the Head of Sourcing of Brightwell Supermarkets", "Brightwell Supermarkets"),
        ("the Board of Directors of Brightwell Supermarkets", "Brightwell Supermarkets"),
    ],
)
def test_the_organisation_an_audience_names(audience, organisation):
    assert organisation_of(audience) == organisation


@pytest.mark.parametrize(
    ("topic", "framed"),
    [
        ("cage-free eggs", "cage-free eggs"),
        ("fur farming ban", "the fur farming ban"),
        ("Better Chicken Commitment", "the Better Chicken Commitment"),
        ("Brightwell's cage-free pledge", "Brightwell's cage-free pledge"),
        ("Proposition 12", "Proposition 12"),
        ("stop building colony cage sheds.", "\u201cstop building colony cage sheds\u201d"),
        ("cut stocking density to 30 kg", "\u201ccut stocking density to 30 kg\u201d"),
        ("table the law you promised", "\u201ctable the law you promised\u201d"),
        ("Does the policy cover ingredients?", "\u201cDoes the policy cover ingredients?\u201d"),
        ("what about fish?", "\u201cwhat about fish?\u201d"),
        # a sentence's capital is lowered inside a frame sentence; a name's, a place's and a
        # day's are kept
        ("The duty of care under the Act", "the duty of care under the Act"),
        ("Lessons from our first demo", "lessons from our first demo"),
        ("Iowa ag-gag laws", "Iowa ag-gag laws"),
        ("Dairyvale bobby calf slaughter", "Dairyvale bobby calf slaughter"),
        ("Compassion in World Farming's report", "Compassion in World Farming's report"),
        ("Friends of the Earth and farming", "Friends of the Earth and farming"),
        ("Target stores and cage-free eggs", "Target stores and cage-free eggs"),
        ("Labour's welfare plans", "Labour's welfare plans"),
        # a question anywhere in it, or opening with a contracted question word
        (
            "What's in your egg box? Reading the code",
            "\u201cWhat's in your egg box? Reading the code\u201d",
        ),
        # a topic that is a sentence is quoted as written
        (
            "Salmon farms must stop thermal delousing",
            "\u201cSalmon farms must stop thermal delousing\u201d",
        ),
        (
            "Nordmark Outerwear still sells fox-fur trim",
            "\u201cNordmark Outerwear still sells fox-fur trim\u201d",
        ),
        ("Westwind keeps shipping calves", "\u201cWestwind keeps shipping calves\u201d"),
        # a verb in the past after its subject ("writing to you about Velora went ..." did not
        # parse); a word in -ed before a noun is no verb
        ("Velora went fur-free, now skins", "\u201cVelora went fur-free, now skins\u201d"),
        ("Denmark culled every farmed mink", "\u201cDenmark culled every farmed mink\u201d"),
        ("Crestline missed its 2025 deadline", "\u201cCrestline missed its 2025 deadline\u201d"),
        ("Brightwell farmed salmon", "Brightwell farmed salmon"),
        ("Enriched colony cages", "enriched colony cages"),
        # the writer speaking is a sentence ("regarding as a retired vet I want ..." did not
        # parse); "I" after a capitalised word is a numeral
        ("as a vet I want crabs protected", "\u201cas a vet I want crabs protected\u201d"),
        ("I'm asking about fur", "\u201cI'm asking about fur\u201d"),
        ("Annex I of the Directive", "Annex I of the Directive"),
        # who asks whom is a sentence ("to act on Fur Free Futures calls on ..." did not parse)
        (
            "Fur Free Futures calls on Nordmark to drop fur trims",
            "\u201cFur Free Futures calls on Nordmark to drop fur trims\u201d",
        ),
        (
            "Long Haul Watch asks Harbourside to stop calf trailers",
            "\u201cLong Haul Watch asks Harbourside to stop calf trailers\u201d",
        ),
        (  # "call on", the plural's
            "campaigners call on Brightwell to end farrowing crates",
            "\u201ccampaigners call on Brightwell to end farrowing crates\u201d",
        ),
        ("calls for a ban on fur", "calls for a ban on fur"),
        # a headline with a dash, as with a colon (decision 0090)
        ("Westwind - stop shipping calves", "\u201cWestwind - stop shipping calves\u201d"),
        ("Saturday march against cages", "Saturday march against cages"),
        ("CITES for beginners", "CITES for beginners"),
        # a past form that is never a participle makes a sentence whatever its subject, and a
        # quoted question has its stop (decision 0091)
        (
            "California's fur ban took effect in 2023",
            "\u201cCalifornia's fur ban took effect in 2023\u201d",
        ),
        ("eggs sold in the EU", "eggs sold in the EU"),
        # the noun's own determiner, wherever it stands, takes the place of "the"
        ("Fiona Carrick and the pledge", "Fiona Carrick and the pledge"),
    ],
)
def test_a_topic_as_a_frame_sentence_holds_it(topic, framed):
    assert _topic(topic) == framed


def test_a_topic_in_markdown_never_adds_markup():
    assert _topic("cats & <dogs> ban", markdown=True) == "the cats & &lt;dogs&gt; ban"
    # an ampersand that would start an entity is escaped; "Harlow & Finch" reads as written
    assert _topic("&lt;b&gt; &#60; cats", markdown=True) == "&amp;lt;b&amp;gt; &amp;#60; cats"


def test_a_company_named_by_its_legal_form_abroad():
    assert organisation_of("Fjordlax Seafood ASA") == "Fjordlax Seafood ASA"
    assert organisation_of("the board of Moorfeld Geflügel GmbH") == "Moorfeld Geflügel GmbH"


def test_a_callers_markup_spelled_in_entities_is_cut_an_articles_is_kept():
    """Review of issue 46: "&lt;script&gt;" in a topic reached an email subject as <script>."""
    from common.language.markup import plain

    spelled = "enriched cages &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;now&lt;/b&gt;"
    assert plain(spelled, strict=True) == "enriched cages now"
    assert plain("the CEO of &lt;b&gt;Acme&lt;/b&gt;", strict=True) == "the CEO of Acme"
    assert plain("a &lt; b and c &gt; d", strict=True) == "a < b and c > d"
    quoted = 'Feeds may declare &lt;!ENTITY lol "lol"&gt; in a DTD.'
    assert plain(quoted) == 'Feeds may declare <!ENTITY lol "lol"> in a DTD.'


def test_a_tables_name_is_found_by_its_shorter_forms_but_never_by_a_word() -> None:
    """``organisation_in``: "Crestline Eggs Ltd" is "Crestline Eggs" and "Crestline" in a
    topic; "Open Barn Alliance" is never "Open Barn", nor "Green Farms Ltd" "Green"."""
    from functions.content.service import _short_forms

    assert _short_forms("Crestline Eggs Ltd") == ["Crestline Eggs", "Crestline"]
    assert _short_forms("Harlow & Finch Foods") == ["Harlow & Finch"]
    assert _short_forms("Open Barn Alliance") == []
    assert _short_forms("Green Farms Ltd") == ["Green Farms"]
    assert _short_forms("Brightwell") == []
    assert _short_forms("Brightwell Supermarkets") == ["Brightwell"]  # no English word


@pytest.mark.parametrize(
    "sentence",
    [
        "Enforcement of these provisions is uneven across the member states.",
        "Among its recommendations were longer contact between the calf and its dam.",
        "Done badly, it alienates the public and harms volunteers.",
        "A district court held this law unconstitutional as viewpoint-based.",
        "USDA does not apply the Act to poultry, which are most land animals slaughtered.",
    ],
)
def test_public_copy_reads_a_sentence_that_points_back_as_leaning(sentence):
    """Public copy is read without the question that gives an answer its context: a word
    pointing back among a sentence's first words, "this law", or "the Act" by its kind alone
    leave the reader asking which (an answer to a question may still quote them)."""
    from functions.content.compose import POINTS_BACK, _dependence
    from functions.content.texts import drafts

    assert _dependence(sentence, drafts(), public=True) >= POINTS_BACK
    assert _dependence(sentence, drafts()) < POINTS_BACK


@pytest.mark.parametrize(
    "sentence",
    [
        "Sows and their piglets are kept in crates for four weeks.",
        "The Animal Welfare Act 2006 is the main animal welfare law in England and Wales.",
        "Under the Act (section 4), causing unnecessary suffering is an offence.",
    ],
)
def test_a_sentence_that_names_what_it_is_about_stands_alone(sentence):
    from functions.content.compose import POINTS_BACK, _dependence
    from functions.content.texts import drafts

    assert _dependence(sentence, drafts(), public=True) < POINTS_BACK


@pytest.mark.parametrize(
    ("sentence", "advice"),
    [
        ("Ask authorities to refuse journey plans that cannot be completed legally.", True),
        ("Give callers a short script and a clear ask.", True),
        ("Campaigns on dairy calves ask for pair or group housing from birth.", True),
        ("Airlines can be asked to refuse shipments of primates.", True),
        ("Fur campaigns work on three fronts: brands, legislation and retailers.", True),
        ("Test results show that hens in cages cannot dustbathe.", False),
        ("Check-ups by vets are required every year.", False),
        ("Making cages illegal took ten years of campaigning.", False),
    ],
)
def test_advice_for_campaigners_is_read_by_kind(sentence, advice):
    """Decision 0084: an instruction by a verb that never opens a statement of fact, and what
    campaigns ask for or how they work, are advice for campaigners (``drafts.toml``)."""
    from functions.content.texts import advice as patterns

    assert bool(patterns().search(sentence.lower())) is advice


def test_a_draft_asks_its_audience_unless_only_the_topic_names_the_organisation() -> None:
    from functions.content.compose import Spec, addressee

    def spec(audience: str | None, organisation: str | None) -> Spec:
        return Spec(
            "cage-free eggs", "petition", "web", audience=audience, organisation=organisation
        )

    assert addressee(spec("the CEO of Brightwell", "Brightwell")) == "the CEO of Brightwell"
    assert addressee(spec("shoppers in Leeds", "Marigold Grocers")) == "Marigold Grocers"
    assert addressee(spec(None, "Marigold Grocers")) == "Marigold Grocers"
    assert addressee(spec("our supporters", None)) == "our supporters"
    assert addressee(spec(None, None)) is None
    # a petition for the organisation's public calls on the organisation (decision 0087)
    assert addressee(spec("shoppers at Brightwell", "Brightwell")) == "Brightwell"
    letter = Spec("cage-free eggs", "letter", "email", audience="Brightwell customers")
    assert addressee(replace(letter, organisation="Brightwell")) == "Brightwell customers"
    head = spec("Brightwell's head of customer relations", "Brightwell")  # a decision maker
    assert addressee(head) == "Brightwell's head of customer relations"


def test_the_places_a_draft_is_for_are_not_in_a_name_nor_a_capital_at_its_start() -> None:
    from functions.content.compose import Spec, _places_for

    def at(topic: str, audience: str | None = None, organisation: str | None = None):
        return _places_for(
            Spec(topic, "letter", "email", audience=audience, organisation=organisation)
        )

    assert at("Turkey welfare at Christmas") == frozenset()
    assert at("cage-free eggs", "Iceland Foods", "Iceland Foods") == frozenset()
    assert at("California egg law") == frozenset({"us-ca"})
    assert at("UK: sow stalls") == frozenset({"uk"})
    assert at("fur farming", "MPs in England") == frozenset({"england"})


@pytest.mark.parametrize(
    ("topic", "about", "named"),
    [
        (
            "Could you email the coalition laying out the investor case on bird flu?",
            "the investor case on bird flu",
            None,
        ),
        (  # what is left may lose what the topic is covered by ("Airlines"): coverage is
            # judged on the topic as given too (decision 0092)
            "write to Skyward Cargo Airlines asking them to stop flying monkeys",
            "Please stop flying monkeys",
            "Skyward Cargo Airlines",
        ),
        (
            "bobby calves: write to Dairyvale asking for real targets on sexed semen",
            "real targets on sexed semen",
            "Dairyvale",
        ),
        (
            "lion bone permits - press release urging the Wildlife Authority to stop issuing them",
            "Please stop issuing lion bone permits",
            "the Wildlife Authority",
        ),
        (
            "BazaarHub still lists ivory - letter asking them to enforce their own ban",
            "BazaarHub still lists ivory - please enforce their own ban",
            None,
        ),
        (
            "Pellucid Labs, stop paying for animal tests",
            "Please stop paying for animal tests",
            "Pellucid Labs",
        ),
        ("Marigold Grocers, you went crate-free on pork", None, None),
        ("Why mink farms are a pandemic risk (blog)", "Why mink farms are a pandemic risk", None),
        (
            "PR: Prairie State revives its farm-access bill",
            "Prairie State revives its farm-access bill",
            None,
        ),
        ("newsletter blog: why we never protest at homes", "why we never protest at homes", None),
        ("email our volunteers: how to report neglect", "how to report neglect", "our volunteers"),
        ("ELI5 the iowa ag-gag cases", "the iowa ag-gag cases", None),
        ("Write a letter to Tesco about cage-free eggs", "cage-free eggs", "Tesco"),
        (
            "letter to my MP: farrowing crates are still legal",
            "farrowing crates are still legal",
            "my MP",
        ),
        ("can you do a thread on fish welfare?", "fish welfare", None),
        # what the writer is asked to do, or the draft's genre (spent set 30, decision 0086)
        (
            "explain Iowa's ag-gag law after the 8th Circuit ruling",
            "Iowa's ag-gag law after the 8th Circuit ruling",
            None,
        ),
        ("supporter update on the End the Cage Age reply", "the End the Cage Age reply", None),
        (  # not a genre: whose update, or none
            "No update on Brightwell's cage-free pledge",
            "No update on Brightwell's cage-free pledge",
            None,
        ),
        (
            "explain to my MP why sow stalls are cruel",
            "explain to my MP why sow stalls are cruel",
            None,
        ),
        # the genre, whom it is for and what it is about (spent set 41, decision 0090)
        (
            "letter to Brightwell Supermarkets re sow stalls in its pork supply",
            "sow stalls in its pork supply",
            "Brightwell Supermarkets",
        ),
        (
            "linkedin post for retail buyers on the broiler breed deadline",
            "the broiler breed deadline",
            "retail buyers",
        ),
        ("Thread: fish can feel pain", "fish can feel pain", None),
        (  # a letter asking them to act asks it
            "letter to my MP asking them to back a ban on fur imports",
            "Please back a ban on fur imports",
            "my MP",
        ),
        ("petition to Nordmark - drop fox fur trims", "drop fox fur trims", "Nordmark"),
        (  # whom it calls on by name, then what it asks, after its genre is cut
            "Petition: Nordmark, drop your fox fur trims",
            "Please drop your fox fur trims",
            "Nordmark",
        ),
        ("Sow stalls, what the law says", "Sow stalls, what the law says", None),
        # a platform or a length before the genre, the genre after the topic (spent set 42)
        ("short x post - fur farms close in Ireland", "fur farms close in Ireland", None),
        ("Facebook: how egg codes work", "how egg codes work", None),
        ("thread- why crates are not stalls", "why crates are not stalls", None),
        ("egg codes explained. quick insta caption pls", "egg codes explained", None),
        ("why sow stalls matter — a thread for new followers", "why sow stalls matter", None),
        # asking, calling on, writing to someone with a colon, a press release for its issuer
        (
            "petition to Westwind to stop shipping unweaned calves",
            "Please stop shipping unweaned calves",
            "Westwind",
        ),
        (
            "email asking volunteers to staff the stall on Saturday",
            "Please staff the stall on Saturday",
            "volunteers",
        ),
        (
            "press release calling on retailers to drop caged eggs",
            "retailers: drop caged eggs",
            "retailers",
        ),
        ("Write to Nordmark: no more fox fur trims", "no more fox fur trims", "Nordmark"),
        ("petition Nordmark: drop fox fur trims", "drop fox fur trims", "Nordmark"),
        ("press release for Hen Watch: cage sheds still built", "cage sheds still built", None),
        ("Write a long-read on sea lice: lice harm fish", "sea lice: lice harm fish", None),
        ("email our volunteers about the march route", "the march route", "our volunteers"),
        ("press release welcoming the new fur import ban", "the new fur import ban", None),
        (  # two words before the genre are a topic of their own, not the genre's
            "Cage-free pledge email: what to say",
            "Cage-free pledge email: what to say",
            None,
        ),
        # the words that open a request before its genre, a genre after a question or a
        # cry, an occasion's prep, a petition for what it asks, a genre said in passing
        # (spent sets 43 and 44, decision 0091)
        (
            "Write an email to Dairyvale asking them to stop killing calves",
            "Please stop killing calves",
            "Dairyvale",
        ),
        (
            "pls draft a letter to Marlow Heath District Council - they license pet sellers",
            "they license pet sellers",
            "Marlow Heath District Council",
        ),
        (
            "Pellucid Labs still tests on animals - need an email to them",
            "Pellucid Labs still tests on animals",
            None,
        ),
        (
            "Why are calves taken from cows? Facebook post please",
            "Why are calves taken from cows",
            None,
        ),
        ("egg codes - what do they mean? make it a thread", "egg codes - what do they mean", None),
        (
            "our petition passed 10,000 signatures!! email to signers",
            "our petition passed 10,000 signatures",
            None,
        ),
        (
            "Start a petition: Flotte must put cameras on trawlers",
            "Flotte must put cameras on trawlers",
            None,
        ),
        ("radio interview prep: journey limits", "journey limits", None),
        (
            "Lobby day talking points: farm animals lack federal protection",
            "farm animals lack federal protection",
            None,
        ),
        ("petition to mercado verde for cage free eggs", "cage free eggs", "mercado verde"),
        ("points for our meeting with the sourcing team on their pledge", "their pledge", None),
        (
            "Explain the escalation ladder in a thread: letter -> petition",
            "the escalation ladder",
            None,
        ),
        ("s.338 resolutions - key points", "s.338 resolutions", None),
        (  # the occasion is not whom the points are for, nor part of what they are about
            "Talking points for our liaison if officers impose conditions on our protest",
            "Talking points for our liaison if officers impose conditions on our protest",
            None,
        ),
        # a later part or clause that asks the tool is set aside, or read for what the draft
        # is about, after a question before it (decision 0092)
        (
            "Battery cages in Spain — explain it in a thread, ppl think they were banned",
            "Battery cages in Spain",
            None,
        ),
        (
            "mulesing vs crutching, people confuse them, can u do a thread on the difference",
            "mulesing vs crutching, people confuse them",
            None,
        ),
        (
            "Why are piglets' tails docked? Facebook post on what tail biting tells us",
            "Why are piglets' tails docked? What tail biting tells us",
            None,
        ),
        (
            "Mink farms closed in 2020. x post on the culls in Denmark",
            "Mink farms closed in 2020. The culls in Denmark",
            None,
        ),
        ("Mink farms closed in 2020. x post on the culls", "Mink farms closed in 2020.", None),
        (
            "can we picket a director's home? Talking points on why not",
            "can we picket a director's home?",
            None,
        ),
        ("Petition rules — how many signatures for a debate", None, None),
        # a name, a colon and an ask of "your"; a post that calls someone out by "@"
        (
            "Fenwick & Lowe: take caged eggs out of your ready meals",
            "Please take caged eggs out of your ready meals",
            "Fenwick & Lowe",
        ),
        ("How to write a press release: put your news first", None, None),
        (
            "@Brightwell Supermarkets where is your cage-free progress report?",
            "where is your cage-free progress report",
            "Brightwell Supermarkets",
        ),
        # no request to the tool, or nothing after it: as given
        ("letter writing tips", "letter writing tips", None),
        ("Could you tell me about ag-gag laws?", "Could you tell me about ag-gag laws?", None),
        ("cage-free eggs", "cage-free eggs", None),
    ],
)
def test_a_request_to_the_tool_is_cut_from_the_topic(topic, about, named):
    """Decision 0084: "regarding write to Skyward Cargo Airlines asking them to ..." read as
    pasted; what the draft is about is what follows the request, and whom it names is the
    audience when the request gives none."""
    from functions.content.service import about_of

    assert about_of(topic) == (about or topic, named)


def test_the_audience_a_request_names_is_used_only_when_none_is_given():
    from functions.content.models import ContentRequest
    from functions.content.service import spec_of

    asked = "Write a letter to Skyward Cargo Airlines about primate shipments"
    spec = spec_of(ContentRequest(topic=asked, contentType="letter"))
    assert (spec.topic, spec.audience) == ("primate shipments", "Skyward Cargo Airlines")
    assert spec.organisation == "Skyward Cargo Airlines"
    given = spec_of(ContentRequest(topic=asked, contentType="letter", audience="its cargo team"))
    assert given.audience == "its cargo team"


def test_a_run_of_question_or_exclamation_marks_in_the_topic_is_one():
    from functions.content.models import ContentRequest
    from functions.content.service import spec_of

    def topic(given: str) -> str:
        return spec_of(ContentRequest(topic=given, contentType="social_post")).topic

    assert topic("what does the 3 on an egg mean?? enriched cages") == (
        "what does the 3 on an egg mean? enriched cages"
    )
    assert topic("stop the crates!!! now?!") == "stop the crates! now?"
    assert topic("What now...") == "What now..."


@pytest.mark.parametrize(
    ("audience", "held"),
    [
        ("campaign team", "the campaign team"),
        ("UK Government", "the UK Government"),
        (
            "Eastbridge University animal ethics committee",
            "the Eastbridge University animal ethics committee",
        ),
        ("our spokesperson", "our spokesperson"),
        ("the board", "the board"),
        ("supporter shareholders", "supporter shareholders"),
        ("Crestline Eggs Ltd", "Crestline Eggs Ltd"),
    ],
)
def test_an_audience_in_a_sentence_takes_the_when_it_names_a_body_or_a_group(audience, held):
    """Decision 0091: "Talking points for campaign team", "call on UK Government to act"."""
    from functions.content.compose import _in_sentence

    assert _in_sentence(audience) == held


def test_a_quoted_question_keeps_its_own_stop():
    from functions.content.compose import _said

    assert _said("'Aren't you just trying to put farmers out of business?'") == (
        "'Aren't you just trying to put farmers out of business?'"
    )


@pytest.mark.parametrize(
    ("topic", "asked"),
    [
        ("Please stop building new colony cage sheds", "stop building new colony cage sheds"),
        ("lower the stocking density in your sheds", "lower the stocking density in their sheds"),
        ("Crestline Eggs: stop building colony cages", "stop building colony cages"),
        ("how do you file a proposal", None),
        ("Sows should be in groups from day one", None),
    ],
)
def test_a_topic_that_is_an_ask_is_what_call_on_asks(topic, asked):
    """Decision 0091: "call on Moorfeld Geflügel to act on lower the stocking density ..."."""
    from functions.content.compose import _asked

    assert _asked(topic) == asked


def test_a_petition_calls_on_its_organisation_to_do_what_the_topic_asks():
    from functions.content.compose import Passage, Spec, compose

    spec = Spec(
        topic="Please lower the stocking density in your broiler sheds",
        content_type="petition",
        platform="web",
        tone="urgent",
        audience="Moorfeld Geflügel",
        organisation="Moorfeld Geflügel",
    )
    passages = [
        Passage(
            text="High stocking density in broiler sheds restricts movement and resting and "
            "worsens litter quality.",
            title="Broilers",
            url="https://example.org/broilers",
            section="Density",
        )
    ]
    draft = compose(spec, passages)
    assert draft is not None
    assert (
        "call on Moorfeld Geflügel to lower the stocking density in their broiler sheds."
        in draft.content
    )
    # its title names whom it asks and the ask as written, without "Please" (decision 0092)
    assert draft.content.startswith(
        "# Petition to Moorfeld Geflügel: lower the stocking density in your broiler sheds\n"
    )


def _passage(text: str):
    """One guide passage holding ``text``."""
    from functions.content.compose import Passage

    return Passage(text=text, title="A guide", url="https://example.org/guide", section="One")


def test_a_request_naming_a_firm_and_calling_someone_out_is_drafted_to_them():
    """Decision 0092: "Hallam & Rowe: get crates out of your pork" names its organisation, and
    a post whose topic opens "@Name" calls them out too."""
    from functions.content.compose import compose
    from functions.content.models import ContentRequest
    from functions.content.service import spec_of

    petition = spec_of(
        ContentRequest(
            topic="Fenwick & Lowe: take caged eggs out of your meals", contentType="petition"
        )
    )
    assert (petition.organisation, petition.topic) == (
        "Fenwick & Lowe",
        "Please take caged eggs out of your meals",
    )
    post = spec_of(
        ContentRequest(
            topic="@Brightwell Supermarkets where is your cage-free report?",
            contentType="social_post",
            platform="x",
        )
    )
    assert post.mention == "@Brightwell Supermarkets"
    draft = compose(post, [_passage("Cage-free pledges need annual public progress reports.")])
    assert draft is not None
    assert draft.content.startswith("@Brightwell Supermarkets ")
    plain = spec_of(
        ContentRequest(topic="where is the cage-free report?", contentType="social_post")
    )
    assert plain.mention is None


def test_a_press_release_on_an_ask_calls_on_its_organisation_to_do_it():
    from functions.content.compose import Spec, compose

    spec = Spec(
        topic="Crestline Eggs: stop building enriched colony cages",
        content_type="press_release",
        platform="web",
        organisation="Crestline Eggs",
    )
    passages = [
        _passage("Enriched colony cages still confine laying hens in cages for their whole lives.")
    ]
    draft = compose(spec, passages)
    assert draft is not None
    assert "today called on Crestline Eggs to stop building enriched colony cages." in draft.content
    assert "# Call for Crestline Eggs to stop building enriched colony cages\n" in draft.content


def test_a_drafts_subject_is_what_it_asks_without_its_please():
    """Decision 0091: the judge read "Please" as a word no passage answers."""
    from functions.content.service import subject

    assert subject("Please stop killing bobby calves", None) == "stop killing bobby calves"
    assert subject("Please", None) == "Please"  # nothing else left: as given


def test_a_draft_that_calls_on_an_organisation_is_measured_near_the_best_passage_it_may_quote():
    """Decision 0091: a passage of campaign advice, which such a draft never quotes, does not
    set the bar its facts must come near."""
    from functions.content.compose import NEAR, Passage, Spec, compose

    advice = Passage(
        text="Campaigns on dairy calves ask for pair or group housing from birth, pain relief "
        "for all disbudding and published annual data on the fate of male calves.",
        title="Dairy calf welfare",
        url="https://example.org/calves",
        section="What campaigns ask for",
        score=0.65,
    )
    transport = Passage(
        text="Calves under ten days old may be transported only if the journey is less than "
        "100 km.",
        title="Animal transport",
        url="https://example.org/transport",
        section="Young animals",
        score=0.59,
    )
    male = Passage(
        text="Male dairy calves have little value in breeds selected for milk, and many are "
        "killed within days of birth.",
        title="Dairy calf welfare",
        url="https://example.org/calves",
        section="Surplus calves",
        score=0.45,
    )
    assert male.score < NEAR * advice.score  # far from the advice
    assert male.score >= NEAR * transport.score  # near the best it may quote
    spec = Spec(
        topic="stop killing bobby calves at a few days old",
        content_type="letter",
        platform="web",
        audience="Dairyvale Cooperative",
        organisation="Dairyvale Cooperative",
    )
    draft = compose(spec, [advice, transport, male])
    assert draft is not None
    assert 2 in {f.passage for f in draft.facts}


def test_a_topic_whose_cut_is_not_covered_is_judged_as_given(monkeypatch):
    """Decision 0092: cutting a request's words from its topic can leave words the judge finds
    less ("Thinking of buying a parrot online? Where exotic pets come from"); the topic as the
    request gave it is judged before the draft is refused."""
    from functions.content import service
    from functions.content.compose import Spec
    from functions.knowledge.service import Found

    judged: list[str] = []

    def covering(topic: str, audience: str | None = None, length: str = "medium") -> Found:
        judged.append(topic)
        return Found([], 0.9 if "Facebook post" in topic else 0.01, True)

    monkeypatch.setattr(service, "covering", covering)
    given = "Parrots online? Facebook post on where exotic pets come from"
    cut = Spec(
        topic="Parrots online? Where exotic pets come from",
        content_type="social_post",
        platform="facebook",
        given=given,
    )
    assert service.passages_for(cut) == []  # covered: no passage left to quote, no refusal
    assert judged == [cut.topic, given]
    with pytest.raises(service.NotCovered):
        service.passages_for(Spec(topic=cut.topic, content_type="social_post", platform="facebook"))
