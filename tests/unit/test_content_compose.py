"""The offline content engine without I/O: counting as platforms count, sentence splitting,
fact choice, and fitting posts and threads within their limits without cutting a sentence
(but to its main clause when no whole sentence fits, decision 0079)."""

from __future__ import annotations

import pytest

from common.errors import DraftDoesNotFit, NotCovered
from common.language import citations
from common.language.sentences import split
from functions.content import service
from functions.content.compose import (
    Passage,
    Spec,
    cite,
    compose,
    count,
    facts,
    hashtags,
    main_clause,
)
from functions.content.texts import drafts

HENS = Passage(
    text=(
        "Laying hens are kept in cages, barns or free-range systems. In 2012 the EU banned "
        "barren battery cages for laying hens across all member states. It also set space "
        "rules for enriched cages, at least 750 square centimetres per hen. Hens are strongly "
        "motivated to nest, perch and dust-bathe, and cages prevent most of these behaviours."
    ),
    title="Laying hens",
    url="https://example.org/hens",
    section="Laying hens > Cages",
)
PLEDGES = Passage(
    text=(
        "By 2024 more than 2,000 companies had published cage-free egg pledges worldwide. "
        "Accountability work checks whether companies keep their cage-free pledges. "
        "Animal Legal Defense Fund v. Reynolds, No. 22-1830, was decided in 2024."
    ),
    title="Corporate campaigns",
    url="https://example.org/campaigns",
    section="Corporate campaigns",
)


def test_x_counts_links_as_23_and_wide_characters_as_2():
    assert count("a" * 10, "x") == 10
    assert count("see https://example.org/" + "x" * 200, "x") == len("see ") + 23
    assert count("\u732b", "x") == 2  # CJK
    assert count("\U0001f414", "x") == 2  # emoji
    assert count("\u2014\u201c\u201d", "x") == 3  # general punctuation counts 1
    assert count("\u732b", "instagram") == 1  # elsewhere: code points
    assert count("e\u0301", "x") == 1  # NFC first: é is one character


def test_sentences_do_not_end_at_abbreviations():
    assert split(PLEDGES.text)[-1] == (
        "Animal Legal Defense Fund v. Reynolds, No. 22-1830, was decided in 2024."
    )
    assert len(split(HENS.text)) == 4


def test_facts_hold_the_topic_prefer_figures_and_push_back_sentences_that_lean_on_others():
    found = [f.text for f in facts("cage-free egg pledges", [HENS, PLEDGES])]
    assert found[0].startswith("By 2024 more than 2,000 companies")
    assert all("cage" in f.lower() or "pledg" in f.lower() for f in found)
    leaning = Passage(
        "It banned sow stalls on every farm from 2013 onwards, with inspections. "
        "Denmark phased out sow stalls for pregnant pigs in 2015 after a long debate.",
        "Pigs",
        None,
        "Pigs",
    )
    first, second = (f.text for f in facts("sow stalls", [leaning]))
    assert first.startswith("Denmark")
    assert second.startswith("It ")


def test_nothing_on_the_topic_is_no_draft():
    assert facts("quantum chromodynamics", [HENS, PLEDGES], require_overlap=True) == []
    assert compose(Spec("quantum chromodynamics", "social_post", "x"), [HENS]) is None


def test_hashtags_come_from_the_topic_catalog_then_the_general_ones():
    assert hashtags("cage-free eggs") == ["#CageFree", "#AnimalWelfare"]
    assert hashtags("something else") == ["#AnimalWelfare"]


def test_a_post_gives_up_hashtags_and_the_opening_before_its_fact():
    long_topic = "the welfare of laying hens in " + "very " * 30 + "large cage systems"
    draft = compose(Spec(long_topic, "social_post", "x", cta="Act now."), [HENS, PLEDGES])
    assert draft is not None
    assert count(draft.content, "x") <= 280
    assert draft.facts  # a whole sentence of a passage, uncut
    assert draft.facts[0].text in draft.content
    assert "very very" not in draft.content  # the opening with the long topic did not fit


@pytest.mark.parametrize("length", ["short", "medium", "long"])
def test_every_post_of_a_thread_fits_and_is_numbered(length):
    draft = compose(Spec("cage-free laying hens", "thread", "x", length=length), [HENS, PLEDGES])
    assert draft is not None
    total = len(draft.posts)
    for i, post in enumerate(draft.posts, 1):
        assert count(post, "x") <= 280
        assert post.endswith(f" {i}/{total}")


def test_long_forms_list_their_sources_and_leave_placeholders_for_the_author():
    draft = compose(
        Spec("cage-free egg pledges", "press_release", "web", tone="formal"), [HENS, PLEDGES]
    )
    assert draft is not None
    assert "[Your organisation]" in draft.content
    assert "- Corporate campaigns: https://example.org/campaigns" in draft.content


def test_public_copy_never_quotes_advice_written_for_campaigners():
    guide = Passage(
        "Closing ask: close with one clear ask and a date for a reply about cage-free eggs. "
        "Check every claim about cage-free pledges against a source you can produce. "
        "By 2024 more than 2,000 companies had published cage-free egg pledges worldwide. "
        "Campaigners should say whether cage-free excludes enriched colony cages (it should).",
        "Corporate campaigns",
        None,
        "Asks",
    )
    public = [f.text for f in facts("cage-free egg pledges", [guide], public=True)]
    assert public == [
        "By 2024 more than 2,000 companies had published cage-free egg pledges worldwide."
    ]
    answer = facts("cage-free egg pledges", [guide], require_overlap=True)
    assert len(answer) > 1  # a campaigner asking how to do it still gets the advice


