"""Content kept as data (decision 0020): every data file loads and validates, the files agree
with each other and with the code that uses them, a bad edit is reported naming the file and
the field, and nothing is read at import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from common.datafiles import DATA, Content, ContentError, Line, Pattern, Prose, read
from common.language.lexicon import EntityWords
from common.offline.memory import MemoryWords
from common.offline.summarize import SummaryWords
from common.privacy.rules import Rules as PrivacyRules
from functions.chat.assist import Texts as AssistantTexts
from functions.chat.models import ExtractedFields
from functions.content.texts import Drafts
from functions.legal import guide
from functions.legal.content import Activities, GuideText
from functions.legal.jurisdictions import Jurisdictions
from functions.mcp.tools import ToolTexts
from functions.osint.report import ReportContent as OsintReport
from functions.research.gather import _StopWords
from functions.research.overview import OverviewWords
from functions.tracking.models import Frequency

ROOT = Path(__file__).resolve().parents[2]

# Every content file and its model. A new file under these folders needs an entry here (and
# checks of its cross-references below).
MODELS: dict[str, type[Content]] = {
    "legal/activities.toml": Activities,
    "legal/guide.toml": GuideText,
    "legal/jurisdictions.toml": Jurisdictions,
    "offline/entities.toml": EntityWords,
    "offline/memory.toml": MemoryWords,
    "offline/summarize.toml": SummaryWords,
    "research/stop_words.toml": _StopWords,
    "research/overview.toml": OverviewWords,
    "offline/assistant.toml": AssistantTexts,
    "content/drafts.toml": Drafts,
    "privacy/screen.toml": PrivacyRules,
    "osint/report.toml": OsintReport,
    "mcp/tools.toml": ToolTexts,
}
FOLDERS = ("legal", "offline", "research", "content", "osint", "privacy", "mcp")


def test_every_content_file_has_a_model():
    found = {str(p.relative_to(DATA)) for folder in FOLDERS for p in (DATA / folder).glob("*.toml")}
    assert found == set(MODELS)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_content_file_loads(name):
    assert read(DATA / name, MODELS[name])


# -- the legal guide ---------------------------------------------------------------------------


def legal() -> tuple[Activities, GuideText]:
    return read(DATA / "legal/activities.toml", Activities), read(
        DATA / "legal/guide.toml", GuideText
    )


def test_every_example_is_recognised_as_its_activity():
    activities, _ = legal()
    for activity in activities.activity:
        for example in activity.examples:
            found = [a.key for a in guide.detect_activities(example)]
            assert activity.key in found, f"{activity.key}: {example!r} is not recognised"


def test_questions_for_a_lawyer_are_never_repeated():
    activities, text = legal()
    questions = [q for a in activities.activity for q in a.questions]
    questions += text.general_questions
    assert len(set(questions)) == len(questions)


def test_section_headings_are_distinct():
    activities, text = legal()
    headings = [a.heading for a in activities.activity]
    headings += [s.heading for s in text.no_activity.section]
    headings += [text.before_you_act.heading, text.jurisdiction.heading]
    assert len(set(headings)) == len(headings)


def test_general_questions_can_top_up_any_guide():
    _, text = legal()
    assert len(text.general_questions) >= guide.MIN_QUESTIONS


# -- the offline engine ------------------------------------------------------------------------


def test_frequencies_are_the_subscription_frequencies():
    words = read(DATA / "offline/entities.toml", EntityWords)
    assert set(words.frequencies) == set(get_args(Frequency))
    [allowed, _none] = get_args(ExtractedFields.model_fields["frequency"].annotation)
    assert set(words.frequencies) == set(get_args(allowed))


def test_entity_word_lists_have_no_repeats():
    words = read(DATA / "offline/entities.toml", EntityWords)
    for name in ("roles", "legal_activities", "jurisdictions"):
        values = getattr(words, name)
        assert len(set(values)) == len(values), name


# -- bad edits are reported naming the file and the field -------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return path


ACTIVITY = """
[[activity]]
key = "vigil"
label = "vigils"
short = "vigils"
heading = "Vigils"
examples = ["A vigil."]
patterns = ['\\bvigils?\\b']
body = "Vigils are often lawful."
questions = ["Do we need a permit?"]
"""


def test_a_valid_activity_file_loads_with_prose_joined(tmp_path):
    prose = '"""\nVigils  are\noften lawful.\n\nSecond  paragraph.\n"""'
    path = write(tmp_path, ACTIVITY.replace('"Vigils are often lawful."', prose))
    [activity] = read(path, Activities).activity
    assert activity.body == "Vigils are often lawful.\n\nSecond paragraph."
    assert activity.patterns == ("\\bvigils?\\b",)


def test_a_bad_pattern_names_the_file_the_activity_and_the_field(tmp_path):
    path = write(tmp_path, ACTIVITY.replace("'\\bvigils?\\b'", "'\\bvigil(s?\\b'"))
    with pytest.raises(ContentError) as caught:
        read(path, Activities)
    message = str(caught.value)
    assert str(path) in message
    assert "activity[0] (key 'vigil').patterns[0]: is not a valid regular expression" in message


def test_a_misspelt_key_is_an_error_not_ignored(tmp_path):
    path = write(tmp_path, ACTIVITY.replace("heading =", "heading = 'Vigils'\nheadline ="))
    with pytest.raises(ContentError, match=r"activity\[0\] \(key 'vigil'\)\.headline: Extra"):
        read(path, Activities)


def test_a_question_must_be_a_question(tmp_path):
    path = write(tmp_path, ACTIVITY.replace("Do we need a permit?", "Permits."))
    with pytest.raises(ContentError, match=r"questions\[0\]"):
        read(path, Activities)


def test_two_activities_with_one_key_are_an_error(tmp_path):
    path = write(tmp_path, ACTIVITY + ACTIVITY.replace('heading = "Vigils"', 'heading = "V"'))
    with pytest.raises(ContentError, match="two activities have the same key: 'vigil'"):
        read(path, Activities)


def test_weak_patterns_need_places(tmp_path):
    path = write(tmp_path, ACTIVITY + "weak_patterns = ['\\bfilm']\n")
    with pytest.raises(ContentError, match="weak_patterns and places go together"):
        read(path, Activities)


@pytest.mark.parametrize(
    ("named", "expected"),
    [
        ("You named {place}.", r"jurisdiction\.named: uses \{place\}; the placeholders here are: "
                               r"\{jurisdiction\}"),
        ("You named a place.", r"jurisdiction\.named: must contain \{jurisdiction\}"),
        ("You named {jurisdiction.", r"jurisdiction\.named: is not a valid template"),
    ],
)  # fmt: skip
def test_templates_keep_exactly_their_placeholders(tmp_path, named, expected):
    source = (DATA / "legal/guide.toml").read_text(encoding="utf-8")
    start = source.index("named = ")
    end = source.index('"""', source.index('"""', start) + 3) + 3
    path = write(tmp_path, source[:start] + f"named = {named!r}" + source[end:])
    with pytest.raises(ContentError, match=expected):
        read(path, GuideText)


def test_text_that_is_not_toml_or_a_missing_file_names_the_file(tmp_path):
    with pytest.raises(ContentError, match=r"bad\.toml: is not valid TOML"):
        read(write(tmp_path, "key = 'unterminated\n"), Activities)
    with pytest.raises(ContentError, match=r"missing\.toml: cannot be read"):
        read(tmp_path / "missing.toml", Activities)


def test_field_types_normalise_and_check_text(tmp_path):
    class Sample(Content):
        line: Line
        prose: Prose
        pattern: Pattern

    path = write(tmp_path, 'line = " a \\n b "\nprose = "x\\n\\n\\n y"\npattern = "a+"\n')
    sample = read(path, Sample)
    assert (sample.line, sample.prose) == ("a b", "x\n\ny")
    with pytest.raises(ContentError, match="line: must not be empty"):
        read(write(tmp_path, "line = '  '\nprose = 'x'\npattern = 'a'\n"), Sample)


# -- nothing is read at import -----------------------------------------------------------------


def test_importing_the_modules_reads_no_content_file():
    code = (
        "import common.datafiles\n"
        "def refuse(*args):\n"
        "    raise AssertionError(f'read at import: {args}')\n"
        "common.datafiles.read = refuse\n"
        "import functions.legal.guide, functions.research.gather, common.offline.entities\n"
        "from functions.legal import content\n"
        "from functions.research import gather, overview\n"
        "from common.language import lexicon\n"
        "from common.offline import memory\n"
        "from functions.content import texts\n"
        "from functions.chat import assist\n"
        "caches = (content.activities, content.text, gather.stop_words, lexicon.entities,\n"
        "          overview.words, memory.words, texts.drafts, assist.texts)\n"
        "assert not any(f.cache_info().currsize for f in caches)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


def test_the_topicality_model_was_trained_on_the_pairs_as_shipped():
    """Decision 0088: ``data/content/topicality_model.json`` is what
    ``devtools.train_topicality`` writes from the pairs file as it is: retrain after editing it."""
    import hashlib

    from common.datafiles import read_json
    from functions.content.topicality import MODEL_PATH, PAIRS_PATH, ModelFile, inputs, model

    found = read_json(MODEL_PATH, ModelFile)
    assert found.sha256 == hashlib.sha256(PAIRS_PATH.read_bytes()).hexdigest()
    assert found.pairs == sum(1 for line in PAIRS_PATH.read_text().splitlines() if line.strip())
    # ... with the relevance judge, catalog and acronyms as shipped, which the service checks
    assert found.inputs == inputs()
    assert model() == found
