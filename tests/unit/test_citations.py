"""Which of a document's listed sources a quoted sentence is cited to (decision 0042)."""

from __future__ import annotations

from collections.abc import Callable

from common.language.citations import CROWDED, Attribution, Source, attributed, listed

ACT = Source("Public Order Act 1986", "https://example.org/poa")
NOTICE = Source(
    "Public Order Act 1986, section 11 (advance notice of public processions)",
    "https://example.org/poa/s11",
)
ZIEGLER = Source("DPP v Ziegler [2021] UKSC 23", "https://example.org/ziegler")
SOURCES = [ACT, NOTICE, ZIEGLER]


def cited(
    paragraphs: list[list[str]],
    heading: str,
    sources: list[Source],
    main: Source | None,
    leans: Callable[[str], bool],
) -> list[list[Source | None]]:
    """The sources ``attributed`` gives, without whether each is sure."""
    rows = attributed(paragraphs, heading, sources, main, leans)
    return [[found.source for found in row] for row in rows]


def leans(sentence: str) -> bool:
    return sentence.split()[0] in ("It", "Its", "They")


def test_a_sources_section_is_read_as_label_and_url_each_url_once():
    lines = [
        "",
        "- Public Order Act 1986: https://example.org/poa",
        "- [DPP v Ziegler](https://example.org/ziegler)",
        "- Public Order Act 1986 again: https://example.org/poa",
        "Some prose that is not a source.",
    ]
    assert listed(lines) == [
        Source("Public Order Act 1986", "https://example.org/poa"),
        Source("DPP v Ziegler", "https://example.org/ziegler"),
    ]


def test_a_sentence_is_cited_to_the_source_it_names_distinctively():
    paragraph = [
        "Organisers must give advance notice of a public procession to the police.",
        "In DPP v Ziegler the Supreme Court held that blocking a road may be lawful.",
    ]
    assert cited([paragraph], "Marches", SOURCES, ACT, leans) == [[NOTICE, ZIEGLER]]


def test_words_every_label_shares_or_scattered_words_name_no_source():
    paragraph = [
        # "public", "order", "act" and "1986" are in two labels: nothing decided, the main one
        "The Public Order Act 1986 applies in England and Wales.",
        # "notice" and "public" are a label's words, but not two in a row
        "A notice pinned to a public board is not a procession.",
    ]
    assert cited([paragraph], "Background", SOURCES, ACT, leans) == [[ACT, ACT]]


def test_a_sentence_that_leans_on_the_one_before_takes_its_source_and_no_other_does():
    first = ["DPP v Ziegler turned on proportionality.", "It was decided in 2021."]
    second = ["Marches need planning.", "Stewards help."]
    assert cited([first, second], "Cases", SOURCES, ACT, leans) == [
        [ZIEGLER, ZIEGLER],
        [ACT, ACT],
    ]


def test_the_heading_names_the_source_of_sentences_that_name_none():
    paragraph = ["Organisers should plan the route early."]
    heading = "Advance notice of public processions"
    assert cited([paragraph], heading, SOURCES, ACT, leans) == [[NOTICE]]


def test_a_sentence_on_what_the_court_did_goes_on_with_the_case_before_it():
    paragraph = [
        "In DPP v Ziegler, decided in 2021, the protesters' convictions were quashed.",
        "Writing for the majority, the judges weighed the right to protest.",
        "Marches still need planning.",  # says nothing of a court: the main source
    ]
    assert cited([paragraph], "Cases", SOURCES, ACT, leans) == [[ZIEGLER, ZIEGLER, ACT]]
    # after a sentence cited to a statute, a court word decides nothing
    statute = ["Organisers must give advance notice of a public procession.", "Courts agree."]
    assert cited([statute], "Marches", SOURCES, ACT, leans) == [[NOTICE, ACT]]
    # ... and before its paragraph names any source, it goes on with the case named after it
    ahead = ["Courts have reached different conclusions on protest.", paragraph[0]]
    assert cited([ahead], "Cases", SOURCES, ACT, leans) == [[ZIEGLER, ZIEGLER]]
    # ... or in a paragraph of the passage after it (decision 0089)
    before = ["Protesters challenged their convictions in court."]
    assert cited([before, paragraph], "Cases", SOURCES, ACT, leans)[0] == [ZIEGLER]
    # a judgment tells what went before it: a court's ruling of an earlier year is the case's
    # to hold, a later one's is not
    earlier = ["The magistrates' court convicted them in 2019.", paragraph[0]]
    assert cited([earlier], "Cases", SOURCES, ACT, leans) == [[ZIEGLER, ZIEGLER]]
    later = ["The court of appeal reviewed the law again in 2023.", paragraph[0]]
    assert cited([later], "Cases", SOURCES, ACT, leans) == [[ACT, ZIEGLER]]