def test_a_topic_that_is_campaign_practice_is_drafted_from_the_advice_it_is_about():
    """Decision 0079: advice stays out of public copy while the passages say anything else
    about the topic; when advice is all they say of it, the topic is campaign practice."""
    pledges = "By 2024 more than 2,000 companies had published cage-free egg pledges worldwide."
    briefing = Passage(
        f"Brief volunteers before every public action, and explain what is part of the plan. "
        f"{pledges}",
        "Demonstrations",
        None,
        "Briefing",
    )
    draft = compose(Spec("volunteer briefing", "social_post", "x"), [briefing])
    assert draft is not None
    assert [f.text for f in draft.facts] == [
        "Brief volunteers before every public action, and explain what is part of the plan."
    ]
    # a draft that calls on an organisation never quotes advice for campaigners (0088)
    for content_type in ("petition", "press_release", "letter"):
        spec = Spec("volunteer briefing", content_type, "web", organisation="Harlow Foods")
        assert compose(spec, [briefing]) is None
        with pytest.raises(NotCovered) as refused:
            service._offline(spec, [briefing])
        said = str(refused.value.detail)
        assert said.startswith("What the knowledge base holds on this topic is advice")
        assert "calling on Harlow Foods never quotes" in said
    guide = Passage(
        f"Check every claim about cage-free pledges against a source you can produce. {pledges}",
        "Corporate campaigns",
        None,
        "Asks",
    )
    draft = compose(Spec("cage-free pledges", "social_post", "x"), [guide])
    assert draft is not None
    assert "Check every claim" not in draft.content  # something else is said of the topic


WASDEN = (
    "In Animal Legal Defense Fund v. Wasden, 878 F.3d 1184 (9th Cir. 2018), the Ninth Circuit "
    "struck down Idaho's bans on entering an agricultural facility by misrepresentation, "
    "while upholding the provisions on obtaining records by misrepresentation and obtaining "
    "employment by misrepresentation with intent to cause economic or other injury to the "
    "facility's operations and staff."
)


def test_a_post_no_whole_sentence_fits_quotes_a_sentences_main_clause():
    """Decision 0079: cut only before a trailing clause that adds to the claim and runs to
    the sentence's end; only when no whole sentence fits."""
    ruling = Passage(WASDEN, "Ag-gag laws", None, "Courts")
    draft = compose(Spec("Idaho ag-gag ruling", "social_post", "x"), [ruling])
    assert draft is not None
    head = WASDEN[: WASDEN.index(", while")] + "."
    assert [f.text for f in draft.facts] == [head]
    assert count(draft.content, "x") <= 280
    thread = compose(Spec("Idaho ag-gag ruling", "thread", "x"), [ruling])
    assert thread is not None
    assert head in thread.content
    letter = compose(Spec("Idaho ag-gag ruling", "letter", "email"), [ruling])
    assert letter is not None
    assert WASDEN in letter.content
    assert compose(Spec("Idaho ag-gag ruling", "social_post", "x"), [_UNCUT]) is None
    # a post a whole sentence fits is not cut
    both = compose(Spec("Idaho ag-gag ruling", "social_post", "x"), [ruling, _IDAHO])
    assert both is not None
    assert [f.text for f in both.facts] == [_IDAHO.text]


_UNCUT = Passage(
    WASDEN.replace("operations and staff", "operations, property or staff"), "", None, ""
)
_IDAHO = Passage(
    "Idaho's ag-gag statute was challenged in the federal courts by several groups.",
    "Ag-gag laws",
    None,
    "Idaho",
)


CAPTIVE = Passage(
    "Captive-breeding exemptions are a frequent point of contention, because wild-caught "
    "animals can be laundered as captive-bred and because commercial captive breeding of some "
    "species, such as big cats, may sustain demand for wild specimens.",
    "Wildlife trade",
    None,
    "Exemptions",
)


def test_a_post_gives_up_its_default_call_to_action_before_a_sentence_is_cut():
    """Decision 0079: a whole sentence with hashtags and no ask, rather than no post or a cut
    sentence; a call to action the caller wrote is never given up."""
    draft = compose(Spec("captive-bred big cats", "social_post", "x"), [CAPTIVE])
    assert draft is not None
    assert [f.text for f in draft.facts] == [CAPTIVE.text]
    assert drafts().tone["informative"].ask not in draft.content
    assert count(draft.content, "x") <= 280
    cta = "Write to DEFRA today and ask it to close the captive-breeding exemption."
    asked = Spec("captive-bred big cats", "social_post", "x", cta=cta)
    assert compose(asked, [CAPTIVE]) is None


def test_what_a_post_gives_up_to_fit_it_gives_up_only_for_the_best_judged_passage():
    """Decision 0079: a sentence of a passage that merely shares a word with the topic is not
    made to fit by giving up the call to action or cutting it: the "28 hour law" is not drafted
    from the EU's eight-hour journey limit."""
    law = Passage(_UNCUT.text, "Animal Welfare Act", None, "Transport", score=0.83)
    eight = Passage(
        "For domestic horses, cattle, sheep, goats and pigs, journeys may not exceed eight hours "
        "unless the vehicle meets additional requirements for long journeys, such as bedding, "
        "feed, ventilation with temperature monitoring and access to water.",
        "EU transport",
        None,
        "Journey times",
        score=0.2,
    )
    spec = Spec("misrepresentation hours", "social_post", "x")
    assert facts(spec.topic, [law, eight], public=True)  # both share a word with the topic
    assert compose(spec, [law, eight]) is None
    best = Passage(eight.text, "EU transport", None, "Journey times", score=0.9)
    draft = compose(spec, [law, best])  # the best judged gives up its call to action
    assert draft is not None
    assert [f.text for f in draft.facts] == [eight.text]


