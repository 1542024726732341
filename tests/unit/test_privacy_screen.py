"""The personal-data screen every door uses (common/privacy, decisions 0029 and 0037), without
I/O: personal data drops a sentence whoever it is about and however it is worded or hidden,
professional facts pass, the exceptions come only from the records, and texts and streams keep
their other sentences. The classifier's figures on held-apart sentences are
bench/guardrails.py's."""

from __future__ import annotations

import pytest

from common.privacy import NOBODY, Known, clean, people, screen, screen_stream, screen_text
from common.privacy.normalise import for_matching
from common.privacy.rules import rules

# What the OSINT service knows of Dana Whitfield from the records (stricter, never looser).
DANA = Known(names=frozenset({"dana", "whitfield"}), organisations=frozenset({"harlowfoods"}))

# --- claims that must be dropped -----------------------------------------------------------------

PERSONAL = [
    # contact details
    ("email", "Whitfield can be reached at dana.whitfield@example.com."),
    ("email", "Her address is DANA.W+news@Mail.Example.co.uk, a reader said."),
    ("email", "Write to dana dot whitfield at example dot com."),
    ("email", "Her personal email was leaked in 2022."),
    ("phone", "Whitfield can be reached on +44 7700 900123."),
    ("phone", "Call (555) 123-4567 to speak to him."),
    ("phone", "Her number is 555-123-4567."),
    ("phone", "He answered on 07700 900123 late at night."),
    ("phone", "Her mobile: 7700 900 123."),
    ("phone", "Ring him on the office line after six."),
    ("phone", "Tel. 020 7946 0958 (home)."),
    # where someone lives
    ("street_address", "She lives at 12 Acacia Avenue."),
    ("street_address", "Whitfield's house is at 4 Mill Lane, Otley."),
    ("home", "Whitfield lives in a village near Harrogate."),
    ("home", "Protesters gathered outside her home on Sunday."),
    ("street_address", "The family moved to 221B Baker Street."),
    ("home", "He now lives on a farm outside York."),
    ("postcode", "The house in Leeds LS6 2AB was sold last year."),
    ("postcode", "Mail went to Springfield, IL 62704."),
    # birth and age
    ("date_of_birth", "Dana Whitfield was born on 3 May 1975."),
    ("date_of_birth", "Whitfield (born 1975) grew up in Leeds."),
    ("date_of_birth", "Whitfield, 47, declined to comment."),
    ("date_of_birth", "The 47-year-old executive said little."),
    ("date_of_birth", "She celebrated her 50th birthday at the office."),
    ("date_of_birth", "He was aged 52 when he left."),
    # family
    ("family", "She lives with her husband and two children."),
    ("family", "Her husband runs a bakery."),
    ("family", "Whitfield's daughter attends a local school."),
    ("family", "He is a father of three."),
    ("family", "Whitfield married a former colleague in 2015."),
    ("family", "Her sister works for a rival chain."),
    ("family", "She was on maternity leave in 2020."),
    # special-category data
    ("health", "Whitfield was treated for breast cancer in 2019."),
    ("health", "She has been on sick leave since March."),
    ("health", "He was diagnosed with depression last year."),
    ("health", "Dana Whitfield is pregnant with her second child."),
    ("health", "Mr Hale was hospitalised after a heart attack."),
    ("health", "She spoke openly about her recovery."),
    ("religion", "Whitfield, a devout Catholic, sings in the choir."),
    ("religion", "She attends church every Sunday."),
    ("religion", "He is a practising Muslim."),
    ("sexuality", "Whitfield came out as gay in 2010."),
    ("sexuality", "Her sexuality was discussed on a forum."),
    ("ethnicity", "Whitfield, who is of Nigerian descent, grew up in Bradford."),
    ("ethnicity", "His ethnicity was mentioned in the report."),
    ("ethnicity", "She is a refugee who arrived in 2001."),
    ("political_or_union_membership", "Whitfield is a member of the Green Party."),
    ("political_or_union_membership", "She joined the Labour Party in 2005."),
    ("political_or_union_membership", "He is a trade union steward at the plant."),
    ("political_or_union_membership", "She voted Conservative at the last election."),
    # traces of a private life
    ("licence_plate", "Her car, registration AB12 CDE, was parked outside."),
    ("licence_plate", "His licence plate was photographed."),
    ("personal_account", "She posts as @danaw_1975 on Instagram."),
    ("personal_account", "See instagram.com/dana.whitfield for photos."),
    ("personal_account", "Whitfield runs a personal blog about running."),
]