def test_a_heading_names_the_source_whose_gloss_it_says():
    exceptions = Source("Health Code section 25992 (exceptions)", "https://example.org/25992")
    main = Source("Health Code section 25990", "https://example.org/25990")
    sources = [main, exceptions, Source("Health Code (definitions)", "https://example.org/d")]
    paragraph = ["The law allows confinement during transport."]
    assert cited([paragraph], "Exceptions", sources, main, leans) == [[exceptions]]
    assert cited([paragraph], "Exceptions and definitions", sources, main, leans) == [[main]]
    # a gloss in words another label holds names nothing ("Public order" beside the Act)
    part3 = Source("Police Act 2022, Part 3 (public order)", "https://example.org/p3")
    order = Source("Public Order Act 1986", "https://example.org/poa")
    assert cited([paragraph], "Public order", [order, part3], order, leans) == [[order]]
    assert cited([paragraph], "Enforcement", sources, main, leans) == [[main]]


def test_a_court_case_holds_no_sentence_naming_another_case():
    kelly = "In Animal Legal Defense Fund v. Kelly the Tenth Circuit affirmed the ruling."
    reynolds = Source("Animal Legal Defense Fund v. Reynolds (8th Cir. 2021)", "https://e.org/r")
    statute = Source("Iowa Code section 717A.3A", "https://example.org/iowa")
    assert cited([[kelly]], "Other states", [statute, reynolds], statute, leans) == [[statute]]
    # what the paragraph's case decided goes on with it, after a sentence leaning elsewhere;
    # not another case's ruling, nor a sentence that merely holds a court's word
    paragraph = [
        "On appeal, in Animal Legal Defense Fund v. Reynolds, the Eighth Circuit split.",
        "Relying on an earlier case from 2012, it held that lies may be prohibited.",
        "The access provision was upheld.",
        "In Animal Legal Defense Fund v. Kelly the Tenth Circuit affirmed a similar ruling.",
        "Sows held in gestation crates cannot turn around.",
        "The Act also requires organisers to give notice.",  # refers to no case
    ]
    assert cited([paragraph], "Iowa", [statute, reynolds], statute, leans) == [
        [reynolds, statute, reynolds, statute, statute, statute]
    ]


def test_a_sentence_referring_to_the_instrument_its_paragraph_named_is_cited_to_it():
    act2022 = Source("Police, Crime, Sentencing and Courts Act 2022", "https://e.org/2022")
    sources = [ACT, act2022, ZIEGLER]
    paragraph = [
        "The Police, Crime, Sentencing and Courts Act 2022 extended these powers.",
        "Police may now impose conditions on noise.",  # refers to nothing: the main source
        "The Act also made it an offence to breach a condition.",
        "The Lacey Act addresses wildlife.",  # an instrument of its own: not a reference
        "The act of blocking a road can be lawful.",  # "act" in lower case is no instrument
        "The law was criticised.",  # a word any instrument is
    ]
    assert cited([paragraph], "Conditions", sources, ACT, leans) == [
        [act2022, ACT, act2022, ACT, ACT, act2022]
    ]