def test_a_cut_head_keeps_its_own_source_and_its_stop():
    """A main clause is cited to the source the whole sentence is cited to; a head ending in
    an abbreviation gets no second full stop."""
    listed = (citations.Source("ALDF v. Wasden (9th Cir. 2018)", "https://example.org/wasden"),)
    ruling = Passage(WASDEN, "Ag-gag laws", "https://example.org/guide", "Courts", listed)
    draft = compose(Spec("Idaho ag-gag ruling", "social_post", "x"), [ruling])
    assert draft is not None
    whole = compose(Spec("Idaho ag-gag ruling", "social_post", "linkedin"), [ruling])
    assert whole is not None
    cut, uncut = cite(draft.facts, [ruling]), cite(whole.facts, [ruling])
    assert cut[0].text != uncut[0].text
    assert (cut[0].url, cut[0].title) == (uncut[0].url, uncut[0].title)
    abbreviated = "Battery cages for hens were first banned outright in the U.S., which many "
    assert main_clause(abbreviated + "other countries followed.").endswith("U.S.")


def test_the_fallback_reads_the_best_passage_whole_and_its_advice_only_when_it_has_nothing_else():
    """Review of 0079: facts of lesser passages (a fourth of one document, a repeat) never
    crowd out the best passage's; a best passage with a fact too long for a post is not drafted
    from its advice."""
    others = [
        Passage(
            f"Idaho's ag-gag statute number {n} was challenged by several groups of "
            f"journalists and animal advocates in the federal courts over a period of many "
            f"years, with mixed results in the district court and on appeal, in case {n}.",
            "Ag-gag laws",
            None,
            f"Case {n}",
            score=0.2,
        )
        for n in range(3)
    ]
    spec = Spec("Idaho ag-gag ruling", "social_post", "x")
    best = Passage(WASDEN, "Ag-gag laws", None, "Courts", score=0.9)
    assert compose(spec, [*others, best]) is not None
    advice_after = Passage(
        _UNCUT.text + " Brief volunteers on the Idaho ag-gag ruling before every action.",
        "Ag-gag laws",
        None,
        "Courts",
        score=0.9,
    )
    assert compose(spec, [advice_after]) is None


def test_a_covered_topic_no_draft_fits_is_refused_saying_where_one_would():
    """Decision 0079: 422 ``draft_does_not_fit``, not "nothing on this topic", naming the
    platforms whose draft of it fits."""
    spec = Spec("Idaho ag-gag ruling", "social_post", "x")
    with pytest.raises(DraftDoesNotFit) as refused:
        service._offline(spec, [_UNCUT])
    assert refused.value.code == "draft_does_not_fit"
    assert "platform instagram or facebook or linkedin" in str(refused.value.detail)
    with pytest.raises(NotCovered) as nothing:
        service._offline(Spec("quantum chromodynamics", "social_post", "x"), [_UNCUT])
    assert nothing.value.code == "topic_not_covered"
    # a long form has room for any sentence: nothing to quote is not covered, never "too long"
    with pytest.raises(NotCovered) as long_form:
        service._offline(Spec("quantum chromodynamics", "talking_points", "web"), [_UNCUT])
    assert long_form.value.code == "topic_not_covered"


@pytest.mark.parametrize(
    "sentence",
    [
        # a clause that limits the claim is never cut off
        "Cages of every kind remain legal across the whole country, but only with a licence "
        "from the council.",
        "Cages of every kind remain legal across the whole country, unless the hens are kept "
        "for commercial egg production.",
        # a clause inside the sentence, not trailing it
        "The Animal Welfare (Kept Animals) Act of the land, which took effect in 2022, bans "
        "cages for laying hens.",
        # what is left would not stand as a fact
        "It was upheld, reasoning that the requirement of intent made the provisions "
        "viewpoint-discriminatory.",
        # a trailing clause that limits the claim whatever its opener (review of 0079)
        "The regulation bans conventional battery cages for laying hens in every member "
        "state, although it exempts establishments with fewer than 350 hens.",
        "The regulation bans conventional battery cages for laying hens in every member "
        "state, while exempting establishments with fewer than 350 hens.",
        "The regulation bans conventional battery cages across the European Union, which "
        "agreed it in 1999; member states may still grant derogations to small farms.",
        # a quotation or a bracket the cut would leave open
        "The court described the Iowa statute as \u201ca ban on undercover investigations, "
        "which the state defended as protecting farms\u201d in its long opinion.",
    ],
)
def test_a_sentence_is_never_cut_where_its_head_would_say_more_or_less_than_a_claim(sentence):
    assert main_clause(sentence) is None


def test_facts_are_cited_to_their_own_listed_source_and_a_writers_words_to_none():
    """Issue 25: citations per sentence; a provider's sentence is cited only when it is mostly
    one passage sentence's words."""
    from common.language.citations import Source
    from functions.content.compose import Fact, attribute, cite

    directive = Source("Council Directive 1999/74/EC", "https://example.org/dir")
    ban = Source("Commission report on the 2012 battery cage ban", "https://example.org/ban")
    hens = Passage(HENS.text, HENS.title, "https://example.org/dir", HENS.section, (directive, ban))
    found = [Fact(s, 0, 1.0) for s in split(hens.text) if "banned" in s or "750" in s]
    cited = {c.text[:20]: (c.url, c.title) for c in cite(found, [hens])}
    # "In 2012 the EU banned barren battery cages": the report's label names "battery cage"
    assert cited["In 2012 the EU banne"] == (ban.url, ban.title)
    # "It also set space rules...": leans on the sentence before it
    assert cited["It also set space ru"] == (ban.url, ban.title)
    assert cite([Fact(PLEDGES.text.split(". ")[0] + ".", 0, 1.0)], [PLEDGES])[0].url == (
        "https://example.org/campaigns"  # no list of sources: the document's own
    )
    written = "In 2012 the EU banned barren battery cages for hens in all member states. Act now!"
    assert [(c.text, c.url) for c in attribute(written, [hens])] == [
        ("In 2012 the EU banned barren battery cages for hens in all member states.", ban.url)
    ]