@pytest.mark.parametrize(("category", "claim"), PERSONAL)
def test_a_claim_with_personal_data_is_dropped(category, claim):
    assert screen(claim, DANA) == category


@pytest.mark.parametrize(("category", "claim"), PERSONAL)
def test_personal_data_is_dropped_without_knowing_whose_it_is(category, claim):
    """The screen finds the people a sentence names itself: what the caller said the
    subject is cannot make it let anything through."""
    assert screen(claim, NOBODY) is not None


# --- claims that must pass -----------------------------------------------------------------------

PROFESSIONAL = [
    "She joined Harlow Foods as head of sustainability in 2021.",
    "Dana Whitfield joined Harlow Foods as head of sustainability in 2021.",
    "Whitfield said Harlow Foods would publish its welfare report on 12 March 2024.",
    "She told the Grocer that 80% of the chain's eggs were now cage-free.",
    "He has led Brightwell Supermarkets since 2018.",
    "She said sow stalls for pregnant sows would be phased out by 2026.",
    "Whitfield said broilers suffering from leg disorders would be culled earlier.",
    "The company tests cancer drugs on mice at its Cambridge laboratory.",
    "Calves at Dunmore Dairy are separated from their mothers within hours of birth.",
    "Hens living in cages have less space than a sheet of A4 paper.",
    "Brightwell and their partner charities launched a hen rehoming scheme.",
    "Harlow Foods is a family-owned business founded in 1921.",
    "Harlow Foods, through its sister company Harlow Farms, supplies 2,000,000 eggs a week.",
    "The retailer sold 1,200,000 eggs between 2019-2020 and 2022-2023.",
    "Born Free Foundation welcomed the decision.",
    "Harlow Foods is a member of the European Union's animal welfare platform.",
    "The 150-year-old company operates 300 stores across the UK.",
    "Chickens are slaughtered aged 35 days.",
    "Follow the company's updates at @HarlowFoods.",
    "She called on suppliers to phase out cages by 2025.",
    "Harlow Foods said mobile phone sales in its stores rose 12% in 2021.",
    "She addressed the Humane League conference in Washington in May 2023.",
    "Harlow Foods' new distribution centre opened in Leeds in 2022.",
    "She said the company acted in good faith and remains a firm believer in the pledge.",
    "He said it would switch straight away to higher-welfare breeds.",
    "The chain's H5N1 response plan was published in 2022.",
    "The report (2023) covers 120 farms.",
    "Whitfield was promoted to director of sourcing in 2023.",
    "Her team published the group's first animal welfare policy.",
    "She is a trustee of the RSPCA and chairs its farm animals committee.",
]


@pytest.mark.parametrize("claim", PROFESSIONAL)
def test_a_professional_claim_is_kept(claim):
    assert screen(claim, DANA) is None


def test_the_data_files_examples_hold():
    """Each category's examples are dropped (by their category's patterns, or the classifier
    for a kind the patterns leave to it), and no professional example is dropped
    (data/privacy/screen.toml carries both lists, for whoever edits the patterns)."""
    for category in rules().category:
        for example in category.examples:
            assert screen(example, NOBODY) is not None, example
    for example in rules().professional_examples:
        assert screen(example, NOBODY) is None, example


def test_a_claim_is_dropped_whole_not_redacted():
    claim = "She announced the pledge and can be reached at dana@example.com."
    assert screen(claim, DANA) == "email"  # the service drops it; nothing is cut out of it


