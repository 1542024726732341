"""Search pieces with no I/O: search terms, reciprocal-rank fusion, import rows, chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.errors import ImportFileError
from common.language.index import terms
from common.search.retrieval import fuse
from functions.knowledge.importer import chunks, footnoted, read_documents
from functions.knowledge.models import KnowledgeDocument
from functions.search.importer import read_rows, validate
from functions.search.tables import TABLES


def test_terms_are_stemmed_folded_and_without_stop_words():
    assert terms("The Campaigns for CAGE-FREE eggs, campaigning at the Café") == [
        "campaign",
        "cage",
        "free",
        "cagefre",
        "egg",
        "cafe",
    ]
    assert terms("and the of") == []
    assert terms("") == []


def test_capitals_tell_an_abbreviation_from_a_function_word():
    """Decision 0057: "could the company sue us" matched the guides' "US" federal law."""
    assert terms("could the company sue us for it") == ["compani", "sue"]
    assert terms("the US Animal Welfare Act") == ["us", "anim", "welfar", "act"]
    assert terms("in the U.S. and the U.K., e.g. here") == ["us", "uk"]  # e.g.: lone letters
    assert terms("WHO guidance, IT staff") == ["who", "guidanc", "it", "staff"]
    assert terms("A to Z, B12") == ["b12"]  # a lone letter is no term, in capitals or not


def test_fusion_rewards_items_both_rankings_agree_on():
    fused = fuse([["a", "b", "c"], ["c", "a", "d"]], key=lambda item: item, limit=3)

    assert [item for item, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62, abs=1e-6)  # rounded to 6 places


def test_rows_are_read_with_their_line_numbers(tmp_path: Path):
    path = tmp_path / "campaigns.jsonl"
    path.write_text('{"id": "c1", "title": "A"}\n\nnot json\n[1, 2]\n{"id": "c2", "title": "B"}\n')

    rows = list(read_rows(path))

    assert rows[0] == (1, {"id": "c1", "title": "A"})
    assert rows[1][0] == 3
    assert rows[1][1].startswith("not valid JSON")
    assert rows[2] == (4, "not a JSON object")
    assert rows[3] == (5, {"id": "c2", "title": "B"})


def test_csv_rows_split_list_fields(tmp_path: Path):
    path = tmp_path / "organizations.csv"
    path.write_text("id,name,focus_areas,country\no1,Hope for Hens,cage-free; fur,GB\no2,X,,\n")
    checked = [validate(TABLES["organizations"], row) for _, row in read_rows(path)]

    assert checked == [
        {"id": "o1", "name": "Hope for Hens", "focus_areas": ["cage-free", "fur"], "country": "GB"},
        {"id": "o2", "name": "X", "focus_areas": []},
    ]


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ({"id": "c1"}, "title: required"),
        ({"id": "c1", "title": "A", "status": "won-ish"}, "status: Input should be"),
        ({"id": "c1", "title": "A", "colour": "red"}, "colour: unknown field"),
        ({"id": "__x__", "title": "A"}, "id: String should match pattern"),
        ({"id": "c1", "title": "A", "start_date": "12/03/2024"}, "start_date:"),
        ({"id": "c1", "title": "A", "url": "javascript:alert(1)"}, "url: String should match"),
    ],
)
def test_a_bad_row_is_refused_with_its_reason(row, reason):
    assert validate(TABLES["campaigns"], row).startswith(reason)


def test_an_unknown_file_type_is_refused(tmp_path: Path):
    with pytest.raises(ImportFileError, match="jsonl"):
        list(read_rows(tmp_path / "records.xlsx"))


DOC = """---
id: hens
title: Laying hens
url: https://example.org/hens
tags: welfare-science, cage-free
---
# Laying hens

Intro paragraph about hens.

## Cages

Battery cages give each hen less space than a sheet of paper.

Enriched cages add a perch and a nest box.

### Enriched colonies

Colony cages hold dozens of birds.

## Sources

- https://example.org/a
"""


def test_markdown_is_cut_along_headings_and_sources_are_not_passages(tmp_path: Path):
    (tmp_path / "hens.md").write_text(DOC)
    [(_, document)] = list(read_documents([tmp_path]))

    assert isinstance(document, KnowledgeDocument)
    assert (document.id, document.title, document.url) == (
        "hens",
        "Laying hens",
        "https://example.org/hens",
    )
    assert document.tags == ["welfare-science", "cage-free"]
    assert [(c.section, c.text) for c in chunks(document)] == [
        ("Laying hens", "Intro paragraph about hens."),
        (
            "Laying hens > Cages",
            "Battery cages give each hen less space than a sheet of paper.\n"
            "Enriched cages add a perch and a nest box.",
        ),
        ("Laying hens > Cages > Enriched colonies", "Colony cages hold dozens of birds."),
    ]