def test_a_topic_is_held_by_the_frame_as_a_sentence_needs_it():
    """Issue 25: "drew attention to fur farming ban." reads wrong; names and plurals stand."""
    from functions.content.compose import _topic

    assert _topic("fur farming ban.") == "the fur farming ban"
    assert _topic("cage-free eggs") == "cage-free eggs"
    assert _topic("Proposition 12") == "Proposition 12"
    assert _topic("our petition") == "our petition"
    assert _topic("<b>mink</b> & fox ban", markdown=True) == "the &lt;b&gt;mink&lt;/b&gt; & fox ban"


def test_tone_frames_the_ask_and_the_letters_first_line_not_only_the_opening():
    drafts = {}
    for tone in ("informative", "urgent", "hopeful", "formal", "conversational"):
        post = compose(Spec("battery cages", "social_post", "x", tone=tone), [HENS])
        letter = compose(Spec("battery cages", "letter", "email", tone=tone), [HENS])
        assert post is not None
        assert letter is not None
        drafts[tone] = (post.content.splitlines()[-1], letter.content.splitlines()[2])
    asks, intros = zip(*drafts.values(), strict=True)
    assert len(set(asks)) == len(set(intros)) == 5


def test_caller_text_in_a_web_page_is_escaped():
    draft = compose(
        Spec("<script>x</script> battery cages", "blog_post", "web", audience="<i>CEO</i>"),
        [HENS],
    )
    assert draft is not None
    assert "<script>" not in draft.content
    assert "&lt;script&gt;" in draft.content


def test_a_sentence_that_names_its_subject_only_by_the_one_before_stays_out_of_drafts():
    """Issue 25: "The Act does not apply to..." - which Act? Public copy leaves it out while
    anything else is left; "The Court of Justice held" is a name, not a reference back."""
    act = Passage(
        text=(
            "The Animal Welfare Act 2006 makes it an offence to cause unnecessary suffering. "
            "The Act does not apply to animals living in the wild in most circumstances. "
            "The Court of Justice held in 2016 that the welfare rules apply to animal exports."
        ),
        title="Welfare law",
        url="https://example.org/awa",
        section="Welfare law",
    )
    quoted = [f.text for f in facts("animal welfare act apply", [act], public=True)]
    assert quoted
    assert not any(q.startswith("The Act does not") for q in quoted)
    assert any(q.startswith("The Court of Justice") for q in quoted)
    # alone, it is quoted rather than nothing
    alone = Passage("The Act makes cruelty to animals in the wild an offence.", "T", None, "S")
    assert [f.text for f in facts("animals in the wild", [alone], public=True)] == [alone.text]


def test_a_drafts_subject_is_its_topic_without_the_addressees_name() -> None:
    """Coverage is judged on what the facts are about: the organisation the draft is
    addressed to is left out of the topic (no guide holds its name), and the topic is kept
    whole when nothing else is left or no audience is named."""
    from functions.content.service import subject

    topic = "Harbour Lane Cafes promised cage-free eggs by 2025 and never reported progress."
    assert subject(topic, "the CEO of Harbour Lane Cafes") == (
        "promised cage-free eggs by 2025 and never reported progress."
    )
    assert subject(topic, None) == topic
    assert subject(topic, "supporters") == topic
    assert subject("Harbour Lane Cafes", "the CEO of Harbour Lane Cafes") == "Harbour Lane Cafes"


def test_the_names_a_topic_addresses_are_not_what_its_facts_are_about() -> None:
    """Without an audience, the topic's own addressees are left out (``names_of``): a company
    the service knows, a name with "&" or an organisation's last word, a possessive, a name of
    two words after a word of addressing. A capitalised run that may be the topic itself, a
    place, and words the guides use stay."""
    from functions.content.service import subject

    assert subject(
        "email to Fiona Carrick urging Harlow & Finch to sign the Better Chicken Commitment", None
    ) == ("email to urging to sign the Better Chicken Commitment")
    assert subject("Tesco's cage-free pledge", None) == "cage-free pledge"
    assert subject("Ask Kroger to drop cages", None) == "Ask to drop cages"
    assert subject("letter to the CEO of Northgate Foods about fish stunning", None) == (
        "letter to the CEO of about fish stunning"
    )
    for kept in (
        "Foie Gras bans",
        "Bullfighting in Spain",
        "Canada's sow housing code",
        "Iceland's whaling season",  # a supermarket's name, and a country's
    ):
        assert subject(kept, None) == kept
    assert subject("Harlow & Finch", None) == "Harlow & Finch"  # nothing else is left


def test_a_draft_quotes_the_passages_judged_quoted_min_or_else_the_best_alone() -> None:
    """Decision 0067: a topic is covered at ``COVERAGE_MIN``; its draft quotes the passages
    ``covering`` found at ``QUOTED_MIN`` or more, and of a topic covered below that, the best
    judged passage alone (``Found.top``), not the others under ``QUOTED_MIN``."""
    from functions.content import service
    from functions.knowledge.service import Found

    assert service.COVERAGE_MIN < service.QUOTED_MIN
    kept = [{"passage": "a", "score": 0.9}, {"passage": "b", "score": service.QUOTED_MIN}]
    top = {"passage": "c", "score": service.COVERAGE_MIN}
    assert service.quoted(Found(kept, 0.9, True, True, kept[0])) == kept
    assert service.quoted(Found([], service.COVERAGE_MIN, True, False, top)) == [top]


def test_a_draft_quotes_the_passages_judged_near_the_best_and_numbers_them_as_given():
    """Decision 0084: a passage judged under ``NEAR`` of the best is about something else
    that shares the topic's words; the draft quotes the near ones, its facts numbered in the
    passages as given (citations read them so)."""
    from dataclasses import replace

    from functions.content.compose import NEAR

    far, best = replace(PLEDGES, score=0.5 * NEAR), replace(HENS, score=0.9)
    draft = compose(Spec("cage-free laying hens", "letter", "web"), [far, best])
    assert draft is not None
    assert draft.facts
    assert {f.passage for f in draft.facts} == {1}  # the hens passage, second as given
    assert "pledges" not in draft.content