def test_hidden_characters_do_not_hide_personal_data():
    assert screen("Reach her at dana\u200b@example.com", DANA) == "email"
    assert screen("Reach her at dana\uff20example.com", DANA) == "email"  # fullwidth at sign
    assert clean("Dana\u200b  Whitfield\u2028said") == "Dana Whitfield said"


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("dana.whitfield at gmail.com", "dana.whitfield@gmail.com"),
        ("dana dot whitfield at example dot com", "dana.whitfield@example.com"),
        ("dana (at) example [dot] org", "dana@example.org"),
        ("seven seven zero zero nine zero zero one two three", "7700900123"),
        ("double seven oh oh nine", "77009"),
        ("0 7 7 0 0 9 0 0 1 2 3", "07700900123"),
        ("d\u0430na@\u0435xample.com", "dana@example.com"),  # Cyrillic a and e
    ],
)
def test_obfuscations_are_read_as_what_they_spell(written, read):
    assert for_matching(written) == read


@pytest.mark.parametrize(
    "claim",
    [
        "Write to dana.whitfield at gmail.com for comment.",
        "Call d\u0430na on seven seven zero zero nine zero zero one two three.",
        "Reach her at 0 7 7 0 0 9 0 0 1 2 3.",
        "Her address is d\u0430na.whitfield\u200b@gma\u0456l.com.",
    ],
)
def test_obfuscated_contact_details_are_dropped(claim):
    assert screen(claim, NOBODY) in ("email", "phone")


def test_a_handle_is_official_only_when_the_records_know_the_organisation():
    claim = "Whitfield announced the pledge on @HarlowFoods_News."
    assert screen(claim, DANA) is None  # the records know Harlow Foods
    assert screen(claim, NOBODY) == "personal_account"
    # a person's handle, whatever the caller said the company was called
    instagram = Known(organisations=frozenset({"instagram"}))
    assert screen("See instagram.com/dana.whitfield for photos of her.", instagram)
    assert screen("She posts as @danaw_1975.", Known(organisations=frozenset({"dana"})))
    # no person named and no name in the handle: an organisation's account
    assert screen("The charity's official account @OpenBarn shared the appeal.", NOBODY) is None


def test_people_are_found_whoever_they_are():
    found = people.references("Protesters gathered outside the Otley home of Dana Whitfield.")
    assert [r.text for r in found if r.kind == "name"] == ["Otley", "Dana Whitfield"]
    assert people.references("Hens live in cages.") == []
    assert people.references("Pregnant sows are kept in crates.") == []
    assert [r.text for r in people.references("Okafor was signed off sick.")] == ["Okafor"]
    assert [r.kind for r in people.references("The finance director resigned.")] == ["word"]
    assert people.references("The trade union Unite represents workers.") == []


def test_people_typed_in_lower_case_or_by_who_are_found():
    def names(text):
        return [r.text for r in people.references(text)]

    assert names("lol eli did the whole fast then came to the shelter") == ["eli"]
    assert names("marcys birthday is in march, whos bringing cake") == ["marcys"]
    assert names("the lane was closed so dana said to park by the gate") == ["dana"]
    assert names("the lane was closed for repairs") == []  # a lane, not Lane
    assert names("The Lane was closed.") == []  # a capitalised sentence is left to names()
    assert names("The packer, who is in the union, spoke.") == ["packer", "who is"]


def test_a_single_name_opening_a_sentence_is_found_by_what_follows_it():
    def names(text):
        return [r.text for r in people.references(text) if r.kind == "name"]

    assert names("Aditi quietly joined the party last year.") == ["Aditi"]  # an adverb first
    assert names("Thandi carries a card in her purse.") == ["Thandi"]  # singular verb, object
    assert names("Rohan stood on a ticket in the ward.") == ["Rohan"]  # an irregular past
    assert names("Gestation crates confine sows for weeks.") == []  # a noun, not a verb
    assert names("Hens live in cages.") == []
    assert names("Restaurants report a spike in bookings.") == []  # a plural


def test_text_speak_and_record_notes_refer_to_a_person():
    def kinds(text):
        return [r.kind for r in people.references(text)]

    assert kinds("u ok? heard u were poorly") == ["word", "word"]
    assert kinds("The U.S. ban applies from May.") == []  # "U" in capitals is no one
    assert "record" in kinds("Interviewee phone (personal): see the file.")
    assert [r.text for r in people.references("ok so jo's off this week")] == ["jo"]