def test_footnotes_say_which_source_holds_each_sentence_and_leave_no_marker(tmp_path: Path):
    """Decision 0089: a guide marks a sentence with the footnote of the source that holds it;
    the passage keeps no marker, and each marked sentence keeps its sources' URLs."""
    from functions.knowledge.importer import sources

    text = (
        "---\nid: pigs\ntitle: Pigs\nurl: https://example.org/dir\n---\n# Pigs\n\n"
        "Sows in stalls cannot turn around.[^dir] Campaigners should ask for a date. "
        'The opinion found "high" CO2 aversive.[^efsa][^dir]\n'
        "It also covers piglets.\n\n"
        "## Sources\n\n"
        "[^dir]: Council Directive 2008/120/EC: https://example.org/dir\n"
        "[^efsa]: EFSA opinion on pigs at slaughter: https://example.org/efsa\n"
    )
    (tmp_path / "pigs.md").write_text(text)
    [(_, document)] = list(read_documents([tmp_path]))
    assert isinstance(document, KnowledgeDocument)
    [chunk] = chunks(document)
    assert chunk.text == (
        "Sows in stalls cannot turn around. Campaigners should ask for a date. "
        'The opinion found "high" CO2 aversive. It also covers piglets.'
    )
    assert dict(chunk.given) == {
        "Sows in stalls cannot turn around.": ("https://example.org/dir",),
        'The opinion found "high" CO2 aversive.': (
            "https://example.org/efsa",
            "https://example.org/dir",
        ),
    }
    assert footnoted(document)
    assert [s.url for s in sources(document)] == [
        "https://example.org/dir",
        "https://example.org/efsa",
    ]
    plain = KnowledgeDocument(id="plain", title="Plain", text="Hens need space.[^x]")
    assert not footnoted(plain)  # no footnote definitions: the rules of decision 0087 apply
    # a marker whose footnote the Sources section does not define is the document's error
    (tmp_path / "pigs.md").write_text(text.replace("piglets.", "piglets.[^nowhere]"))
    [(where, problem)] = list(read_documents([tmp_path]))
    assert isinstance(problem, str)
    assert "[^nowhere]" in problem
    assert where.endswith("pigs.md")


def test_a_long_paragraph_is_cut_at_sentence_ends():
    sentence = "Hens need space to spread their wings and dust-bathe every day. "
    document = KnowledgeDocument(id="long", title="Long", text=sentence * 60)

    parts = chunks(document)

    assert len(parts) > 3
    assert all(len(p.text) <= 1200 for p in parts)
    assert all(p.text.endswith(".") for p in parts)
    assert " ".join(p.text for p in parts).split() == (sentence * 60).split()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nid: x\ntitle: X\n", "no closing ---"),
        ("---\nid: Not Valid!\ntitle: X\n---\nBody.", "id: String should match"),
        ("---\nid: x\njust a line\n---\nBody.", "not 'key: value'"),
        ("---\nid: x\ntitle: X\n---\n", "text: String should have at least 1"),
    ],
)
def test_a_bad_document_is_refused_with_its_reason(tmp_path: Path, text, reason):
    (tmp_path / "doc.md").write_text(text)

    [(_, found)] = list(read_documents([tmp_path / "doc.md"]))

    assert isinstance(found, str)
    assert reason in found


def test_every_footnote_marker_of_a_guide_names_a_source_it_lists():
    """Decision 0089: the importer refuses a marker whose key the guide's Sources section does
    not define (it would cite its sentence to nothing); no shipped guide is refused, and the
    guides read without footnotes keep none."""
    from common.language.citations import unfootnoted

    folder = Path(__file__).resolve().parents[2] / "data" / "knowledge"
    guides = [p for p in sorted(folder.glob("*.md")) if p.name != "README.md"]
    assert guides
    read = list(read_documents(guides))
    assert [(where, d) for where, d in read if isinstance(d, str)] == []
    assert sum(1 for _, d in read if isinstance(d, KnowledgeDocument) and footnoted(d)) == 20
    for path in guides:
        assert "[^" not in unfootnoted(path.read_text(encoding="utf-8")), path.name