def test_a_topic_only_the_far_passages_speak_of_is_drafted_from_them_as_before():
    """The near passages give no draft: rather than refuse a covered topic, all are quoted
    (a far passage as the judge scores one it still finds about the topic: 0.5, a share of
    0.56 of the best, under ``NEAR``)."""
    from dataclasses import replace

    from functions.content.compose import NEAR

    far, best = replace(PLEDGES, score=0.5), replace(HENS, score=0.9)
    assert far.score / best.score < NEAR
    draft = compose(Spec("accountability for pledges", "letter", "web"), [best, far])
    assert draft is not None
    assert {f.passage for f in draft.facts} == {1}


def test_public_copy_quotes_what_the_topicality_model_finds_on_the_topic(monkeypatch):
    """Decision 0088: public copy quotes the candidates the topicality model gives
    ``ON_TOPIC`` or more while any has it, else those at ``ON_TOPIC_LEAST``, else none; what
    the model reads of each is where it stands: its passage's judged score, that score's share
    of the best, whether its guide is the best passage's and whether it is near the best."""
    from functions.content import compose as module
    from functions.content import topicality
    from functions.content.compose import ON_TOPIC, ON_TOPIC_LEAST

    crates = Passage(
        text=(
            "Farrowing crates confine a sow for weeks so that she cannot turn around. "
            "Crates for transporting dogs by air must meet airline size rules."
        ),
        title="Crates",
        url="https://example.org/crates",
        section="Crates",
        score=0.9,
    )
    sows = Passage(
        "Sows kept in farrowing crates cannot build a nest before giving birth.",
        "Pig welfare",
        "https://example.org/pigs",
        "Pig welfare > Farrowing",
        score=0.45,
    )
    sentences = split(crates.text)
    seen: list[list[topicality.Seen]] = []

    def given(*probabilities: float):
        def judged(about, audience, candidates):
            seen.append(list(candidates))
            return list(probabilities)[: len(candidates)]

        return judged

    about = "farrowing crates for sows"
    for probabilities, quoted in (
        ((ON_TOPIC, ON_TOPIC - 0.01), [sentences[0]]),
        ((ON_TOPIC - 0.01, ON_TOPIC_LEAST), [sentences[0], sentences[1]]),
        ((ON_TOPIC_LEAST, ON_TOPIC_LEAST - 0.01), [sentences[0]]),
        ((ON_TOPIC_LEAST - 0.01, 0.0), []),
    ):
        monkeypatch.setattr(module.topicality, "on_topic", given(*probabilities))
        found = facts("crates", [crates], public=True, about=about)
        assert sorted(f.text for f in found) == sorted(quoted)
    seen.clear()
    monkeypatch.setattr(module.topicality, "on_topic", given(1.0, 1.0, 1.0))
    facts("farrowing crates", [crates, sows], public=True, about=about)
    where = {s.text: s for s in seen[0]}
    first, other = where[sentences[0]], where[split(sows.text)[0]]
    assert (first.passage, first.share, first.best_document, first.near) == (0.9, 1.0, True, True)
    assert (other.passage, other.share) == (0.45, 0.5)
    assert not other.best_document
    assert not other.near
    # without what the draft is about (an answer to a campaigner), no model is asked
    seen.clear()
    assert facts("crates", [crates], public=True)
    assert not seen


def test_facts_none_on_the_topic_give_no_draft_and_nothing_in_their_place(monkeypatch):
    """Decision 0088 (review): when the passages have facts and the model finds none on the
    topic, there is no draft: no campaign advice, no sentence the roles model keeps out, and
    the 422 says the topic is not covered, not that only advice is held; a post whose only
    fact on the topic is too long, in a passage near the best, does not fit."""
    from functions.content import compose as module
    from functions.content.compose import advice_only, too_long

    briefing = Passage(
        "Brief volunteers before every public action, and explain what is part of the plan. "
        "Volunteers at the demonstration hand out leaflets on cage-free eggs.",
        "Demonstrations",
        None,
        "Briefing",
        score=0.8,
    )
    monkeypatch.setattr(module.topicality, "on_topic", lambda a, b, seen: [0.0] * len(seen))
    for content_type in ("social_post", "blog_post", "petition"):
        spec = Spec(
            "volunteer briefing", content_type, "web" if content_type != "social_post" else "x"
        )
        assert compose(spec, [briefing]) is None
        assert not advice_only(spec, [briefing])
    long = "Sows kept in farrowing crates cannot turn around " + "for weeks on end, " * 16 + "."
    best = Passage(
        "Pigs are intelligent animals that live in social groups.", "Pigs", None, "P", score=0.9
    )
    near = Passage(long.replace(", .", "."), "Crates", None, "C", score=0.8)

    def on(about, audience, seen):
        return [1.0 if s.text.startswith("Sows") else 0.0 for s in seen]

    monkeypatch.setattr(module.topicality, "on_topic", on)
    spec = Spec("farrowing crates", "social_post", "x")
    assert compose(spec, [best, near]) is None
    assert too_long(spec, [best, near])