@pytest.mark.parametrize(
    ("text", "animal"),
    [
        ("Bella the Labrador turned ten this week.", True),
        ("Our oldest resident, a 23-year-old donkey called Biscuit, has arthritis.", True),
        ("Bruno, a nine-year-old bear rescued from a zoo, is on medication.", True),
        ("Our horse Jasper turned 30 in May.", True),
        ("Dana Whitfield, the dog breeder, said she was ill.", False),
        ("Whitfield adopted a dog called Rex, she said.", False),
        ("My dog died and I was devastated.", False),
    ],
)
def test_a_subject_named_as_an_animal_lends_it_its_words(text, animal):
    people_found = [r for r in people.references(text) if r.start < 20]
    assert (people_found == []) is animal


@pytest.mark.parametrize(
    ("text", "office"),
    [
        ("Sponsor Senator Carla Jensen said the bill protects animals.", True),
        ("Jo Bland MP, a Labour member, spoke.", True),
        ("Labour MP Jo Bland said so.", True),
        ("Carla Jensen, the state senator, said so.", True),
        ("Jo Bland, a Labour member, spoke.", False),
    ],
)
def test_a_title_of_office_next_to_a_name_makes_it_a_public_office(text, office):
    kinds = [r.kind for r in people.names(text)]
    assert (kinds[0] == "office") is office


def test_a_party_or_union_by_name_is_read_from_one_list():
    # "{party}" in a pattern stands for the data file's parties and unions, as written
    assert screen("Kagiso carries an ANC membership card.", NOBODY) is not None
    assert screen("Dev, who's in the GMB, drove the van.", NOBODY) is not None
    assert screen("The ANC government published the welfare bill.", NOBODY) is None


def test_party_membership_is_public_only_for_holders_of_public_office():
    assert screen("Councillor Amy Rowe, a Labour member, voted for the motion.", NOBODY) is None
    assert screen("Amy Rowe, a Labour member, lobbied Councillor Jo Bland.", NOBODY) is not None
    mp = Known(public_office=frozenset({"dana whitfield"}))
    assert screen("Dana Whitfield is a member of the Green Party.", mp) is None
    assert screen("Dana Whitfield is a member of the Green Party.", DANA) is not None
    assert screen("Her husband is a member of the Green Party.", mp) == "family"  # still


@pytest.mark.parametrize(
    "claim",
    [  # issue 22's reproductions, with no subject given
        "Dana Whitfield was diagnosed with depression in 2020.",
        "Whitfield has breast cancer.",
        "Whitfield, a Catholic, prays daily.",
        "Whitfield posts as @danawhitfield.",
        "Protesters gathered outside the Otley home of Dana Whitfield.",
        "The house on Mill Lane belongs to Whitfield.",
        "Whitfield is battling leukaemia.",
        "Whitfield, aged forty-seven, is expecting twins.",
        "Whitfield is a Unite member and a Labour council candidate.",
        "She posts on Instagram as danaw1975.",
    ],
)
def test_personal_data_worded_as_news_words_it_is_dropped(claim):
    assert screen(claim, NOBODY) is not None