def test_definitions_and_welfare_science_are_cited_to_the_source_of_their_kind():
    directive = Source("Council Directive 1999/74/EC on laying hens", "https://e.org/d")
    opinion = Source('EFSA Panel (2023), "Welfare of laying hens on farm"', "https://e.org/o")
    slaughter = Source('EFSA Panel (2020), "Welfare of pigs at slaughter"', "https://e.org/s")
    sources = [directive, opinion, slaughter]
    paragraph = [
        "Keel bone fractures are common in aviaries.",  # science: the opinion on farms
        "The directive requires a nest for every seven hens.",  # law: the directive
        "Pigs stunned with carbon dioxide show aversive behaviour.",  # science at slaughter
    ]
    assert cited([paragraph], "What hens need", sources, directive, leans) == [
        [opinion, directive, slaughter]
    ]
    # under a heading on the law, its sentences are the law's
    assert cited([paragraph[:1]], "The EU Directive", sources, directive, leans) == [[directive]]
    # a sentence of law does not lean on a sentence of science
    leaning = [paragraph[0], "They are why campaigns treat the directive as weak."]
    assert cited([leaning], "Hens", sources, directive, leans) == [[opinion, directive]]
    main = Source("Health Code section 25990", "https://example.org/25990")
    defined = Source("Health Code section 25991 (definitions)", "https://example.org/25991")
    sentences = [
        '"Whole pork meat" covers uncooked cuts of pork.',
        'Confinement is "cruel" if it prevents the animal from turning around.',
        "This means sows cannot turn around.",  # no definition
        "Sales are banned.",
    ]
    assert cited([sentences], "Scope", [main, defined], main, leans) == [
        [defined, defined, main, main]
    ]


def test_a_growth_measure_is_no_stage_of_an_animals_life():
    """Review of issue 46: "bred to reach slaughter weight" was read as a sentence on slaughter,
    so the opinion on broilers on farm could not hold it."""
    farm = Source('EFSA Panel (2023), "Welfare of broilers on farm"', "https://e.org/f")
    policy = Source("Better Chicken Commitment, policy text", "https://e.org/bcc")
    growth = "Broiler strains are bred to reach slaughter weight in five weeks, causing lameness."
    stunning = "Birds shackled alive before stunning show fear and pain."
    assert cited([[growth, stunning]], "Growth", [policy, farm], policy, leans) == [[farm, policy]]


def test_a_sentence_on_a_stage_of_life_goes_to_the_one_study_of_that_stage():
    """Decision 0089: "Most pigs ... are stunned with carbon dioxide" holds no science word,
    and is cited to the opinion on pigs at slaughter, not the on-farm directive; a sentence of
    law on that stage is not, nor one on another stage."""
    directive = Source("Council Directive 2008/120/EC on pigs", "https://e.org/d")
    killing = Source(
        "Council Regulation (EC) No 1099/2009 at the time of killing", "https://e.org/k"
    )
    opinion = Source('EFSA Panel (2020), "Welfare of pigs at slaughter"', "https://e.org/s")
    sources = [directive, killing, opinion]
    paragraph = [
        "Most pigs in large slaughterhouses are stunned with carbon dioxide.",
        "Operators must stun pigs before they are bled.",  # law: no rule names its source
        "Sows are moved in trucks for long journeys.",  # transport: no source of its own
    ]
    assert cited([paragraph], "Slaughter", sources, directive, leans) == [
        [opinion, directive, directive]
    ]


def test_the_main_source_by_default_is_sure_only_in_a_document_of_few_sources():
    """Decision 0089: a sentence no rule attributes is cited to the document's main source, but
    is sure of it only when the document lists fewer than ``CROWDED`` sources; a sentence that
    leans on another is as sure as that one; a sentence a rule attributes is sure."""
    others = [Source(f"Regulation {n} on other things", f"https://e.org/{n}") for n in range(9)]
    crowded = [ACT, NOTICE, ZIEGLER, *others][:CROWDED]
    few = crowded[: CROWDED - 1]
    paragraph = [
        "Marches need a route agreed in advance.",  # no rule: the main source by default
        "It must be given six days before.",  # leans on the one before
        "In DPP v Ziegler the Supreme Court held that blocking a road may be lawful.",
    ]
    assert attributed([paragraph], "Marches", crowded, ACT, leans) == [
        [Attribution(ACT, False), Attribution(ACT, False), Attribution(ZIEGLER, True)]
    ]
    assert attributed([paragraph], "Marches", few, ACT, leans) == [
        [Attribution(ACT, True), Attribution(ACT, True), Attribution(ZIEGLER, True)]
    ]
    # the heading names the source: sure however many the document lists
    headed = attributed([paragraph[:1]], "Public Order Act 1986, section 11", crowded, ACT, leans)
    assert headed == [[Attribution(NOTICE, True)]]