def test_public_copy_quotes_what_its_cited_source_holds_while_any_is():
    """Decision 0086: set 29's readers found "The European Chicken Commitment is the sister
    policy" cited to the US commitment's text, and sentences cited to a guide with no URL.
    Public copy quotes a sentence whose source, as cited, holds it; when none is, the others
    rather than nothing."""
    from common.language.citations import Source

    bcc = Source("Better Chicken Commitment, policy text (US)", "https://example.org/bcc")
    text = (
        "The European Chicken Commitment sets a maximum stocking density for chickens. "
        "Broiler chickens bred for fast growth suffer leg disorders under the commitment's "
        "stocking density."
    )
    chickens = Passage(text, "Broiler chickens", bcc.url, "Broiler chickens", (bcc,))
    sentences = split(text)
    quoted = [f.text for f in facts("chicken stocking density", [chickens], public=True)]
    assert quoted == [sentences[1]]
    alone = Passage(sentences[0], "Broiler chickens", bcc.url, "Broiler chickens", (bcc,))
    assert [f.text for f in facts("chicken stocking density", [alone], public=True)] == [
        sentences[0]
    ]
    # a source of the sentence's own listed beside it is cited, and holds it
    ecc = Source("European Chicken Commitment", "https://example.org/ecc")
    both = Passage(text, "Broiler chickens", bcc.url, "Broiler chickens", (bcc, ecc))
    found = facts("chicken stocking density", [both], public=True)
    assert {f.text for f in found} == set(sentences)
    assert {c.text[:12]: c.url for c in cite(found, [both])}["The European"] == ecc.url


def test_public_copy_quotes_a_fact_sure_of_its_source_before_one_that_is_not():
    """Decision 0089: in a document listing many sources, a sentence no rule attributes is
    cited to the main one by default, which readers found wrong for one in six; public copy
    quotes it after the facts whose source a rule found, however well it scores, and still
    quotes it when nothing else is left."""
    from common.language.citations import CROWDED, Source

    main = Source("Council Directive 1999/74/EC on laying hens", "https://example.org/dir")
    opinion = Source('EFSA (2023), "Welfare of laying hens on farm"', "https://example.org/o")
    others = [Source(f"Regulation {n} on eggs", f"https://example.org/r{n}") for n in range(9)]
    listed = (main, opinion, *others)[:CROWDED]
    unsure = "Cage-free laying hens in barns and aviaries lay eggs across 12 member states."
    sure = "The EFSA opinion found that laying hens in cages cannot dust-bathe."
    text = f"{unsure} {sure}"
    hens = Passage(text, "Laying hens", main.url, "Laying hens", listed)
    found = facts("cage-free laying hens eggs", [hens], public=True)
    assert [f.text for f in found] == [sure, unsure]
    assert [f.unsure for f in found] == [False, True]
    assert found[0].score < found[1].score  # ranked by its source, not its score
    # among few sources the main one is a sure default: the better score goes first
    few = Passage(text, "Laying hens", main.url, "Laying hens", listed[: CROWDED - 1])
    assert [f.text for f in facts("cage-free laying hens eggs", [few], public=True)] == [
        unsure,
        sure,
    ]


def test_a_guide_with_footnotes_is_cited_as_its_footnotes_say():
    """Decision 0089: a guide that marks its sentences with footnotes is asked no rule: a marked
    sentence is cited to the source its footnote names, surely, whatever the heuristics would
    say; an unmarked one to the guide itself, quoted only when nothing marked is left."""
    from common.language.citations import Source

    main = Source("Council Directive 1999/74/EC on laying hens", "https://example.org/dir")
    opinion = Source('EFSA (2023), "Welfare of laying hens on farm"', "https://example.org/o")
    marked = "Laying hens in cage-free barns dust-bathe on litter under the directive."
    unmarked = "Cage-free laying hens lay eggs in 12 member states, a cage-free majority."
    text = f"{unmarked} {marked}"
    given = ((marked, (opinion.url,)),)
    hens = Passage(text, "Laying hens", main.url, "Laying hens", (main, opinion), None, given)
    found = facts("cage-free laying hens eggs", [hens], public=True)
    assert [f.text for f in found] == [marked]  # what no source holds, while anything is held
    # the footnote's source, though the sentence names the directive
    assert [(c.url, c.title) for c in cite(found, [hens])] == [(opinion.url, opinion.title)]
    alone = Passage(unmarked, "Laying hens", main.url, "Laying hens", (main, opinion), None, ())
    found = facts("cage-free laying hens eggs", [alone], public=True)
    assert [f.unsure for f in found] == [True]  # no source of the guide holds it: the guide's
    assert [(c.url, c.title) for c in cite(found, [alone])] == [(None, "Laying hens")]
    # the same sentence without footnotes: the rules of decision 0087 cite the directive
    plain = Passage(marked, "Laying hens", main.url, "Laying hens", (main, opinion))
    found = facts("cage-free laying hens eggs", [plain], public=True)
    assert [c.url for c in cite(found, [plain])] == [main.url]


def test_a_post_no_held_fact_fits_quotes_one_its_guide_holds():
    """Review of decision 0089's fresh sets: a post whose footnoted facts are all too long was
    refused, though a sentence the guide gives no source for fitted; it is quoted, cited to
    the guide itself, rather than no post."""
    from common.language.citations import Source

    act = Source("Fur Farming (Prohibition) Act 2000", "https://example.org/fur")
    held = (
        "The Fur Farming (Prohibition) Act 2000 made it an offence in England and Wales to keep "
        "animals solely or primarily for slaughter for the value of their fur, with a period "
        "for the farms then operating to close down, and it provided for compensation to be "
        "paid to the farmers for the income they lost when fur farming ended in 2003."
    )
    short = "Fur farming has been banned in England and Wales since 2003, yet fur is sold."
    fur = Passage(
        f"{held} {short}", "Fur farming law", act.url, "Fur", (act,), None, ((held, (act.url,)),)
    )
    spec = Spec("fur farming ban England", "social_post", "x", cta="Sign for a ban on fur sales")
    draft = compose(spec, [fur])
    assert draft is not None
    assert short in draft.content
    assert [c.url for c in cite(draft.facts, [fur])] == [None]


@pytest.mark.parametrize(
    ("organisation", "named"),
    [
        ("Coalition for Humane Farming", "you at the Coalition for Humane Farming"),
        ("Food Standards Agency", "you at the Food Standards Agency"),
        ("The Humane League", "you at The Humane League"),
        ("Brightwell Supermarkets", "you at Brightwell Supermarkets"),
        ("Union Street Bakery", "you at Union Street Bakery"),
        ("Court Farm Eggs", "you at Court Farm Eggs"),
    ],
)
def test_a_letter_names_an_institution_with_the_and_a_company_as_written(organisation, named):
    spec = Spec("cage-free laying hens", "letter", "web", organisation=organisation, tone="formal")
    draft = compose(spec, [HENS, PLEDGES])
    assert draft is not None
    assert named in draft.content