@pytest.mark.parametrize(
    ("claim", "kept"),
    [
        # an organisation's channel: a role mailbox, or a number or address given as its own
        ("Press enquiries to press@harlowfoods.example, Whitfield said.", True),
        ("Whitfield said queries go to the company media line, 020 7946 0123.", True),
        ("HARLOW FOODS' HELPLINE 0345 555 0123 IS OPEN, SAYS DANA WHITFIELD.", True),
        ("The group's head office is at 12 Dock Road, Grimsby, Whitfield said.", True),
        ("Call the complaints line on 0800 555 0199, said chief executive Dana Whitfield.", True),
        ("Ring 0800 555 0199 for a brochure, Whitfield said.", True),  # free-call, no cue
        ("Follow us on Instagram @harlowfoods, says marketing head Dana Whitfield.", True),
        ("The group's mink farm is at 4 Mill Lane, Otley, Whitfield said.", True),
        ("Whitfield lives at the farm at 4 Mill Lane, Otley.", False),
        ("Whitfield posts as @dana_w_private on Instagram.", False),
        ("Presseanfragen an presse@harlow.example, sagte Dana Whitfield.", True),
        # a person's own channel, whatever the sentence says of the organisation
        ("Whitfield gave out the press line and her mobile, 07700 900123.", False),
        ("Media enquiries: Dana Whitfield, 0161 496 0758.", False),
        ("For interviews, call Dana Whitfield on 0161 496 0758.", False),
        ("Media enquiries to dana.whitfield@harlowfoods.example.", False),
        ("The press office gave her home address, 4 Mill Lane, Otley.", False),
        # a business named after its owner, its hours, its orders, its WhatsApp hotline
        (
            "La poissonnerie de Dana Whitfield, 12 quai Carnot, est ouverte du mardi au samedi.",
            True,
        ),
        ("Die Metzgerei Whitfield in der Hauptstraße 5 ist werktags ab 7 Uhr geöffnet.", True),
        ("Los pedidos a la granja de Dana Whitfield se hacen al 601 744 2211.", True),
        ("Tips go to the WhatsApp-Hotline des Vereins, +49 30 2250 4400, Whitfield said.", True),
        ("Dana Whitfield's shop at 12 Dock Road, Grimsby, opens daily from 8.", True),
        ("Whitfield said the lab's duty phone, +45 76 12 00 90, is staffed all week.", True),
        ("If you want to complain, ring the farm office line 01234 567890, Whitfield said.", True),
        (
            "La ligne WhatsApp de l'association, 06 44 12 80 30, répond aux signalements, "
            "dit Dana Whitfield.",
            True,
        ),
        ("Whitfield gave her WhatsApp, 07700 900123, to the reporter.", False),
        ("Whitfield habite au 12 rue des Lilas, à Otley.", False),
        ("You can ring Dana Whitfield on 07700 900461 any evening.", False),
        ("For orders, Whitfield gives her mobile, 07700 900461.", False),
        ("The court orders that Whitfield, of 4 Mill Lane, Otley, pay costs.", False),
    ],
)
def test_an_organisations_channel_is_kept_and_a_persons_is_not(claim, kept):
    assert (screen(claim, DANA) is None) is kept


@pytest.mark.parametrize(
    ("claim", "kept"),
    [
        # work at a place, whatever the routine: the category's `unless` (decision 0058)
        ("Whitfield is on the kill floor at six every morning for the hygiene inspection.", True),
        ("Whitfield is at the packing station from 6 every weekday, checking shell quality.", True),
        ("Right now Whitfield is at the Hilton in Geneva presenting results to investors.", True),
        # private life: a habit, a class, away right now (decision 0059)
        ("Whitfield drinks at the Red Lion every Friday.", False),
        ("Whitfield takes a pottery class at the community centre on Thursday evenings.", False),
        ("Whitfield is in Tenerife at the moment and won't be back until Monday.", False),
    ],
)
def test_where_a_person_works_is_kept_and_where_she_can_be_found_is_not(claim, kept):
    assert (screen(claim, DANA) is None) is kept