def test_a_document_with_one_source_or_none_cites_its_main_one():
    assert cited([["Anything at all here."]], "H", [ZIEGLER], None, leans) == [[ZIEGLER]]
    assert cited([["Anything at all here."]], "H", [], ACT, leans) == [[ACT]]
    assert cited([["Anything at all here."]], "H", [], None, leans) == [[None]]


def test_a_source_of_another_year_is_never_cited_for_a_dated_sentence():
    """Issue 46: "the 2007 regulations" shared words with the 2018 regulations' label and was
    cited to them; now the document's own source is. A section's number is no year."""
    act = Source("Animal Welfare Act 2006", "https://example.org/act")
    licensing = Source(
        "Animal Welfare (Licensing of Activities Involving Animals) (England) Regulations 2018",
        "https://example.org/2018",
    )
    slaughter = Source("7 U.S.C. § 1902, Humane methods of slaughter", "https://example.org/1902")
    sources = [act, licensing, slaughter]
    sentences = [
        "The Welfare of Farmed Animals (England) Regulations 2007 set standards for farmed "
        "animals.",
        "The Animal Welfare (Licensing of Activities Involving Animals) (England) Regulations "
        "2018 require licences for selling pets.",
        "The Humane Methods of Slaughter Act (7 U.S.C. § 1901 and following) requires humane "
        "methods of slaughter.",
    ]
    row = cited([sentences], "Regulations", sources, act, lambda _: False)[0]
    assert row == [act, licensing, slaughter]
    # a count is no year: "2000 animals" does not keep the 2018 regulations from being named
    counted = (
        "The Animal Welfare (Licensing of Activities Involving Animals) (England) Regulations "
        "cap a licence at 2000 animals."
    )
    assert cited([[counted]], "", sources, act, lambda _: False) == [[licensing]]


def test_a_source_of_another_place_is_never_cited_for_a_sentence_placed_elsewhere():
    """Issue 46: "Outside the EU, ... California under Proposition 12 ..." was cited to the EU's
    laying-hen directive, the guide's own source; no source of the guide fits it."""
    from common.language.citations import fits

    directive = Source(
        "Council Directive 1999/74/EC", "https://eur-lex.europa.eu/eli/dir/1999/74/oj"
    )
    act = Source(
        "Fur Farming (Prohibition) Act 2000", "https://www.legislation.gov.uk/ukpga/2000/33"
    )
    elsewhere = (
        "Outside the EU, many companies have adopted cage-free egg policies, and some "
        "jurisdictions, including California under Proposition 12, require cage-free housing."
    )
    assert not fits(elsewhere, directive)
    assert fits("Member states could adopt stricter national rules in the EU.", directive)
    assert fits("Enriched cages must give each hen 750 square centimetres.", directive)
    assert not fits("There is no federal ban on fur farming in the US.", act)
    assert fits("Fur farming has been banned in England and Wales since 2003.", act, dated=False)
    assert fits("There is no federal ban in the US.", Source("A guide", "https://[broken"))
    # the main source's own history is no other year: "It replaced the ... Act 1911"
    assert fits("It replaced the Protection of Animals Act 1911.", act, dated=False)


def test_a_source_of_another_section_is_never_cited_for_a_sentence_naming_its_own():
    """Set 29's readers: a sentence on Iowa's section 727.8A was cited to "Iowa Code § 717A.3A",
    the guide's main source, and one on § 25992's exceptions to § 25990. A sentence naming a run
    of sections ("§ 1901 and following") may be from any of them."""
    from common.language.citations import fits

    trespass = Source("Iowa Code § 717A.3A (2012)", "https://example.org/717a")
    assert not fits("Section 727.8A makes placing a camera on farm property an offence.", trespass)
    assert fits("Section 717A.3A makes agricultural production facility fraud a crime.", trespass)
    assert fits("Iowa passed a second law after the first was struck down.", trespass)
    slaughter = Source("7 U.S.C. § 1902, Humane methods of slaughter", "https://example.org/1902")
    assert fits("The Act (7 U.S.C. § 1901 and following) requires humane slaughter.", slaughter)
    assert not fits("Section 4 of the Act sets a duty of care.", NOTICE)
    assert fits("Section 11 requires six days' notice of a march.", NOTICE)