def test_talking_points_say_for_whom_when_the_request_names_them():
    """Spent set 30: talking points for "the fish sourcing team at Brightwell Supermarkets"
    never named the company; they now say for whom they are (decision 0086), and without an
    audience they are titled by the topic alone."""
    audience = "the fish sourcing team at Brightwell Supermarkets"
    spec = Spec(
        "cage-free laying hens",
        "talking_points",
        "email",
        audience=audience,
        organisation="Brightwell Supermarkets",
    )
    draft = compose(spec, [HENS, PLEDGES])
    assert draft is not None
    assert draft.content.startswith(f"Talking points for {audience}: cage-free laying hens")
    plain = compose(Spec("cage-free laying hens", "talking_points", "email"), [HENS, PLEDGES])
    assert plain is not None
    assert plain.content.startswith("Talking points: cage-free laying hens")


def test_a_guides_title_names_none_of_its_sources():
    """Spent set 30: the opening lines of "Laying hens: cage systems and welfare" were cited
    to the EFSA opinion "Welfare of laying hens on farm", whose label shares the title's words;
    a guide's title is its own, so they are cited to its main source (decision 0086)."""
    from common.language.citations import Source
    from functions.content.compose import Fact

    directive = Source("Council Directive 1999/74/EC on laying hens", "https://example.org/dir")
    efsa = Source('EFSA (2023), "Welfare of laying hens on farm"', "https://example.org/efsa")
    title = "Laying hens: cage systems and welfare"
    text = "Conventional battery cages hold a few hens on a sloping wire floor."
    opening = Passage(text, title, directive.url, title, (directive, efsa))
    assert cite([Fact(text, 0, 1.0)], [opening])[0].url == directive.url
    section = Passage(
        text, title, directive.url, f"{title} > Welfare of laying hens", (directive, efsa)
    )
    assert cite([Fact(text, 0, 1.0)], [section])[0].url == efsa.url  # a heading still names one


@pytest.mark.parametrize(
    ("content_type", "platform", "opening"),
    [
        ("email", "email", "Subject: How are laying hens kept in cages?"),
        ("press_release", "web", "FOR IMMEDIATE RELEASE\n\n# How are laying hens kept in cages?"),
        ("blog_post", "web", "# How are laying hens kept in cages?"),
        ("petition", "web", "# Petition: How are laying hens kept in cages?"),
        ("talking_points", "email", "Talking points: How are laying hens kept in cages?"),
        ("social_post", "x", "How are laying hens kept in cages? "),
    ],
)
def test_a_topic_that_is_a_sentence_stands_as_its_own(content_type, platform, opening):
    """Spent set 30's readers counted 45-51 grammar slips in 48 drafts, most of them a question,
    an instruction or a sentence pasted in quotation marks into a slot for a noun ("regarding
    “how is ...?”", "act on “...”"). Such a topic stands as a sentence of its own, capitalised
    with its stop (decision 0086); no frame quotes it."""
    spec = Spec("how are laying hens kept in cages?", content_type, platform, tone="urgent")
    draft = compose(spec, [HENS, PLEDGES])
    assert draft is not None
    assert draft.content.startswith(opening)
    assert "\u201c" not in draft.content
    if content_type == "petition":
        assert "We, the undersigned, call on [the decision maker] to act." in draft.content
    if content_type == "press_release":  # the dateline does not repeat the headline
        assert draft.content.count("How are laying hens kept in cages?") == 1


def test_a_letter_to_an_organisation_on_a_question_names_it_then_asks_it():
    """A question written without its "?" takes one; a name and an instruction after a colon
    is a sentence too; "Ag-gag laws: how they work" and "from May 2025" are names (review of
    decision 0086)."""
    from functions.content.compose import _said

    spec = Spec(
        "does Brightwell Supermarkets still sell caged eggs",
        "letter",
        "email",
        organisation="Brightwell Supermarkets",
        tone="formal",
    )
    draft = compose(spec, [HENS, PLEDGES])
    assert draft is not None
    assert (
        "I am writing to you at Brightwell Supermarkets on the following matter. "
        "Does Brightwell Supermarkets still sell caged eggs?" in draft.content
    )
    assert _said("Siam Tidewater Foods: stop cutting eyestalks") == (
        "Siam Tidewater Foods: stop cutting eyestalks."
    )
    # a headline (decision 0087)
    assert _said("Crestline Eggs: cages out by 2026") == "Crestline Eggs: cages out by 2026."
    assert _said("Nordmark: ditch the real fur trims") == "Nordmark: ditch the real fur trims."
    assert _said("bobby calves: Dairyvale, stop it") == "Bobby calves: Dairyvale, stop it."
    assert _said("FAQ: broiler welfare") is None
    # a question named, not asked, takes a stop, not a "?" (review of set 36's drafts)
    for asked, said in (
        ("how many hens live in one shed", "How many hens live in one shed?"),
        ("what happens to male dairy calves", "What happens to male dairy calves?"),
        ("What the US Animal Welfare Act leaves out", "What the US Animal Welfare Act leaves out."),
        ("How Proposition 12 is enforced", "How Proposition 12 is enforced."),
        ("how to run a street stall", "How to run a street stall."),
        ("whether quick reporting helps animals", "Whether quick reporting helps animals."),
    ):
        assert _said(asked) == said
    for name in (
        "Ag-gag laws: how they work",
        "cage-free laying hens from May 2025",
        "the loophole that allows caged eggs",
        "end of cages for laying hens",
    ):
        assert _said(name) is None