# What the screen reads as an organisation's or an office's, and what it still reads as a
# person's (decision 0058, third pass): (claim, kept).
KINDS = [
    # a post in a union or a party is its public role; membership is not
    ("GMB organiser Tunde Bakare said the strike goes ahead.", True),
    ("UNITE'S JAMAL HADDAD: UNION WILL BALLOT 2,000 WORKERS.", True),
    ("Tunde Bakare, regional officer of Unite, met the company.", True),
    ("Ruairi McGill is the new chair of the Ulster Farmers' Union pig committee.", True),
    ("Shop steward Gary Nuttall said the union would ballot poultry workers.", False),
    ("Le délégué CGT de l'abattoir, Karim Benali, a présenté les revendications.", False),
    ("He is a CDU member of the Bundestag.", True),
    ("Tunde Bakare is a member of Unite.", False),
    ("Tunde Bakare, a picker, joined the GMB last year.", False),
    # an organisation's age is not a person's
    ("ARJUN MEHTA QUITS AS CHAIR OF 50-YEAR-OLD MEHTA DAIRIES.", True),
    ("Hugo Lindahl said the firm is 100 years old this year.", True),
    ("La empacadora cumple 70 años, dijo su director, Rodrigo Salcedo.", True),
    ("The 12-year-old company he founded now supplies 400 stores.", True),
    ("Der 52-Jährige leitet den Betrieb seit zwanzig Jahren.", False),
    ("Hugo Lindahl, a 54-year-old company director, spoke.", False),
    ("Whitfield, 54, the company's founder, spoke.", False),
    ("Hugo Lindahl is 100 years old this year.", False),
    # a business's history is not a family's private life
    ("Whitlow & Sons was founded by Arthur Whitlow in 1931 and is run by his grandson.", True),
    ("The abattoir has been in the Fenwick family since 1903, Robert Fenwick said.", True),
    (
        "Entreprise familiale fondée en 1921 par son arrière-grand-père, la laiterie grandit.",
        True,
    ),
    ("Robert Fenwick's grandson is in hospital.", False),
    ("The firm was founded in 1931 by Arthur Whitlow, whose wife left him in 1950.", False),
    # a leisure habit with its time is whereabouts; work is not
    ("Seo Dong-hyun hits balls at the Namsan driving range every Sunday morning.", False),
    ("Saturdays are spent on her rented vegetable plot, Han Ji-woo says.", False),
    ("Li Wenhao practises tai chi in Zhongshan Park at dawn.", False),
    ("Le samedi, on croise souvent Dirk Peeters au marché aux puces.", False),
    ("Kazuo Fukuda bids at the Toyosu market auction each morning.", True),
    ("Zofia Pawlak chairs the board meeting at the Warsaw office every Monday.", True),
    ("Die Hunde aus dem Tierheim werden täglich im Park ausgeführt.", True),
    (
        "Quality head Mia Ross is on the packing line every morning at six for the swab checks.",
        True,
    ),
    ("Mia Ross swims at the lido every morning at six before work.", False),
]


@pytest.mark.parametrize(("claim", "kept"), KINDS)
def test_what_is_an_organisations_or_an_offices_and_what_is_a_persons(claim, kept):
    assert (screen(claim, NOBODY) is None) is kept


def test_a_text_keeps_its_other_sentences_and_lines():
    text = (
        "# Harlow Foods\n\n- Dana Whitfield leads sustainability. She lives at 12 Acacia "
        "Avenue.\n- The chain pledged to go cage-free by 2026.\n- Her husband runs a bakery."
    )
    screened = screen_text(text)
    assert screened.text == (
        "# Harlow Foods\n\n- Dana Whitfield leads sustainability.\n"
        "- The chain pledged to go cage-free by 2026."
    )
    assert screened.dropped == {"street_address": 1, "family": 1}


def test_a_stream_is_screened_sentence_by_sentence_across_pieces():
    pieces = [
        "Dana Whit",
        "field leads sustain",
        "ability. She lives",
        " at 12 Acacia Ave",
        "nue. ",
        "The chain pledged.",
    ]
    dropped: list[str] = []
    out = "".join(screen_stream(iter(pieces), on_drop=dropped.append))
    assert out == "Dana Whitfield leads sustainability. The chain pledged."
    assert dropped == ["street_address"]


def test_after_an_animal_that_opens_a_sentence_a_single_word_is_no_ones_name():
    """After an animal that opens a sentence ("Die Hündin ..."), a single capitalised word
    thirty characters on is no person's name unless it is a given name: German capitalises
    its nouns ("ihre Welpen")."""
    from common.privacy import people

    def named(text: str) -> list[str]:
        return [r.text for r in people.references(text) if r.kind in ("name", "office")]

    assert named("Die Hündin ist schwanger und bekommt in zwei Wochen ihre Welpen.") == []
    assert named("The sow at the sanctuary was rescued last year by Dana Whitfield.") == [
        "Dana Whitfield"
    ]