def test_a_source_holds_no_sentence_naming_another_instrument_or_body_and_not_it():
    """Set 29's readers: "The European Chicken Commitment is the sister policy for Europe" was
    cited to the US Better Chicken Commitment's text, an EFSA opinion and the End the Cage Age
    initiative to a directive (decision 0086). A sentence that names nothing, or names the
    source (by its label, its initials, or for a document's own source the document's title),
    is the source's to hold."""
    from common.language.citations import holds, names

    bcc = Source("Better Chicken Commitment, policy text (US)", "https://example.org/bcc")
    directive = Source("Council Directive 2008/120/EC on the protection of pigs", "https://e.org/d")
    cites = Source("Text of the Convention on International Trade in Endangered Species", "u")
    assert names("The European Chicken Commitment is the sister policy for Europe.") == [
        "European Chicken Commitment"
    ]
    assert not holds("The European Chicken Commitment is the sister policy for Europe.", bcc)
    assert holds("The Better Chicken Commitment asks for 2 kg per square metre at most.", bcc)
    assert not holds("EFSA opinions found high CO2 concentrations aversive to pigs.", directive)
    assert not holds('The initiative "End the Cage Age" asked for an end to crates.', directive)
    assert holds("Sows must be kept in groups from four weeks after service.", directive)
    assert holds("The Directive requires group housing of sows.", directive)  # no name of another
    assert holds("CITES was agreed in Washington in 1973.", cites)  # its initials
    awa = Source("7 U.S.C. § 2132, Definitions", "u")
    sentence = "The Animal Welfare Act excludes rats and mice bred for research."
    assert not holds(sentence, awa)
    assert holds(sentence, awa, "The US federal Animal Welfare Act and what it does not cover")
    # what is no name of an instrument or body: a common abbreviation, a quoted phrase in
    # sentence case, "The Act" alone
    assert names('"Improve welfare" cannot be checked; CO2 stunning in the EU and UK.') == []
    assert names("The Act applies to England and Wales.") == []


def test_a_year_an_instrument_and_a_studys_authors_name_their_source():
    """Spent set 30's readers (decision 0086): "The 2022 Act gave the Home Secretary power..."
    was cited to the Public Order Act 1986, "A landmark 2003 study by Lynne Sneddon, Victoria
    Braithwaite and Michael Gentle" to Sneddon's 2019 review, and "Animal welfare issues reach
    investors..." to the Business Benchmark on Farm Animal Welfare by "animal welfare" alone."""
    from common.language.citations import holds, names

    act = Source("Public Order Act 1986", "https://example.org/poa")
    police = Source("Police, Crime, Sentencing and Courts Act 2022, Part 3", "https://e.org/pcsc")
    assert names("The 2022 Act gave the Home Secretary power.") == ["2022 Act"]
    assert not holds("The 2022 Act gave the Home Secretary power.", act)
    assert holds("The 2022 Act gave the Home Secretary power.", police)
    review = Source('Sneddon, L.U. (2019), "Evolution of nociception and pain"', "https://e.org/r")
    study = Source(
        'Sneddon, L.U., Braithwaite, V.A. & Gentle, M.J. (2003), "Do fishes have nociceptors?"',
        "https://e.org/s",
    )
    sentence = "A 2003 study by Lynne Sneddon, Victoria Braithwaite and Michael Gentle found them."
    assert cited([[sentence]], "", [review, study], review, leans) == [[study]]
    later = "A study by Braithwaite and Gentle found nociceptors."  # no year: no study named
    assert cited([[later]], "", [review, study], review, leans) == [[review]]
    benchmark = Source("Business Benchmark on Farm Animal Welfare", "https://e.org/bbfaw")
    rule = Source("17 CFR § 240.14a-8, Shareholder proposals", "https://e.org/rule")
    risks = "Animal welfare issues reach investors mainly as business risks."
    assert cited([[risks]], "", [rule, benchmark], rule, leans) == [[rule]]


def test_a_document_with_footnotes_is_asked_no_rule():
    """Decision 0089: a marked sentence takes its footnote's source, surely, even one the rules
    would give another; an unmarked one no source of the list, not surely."""
    paragraph = [
        "In DPP v Ziegler the Supreme Court held that blocking a road may be lawful.",
        "Marches need a route agreed in advance.",
    ]
    given = {paragraph[0]: ACT}
    assert attributed([paragraph], "Marches", SOURCES, ACT, leans, given) == [
        [Attribution(ACT, True), Attribution(None, False)]
    ]