def test_a_sentence_leaning_on_an_unheld_one_is_not_quoted_in_its_place():
    """Review of decision 0086: "It also requires more space" leans on a sentence about the
    European Chicken Commitment; held by the US text through it, it was quoted alone."""
    from common.language.citations import Source

    bcc = Source("Better Chicken Commitment, policy text (US)", "https://example.org/bcc")
    text = (
        "The European Chicken Commitment sets a maximum stocking density of 30 kg for chickens. "
        "It also requires chickens to have more space, natural light and perches."
    )
    chickens = Passage(text, "Broiler chickens", bcc.url, "Broiler chickens", (bcc,))
    quoted = [f.text for f in facts("chicken stocking density space", [chickens], public=True)]
    assert quoted == [split(text)[0]]


def test_a_passages_sources_are_read_once_and_shared_read_only():
    """``_sources_of`` is cached for every thread of the server: what it returns cannot be
    changed by one request under another."""
    from functions.content.compose import _sources_of

    first = _sources_of(HENS)
    assert _sources_of(HENS) is first
    with pytest.raises(TypeError):
        first["Laying hens are kept in cages, barns or free-range systems."] = None  # type: ignore[index]


def test_a_draft_for_a_place_quotes_what_is_about_another_place_only_when_nothing_else_is_left():
    """Decision 0087: an EU rule is not news to a diner in the US."""
    eu = "In 2012 the EU banned barren battery cages for laying hens in every member state."
    california = "In California, each laying hen must have at least one square foot of floor."
    hens = Passage(f"{eu} {california}", "Laying hens", "https://example.org/h", "Laying hens")
    at = frozenset({"us"})
    quoted = [f.text for f in facts("cages for laying hens", [hens], public=True, at=at)]
    assert quoted == [california]
    only_eu = Passage(eu, "Laying hens", "https://example.org/h", "Laying hens")
    assert [f.text for f in facts("cages for laying hens", [only_eu], public=True, at=at)] == [eu]
    both = [f.text for f in facts("cages for laying hens", [hens], public=True)]
    assert sorted(both) == sorted([eu, california])


def test_a_name_and_a_slogan_is_a_headline_without_a_full_stop_in_a_title():
    """Decision 0087: "act on Crestline Eggs: cages out by 2026" read as a slot for a noun."""
    hens = Passage(
        "In 2012 the EU banned barren battery cages for laying hens in every member state.",
        "Laying hens",
        "https://example.org/h",
        "Laying hens > Cages",
    )
    topic = "Crestline Eggs: cages out by 2026"
    petition = compose(Spec(topic, "petition", "web", audience="Crestline Eggs"), [hens])
    assert petition is not None
    assert petition.content.startswith("# Petition: Crestline Eggs: cages out by 2026\n")
    assert "act on" not in petition.content
    email = compose(Spec(topic, "email", "email", tone="urgent"), [hens])
    assert email is not None
    assert email.content.startswith("Subject: Crestline Eggs: cages out by 2026\n")
    assert "urgently. Crestline Eggs: cages out by 2026. This needs" in email.content


def test_a_title_keeps_a_full_stop_the_topic_wrote_and_a_post_swaps_in_clear_facts_first():
    """Review of decision 0087: "... the U.S." is no stop ``_said`` added; a post that no set
    of its best facts fits tries the shortest clear facts before a doubtful one."""
    from functions.content.compose import Fact, _fact_sets

    hens = Passage(
        "Several U.S. states, California among them, ban the sale of eggs from hens kept in cages.",
        "Laying hens",
        "https://example.org/h",
        "Laying hens > Cages",
    )
    email = compose(Spec("Crestline Eggs: cages out of the U.S.", "email", "email"), [hens])
    assert email is not None
    assert email.content.startswith("Subject: Crestline Eggs: cages out of the U.S.\n")
    found = [
        Fact("A long clear fact " * 6, 0, 4.0),
        Fact("Another long clear fact " * 5, 0, 3.0),
        Fact("A clear fact of middling length.", 0, 2.0),
        Fact("Short doubtful.", 0, 1.0, doubtful=True),
    ]
    tried = [[f.text for f in facts] for facts in _fact_sets(found, 2)]
    assert tried[1] == [found[0].text, found[2].text]  # not the doubtful one
    # ... and a post the shortest clear fact does not fit tries the next shortest (0088)
    alone = [[f.text for f in facts] for facts in _fact_sets(found, 1)]
    assert alone.index([found[2].text]) < alone.index([found[3].text])


def test_a_sentence_of_a_far_passage_of_another_guide_is_less_on_the_topic():
    """The model (decision 0088) reads where a sentence stands as well as what it says: the
    same sentence is less likely on the topic in a passage judged far below the best, of
    another guide, than in the best passage."""
    from functions.content.topicality import Seen, on_topic

    sentence = "Transporters must be authorised and vehicles must be inspected and approved."
    best = Seen(sentence, "Animal testing", 0.8, 1.0, True, True, False)
    far = Seen(sentence, "Animal transport", 0.2, 0.25, False, False, False)
    near, apart = on_topic("animal tests for export registrations", None, [best, far])
    assert near > apart


def test_the_same_candidates_are_judged_once_and_alike_across_threads():
    """A post that the best facts do not fit asks the model again of the same candidates
    (decision 0088): the answer is kept, and threads asking at once get the same one."""
    from concurrent.futures import ThreadPoolExecutor

    from functions.content.topicality import Seen, _judged, on_topic

    sentence = "Sows in farrowing crates cannot turn around."
    seen = [Seen(sentence, "Pigs", 0.9, 1.0, True, True, False)]
    first = on_topic("farrowing crates", None, seen)
    hits = _judged.cache_info().hits
    assert on_topic("farrowing crates", None, seen) == first
    assert _judged.cache_info().hits == hits + 1
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda _: on_topic("farrowing crates", None, seen), range(8)))
    assert answers == [first] * 8