def test_the_model_is_the_one_trained_from_the_training_set():
    """An edit of data/privacy/train.jsonl ships with its retrained model
    (python -m devtools.train_privacy), never without."""
    import hashlib
    import json
    from collections import Counter

    from common.privacy import classifier
    from common.privacy.rules import LABELS

    train = classifier.MODEL_PATH.parent / "train.jsonl"
    stored = json.loads(classifier.MODEL_PATH.read_text())
    assert stored["trainedOn"]["sha256"] == hashlib.sha256(train.read_bytes()).hexdigest()
    assert stored["labels"] == ["none", *LABELS]
    rows = [json.loads(line) for line in train.read_text().splitlines() if line.strip()]
    counts = Counter(row["label"] for row in rows)
    assert len(rows) >= 400
    assert counts["none"] >= 200
    assert all(counts[label] >= 25 for label in LABELS), counts
    assert len({row["text"] for row in rows}) == len(rows)  # no sentence twice


def test_research_and_digests_show_only_screened_items():
    """Both the research stream and the digests take their items from gather.screened: a
    summary loses its personal sentences, an item whose title is personal gives its place to
    the next best."""
    from datetime import UTC, datetime

    from common.adapters.feeds import FeedItem
    from functions.research.gather import RankedItem, screened

    def ranked(n: int, title: str, summary: str) -> RankedItem:
        link = f"https://news.example.org/{n}"
        item = FeedItem(f"id{n}", title, link, "fixture", datetime.now(UTC), summary)
        return RankedItem(item, 10.0 - n, ["cage-free"])

    candidates = [
        ranked(
            1,
            "Harlow Foods pledges cage-free eggs by 2026",
            "The chain made the pledge on Monday. Its sourcing chief Dana Whitfield lives at "
            "12 Acacia Avenue, Leeds. Campaigners welcomed it.",
        ),
        ranked(2, "Sourcing chief Dana Whitfield diagnosed with depression", "More below."),
        ranked(3, "Brightwell follows with its own pledge", "Brightwell set 2027."),
    ]
    kept = screened(candidates, 2)
    assert [r.item.id for r in kept] == ["id1", "id3"]
    assert kept[0].item.summary == "The chain made the pledge on Monday. Campaigners welcomed it."


def test_threads_screening_at_once_get_what_one_thread_gets():
    """The screen's caches (compiled patterns, a sentence's names and personal-channel words,
    kept per text) hold no per-call state: eight threads screening the same sentences at
    once give each sentence the verdict a single thread gives it."""
    from concurrent.futures import ThreadPoolExecutor

    from common.privacy.screen import _a_persons_channel, _names_in

    _a_persons_channel.cache_clear()
    _names_in.cache_clear()
    sentences = [
        "Call the complaints line on 0800 555 0199, said chief executive Dana Whitfield.",
        "Whitfield gave out the press line and her mobile, 07700 900123.",
        "The group's head office is at 12 Dock Road, Grimsby, Whitfield said.",
        "Whitfield drinks at the Red Lion every Friday.",
        "Whitfield is on the kill floor at six every morning for the hygiene inspection.",
        "Media enquiries: Dana Whitfield, 0161 496 0758.",
    ] * 20
    alone = [screen(s, DANA) for s in sentences[:6]] * 20
    _a_persons_channel.cache_clear()
    _names_in.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda s: screen(s, DANA), sentences))
    assert together == alone
    assert alone[:6] == [None, "phone", None, "whereabouts", None, "phone"]


def test_a_handle_of_a_given_name_and_a_surname_the_text_writes_is_a_persons() -> None:
    """``people.handles``: "@danawhitfield" is Dana Whitfield's when the text writes her
    surname, possessive and apostrophe as a handle leaves them out (the surnames the text
    gave were never matched: they kept the space after them)."""
    from common.privacy import people

    def found(text: str) -> list[str]:
        return [r.text for r in people.handles(text)]

    assert found("Dana Whitfield posts as @danawhitfield every day.") == ["@danawhitfield"]
    assert found("Whitfield's account: @danawhitfield") == ["@danawhitfield"]
    assert found("Siobhan O'Brien is @siobhanobrien on X.") == ["@siobhanobrien"]
    assert found("Follow @danawhitfield for updates.") == []  # no surname written: unknown
    assert found("Open Barn Alliance is @openbarn on X.") == []
