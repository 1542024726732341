"""The people a sentence refers to, whoever they are: personal pronouns and honorifics ("she",
"Mr", "my" in a quote), nouns for a person ("the finance director", "the stockperson"), titles
of office ("Senator Carla Jensen", "Jo Bland MP"), a personal record's field labels ("Age:"),
handles that open with a given name ("@danaw_1975"), and names as people write them. A
sentence that opens with an animal ("The tigress was pregnant when she...") lends its pronouns
to the animal. No I/O but the data files.

A name is a run of capitalised words that is not an organisation's or a place's (no
organisation word such as "Foods", "Council", "Street" in it) and is not made of words that
never name anyone ("The", "Protesters", months, jurisdictions). A run that opens a sentence is
a name only when it has the shape of one: a given name first ("Dana Whitfield"), two or more
words ("Okafor Mensah"), a comma or possessive after it ("Whitfield, 47," "Whitfield's"), or a
name the service's records hold (``extra``); otherwise "Hens live in cages" would be about a
person called Hens. Only ever a trigger for the screen's person-bound rules and classifier: a
word wrongly taken for a name costs a classifier call, never a sentence on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from common.language.message import Message, annotate
from common.language.names import capitalised_runs, words_of
from common.privacy.rules import (
    expand,
    given_names,
    never_names,
    organisation_words,
    rules,
    world_given_names,
)

# A name's words (``names``): capitalised words, not inside a handle, a path or a domain, and
# a particle between two of them, one alone ("Jan van Dyke"; "Maria de la Cruz" gives "Maria"
# and "Cruz"). The lower-case words are found only to break a run.
# A capital of Latin-1 counts ("Élise Fournier", "Øyvind").
_CAPITAL = re.compile(r"[A-Z\u00c0-\u00d6\u00d8-\u00de]")
_LOWER = re.compile(r"[a-z\u00df-\u00f6\u00f8-\u00ff]+")
_NAME_WITHIN = frozenset("_'\u2019-")
_NOT_AFTER = frozenset("@/._")  # a capital after these is in a handle, a path or a domain
_PARTICLES = frozenset(["de", "van", "von", "der", "da", "di", "le", "la", "bin", "al", "ap"])
_AFTER_NAME = re.compile(r"\s*(?:,|['\u2019]s\b|\()")


@dataclass(frozen=True)
class Reference:
    start: int
    end: int
    text: str
    kind: str  # "word" (pronoun, noun, title), "name", "office" (a name with a title of
    # office), "handle", "record" (a record's field label)


@cache
def _person_words() -> re.Pattern[str]:
    """Pronouns, honorifics and nouns for a person."""
    words = [*rules().person_words, *rules().person_nouns]
    alternation = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)


# What follows a title ending in "for": a seat, not a span of time (see office_titles).
_SEAT_AFTER = r"(?=\s+(?!the\s+(?:past|last|next|first|whole)\b)(?:the\s|(?-i:[A-Z])))"


@cache
def _titles() -> tuple[frozenset[str], re.Pattern[str]]:
    """Single-word titles (lower case) and a pattern for the written titles of office."""
    titles = rules().office_titles
    single = frozenset(t for t in titles if " " not in t)
    alternation = "|".join(
        [
            *(
                re.escape(t) + (_SEAT_AFTER if t.endswith(" for") else "")
                for t in sorted(titles, key=len, reverse=True)
            ),
            *(expand(p) for p in rules().office_title_patterns),
        ]
    )
    return single, re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)


def _word(token: str) -> str:
    return token.rstrip("'\u2019").removesuffix("'s").removesuffix("\u2019s")


def references(text: str | Message, extra: frozenset[str] = frozenset()) -> list[Reference]:
    """The references to people in ``text``, in order. ``extra``: lower-case names known to
    be people's (the records'), which count wherever they stand (a known "jenny" opening a
    sentence is the person, not a female donkey). A message's, with no ``extra``, are read
    once (``common.language.message``)."""
    if isinstance(text, Message) and not extra:
        return list(text.read(_references))
    return _found(annotate(text), extra)


def _references(message: Message) -> tuple[Reference, ...]:
    return tuple(_found(message, frozenset()))


def _found(message: Message, extra: frozenset[str]) -> list[Reference]:
    """The references of ``references``. Names are read from the message's words
    (``common.language.names.words_of``); pronouns, titles, handles and a record's field labels
    by the screen's own patterns."""
    text = message.text
    animal = animal_subject(text)
    if animal is not None and extra and set(re.findall(r"\w+", text[:animal].lower())) & extra:
        animal = None
    found = [
        Reference(m.start(), m.end(), m.group(0), "word")
        for m in _person_words().finditer(text)
        if not re.search(r"\s[A-Z]", m.group(0))  # "Our Father's Table" is a name
        and (
            animal is None
            or (
                m.group(0).lower() not in _PRONOUNS | _TYPED | _ALSO_ANIMALS and m.start() >= animal
            )
        )
    ]
    found += [
        Reference(m.start(), m.end(), m.group(0), "word")
        for m in _text_pronouns().finditer(text)
        if animal is None  # "Die Hunde ... werden täglich im Park ausgeführt"
    ]
    found += [
        Reference(m.start(), m.end(), m.group(0), "word")
        for m in _PERSON_SUFFIX.finditer(text)
        if m.group(0).lower() not in _NOT_PEOPLE
    ]
    found += [
        Reference(m.start(), m.end(), m.group(0), "word") for m in _titles()[1].finditer(text)
    ]
    found += [
        r
        for r in [*names(message, extra), *lowercase_names(message), *cased_names(message, extra)]
        if animal is None
        or (r.start > animal + 30 and _a_persons_name(r.text))
        or any(w in extra for w in re.findall(r"\w+", r.text.lower()))
    ]
    found += [
        Reference(m.start(), m.end(), m.group(0), "word")
        for m in _WHO.finditer(text)
        if animal is None or m.start() > animal + 30
    ]
    found += handles(text, extra)
    found += [Reference(m.start(), m.end(), m.group(0), "record") for m in _fields().finditer(text)]
    return sorted(found, key=lambda r: r.start)


def _a_persons_name(found: str) -> bool:
    """In a sentence about an animal, a name is a person's when it has two words or a given
    name: a single capitalised word is not ("Die Hündin ... in zwei Wochen ihre Welpen")."""
    words = found.split()
    return len(words) > 1 or words[0].lower() in world_given_names()


@cache
def _text_pronouns() -> re.Pattern[str]:
    """Pronouns as people text them ("u ok?"), matched in lower case only."""
    words = sorted((re.escape(w) for w in rules().text_pronouns), key=len, reverse=True)
    return re.compile(rf"(?<![\w./'\u2019-])(?:{'|'.join(words) or '(?!)'})(?![\w/'\u2019-])")


# "who" with a singular verb refers to a person ("the picker, who is in the union").
_WHO = re.compile(r"(?<![\w-])who(?:\s+(?:is|was|has|had)|['\u2019]s)(?!\w)")
_PRONOUNS = frozenset(["he", "she", "him", "his", "her", "hers", "himself", "herself"])
# Pronouns typed without an apostrophe, which are also words of other languages (German "im").
_TYPED = frozenset(["im", "ive", "hes", "shes"])
# Nouns for a person that a sentence about an animal uses for the animal ("the zoo's best-loved
# resident", "a good girl").
_ALSO_ANIMALS = frozenset(
    [
        *("resident", "patient", "survivor", "victim", "girl", "boy", "lady", "lad", "lass"),
        *("pair", "mother", "father", "mum", "sister", "brother", "son", "daughter", "twin"),
        *("sibling", "mate"),
    ]
)
# Nouns for a person by what they do: "stockperson", "businesswoman", "beekeeper", "farmworker".
_PERSON_SUFFIX = re.compile(
    r"(?<![\w-])[a-z]{3,}(?:person|woman|man|keeper|worker)(?!\w)", re.IGNORECASE
)
_NOT_PEOPLE = frozenset(["human", "german", "roman", "ottoman", "caiman", "shaman", "talisman"])


@cache
def _fields() -> re.Pattern[str]:
    """A personal record's field label opening a fragment, with a word before it or a note
    after it: "Age: 52.", "DOB: 1972", "Interviewee phone (personal):", "Religion (self-
    disclosed):"."""
    labels = sorted((re.escape(f) for f in rules().record_fields), key=len, reverse=True)
    return re.compile(
        rf"(?:^|(?<=[.;!?]\s))(?:[\w-]+\s+)?(?:{'|'.join(labels)})(?:\s*\([^()]{{0,30}}\))?\s*:",
        re.IGNORECASE,
    )


@cache
def _animal_opening() -> re.Pattern[str]:
    words = sorted((re.escape(w) for w in rules().animal_words), key=len, reverse=True)
    return re.compile(
        r"^\W*(?!(?:he|she|i|we|they|it|his|her|my|mr|mrs|ms|dr)\b)"
        rf"(?:(?:the|a|an|this|that|our|its|their|one|rescued|[\w'\u2019-]+['\u2019]s)\s+)?"
        rf"(?:[\w'\u2019-]+\s+){{0,2}}?(?:{'|'.join(words)})\b",
        re.IGNORECASE,
    )


@cache
def _animal_named() -> re.Pattern[str]:
    """A subject that an apposition right after it names as an animal, the apposition ending
    at the animal: "Bella the Labrador turned", "Our oldest resident, a 23-year-old donkey
    called Biscuit," (but not "Dana Whitfield, the dog breeder,")."""
    words = sorted((re.escape(w) for w in rules().animal_words), key=len, reverse=True)
    return re.compile(
        r"^\W*(?:[A-Z]\w+:\s*)?(?:(?!(?:he|she|i|we|they|it|his|her|my|mr|mrs|ms|dr)\b)"
        r"(?:[\w'\u2019-]+\s+){0,3}?[\w'\u2019-]+\s*,\s*(?:the|a|an|our|their|its|this)"
        r"|(?-i:[A-Z][\w'\u2019-]+)\s+the)\s+"
        rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{'|'.join(words)})"
        r"(?:\s+(?:called|named)\s+[A-Z][\w'\u2019-]*)?" + _AFTER_ANIMAL,
        re.IGNORECASE,
    )


# What may follow an apposition that ends at the animal ("Bella the Labrador turned", "the
# elephant at Manila Zoo"), so that "Dana Whitfield, the dog breeder," is not one.
_AFTER_ANIMAL = (
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:who|which|that|is|was|has|had|turned|turns|answers|lives|"
    r"lived|died|will|gets|got|needs|came|arrived|from|born|bred|kept|at|in|on|of|with|\w+ed)\b)"
)


def animal_subject(text: str) -> int | None:
    """Where an animal that opens the sentence ends ("The tigress", "Rescued pig", "The
    dairy's oldest cow", "Bella the Labrador"), or None: its pronouns, and a name right after
    it, are the animal's."""
    match = _animal_opening().match(text) or _animal_named().match(text)
    if match is None or _names_a_person(text, match.end()):
        return None
    return match.end()


_NEXT_WORD = re.compile(r"\s+([^\W\d_][\w'\u2019-]*)")


def _names_a_person(text: str, end: int) -> bool:
    """The animal word that opens the sentence is part of a person's reference: a role
    ("CATTLE BARON JEDEDIAH STONE", "Pig farmer Ola Berg") or a given name with a surname
    written the same way ("Jenny McBride has", "robin adler said"), not "Jenny the donkey"."""
    after = _NEXT_WORD.match(text, end)
    if after is None:
        return False
    following = _word(after.group(1))
    lower = following.lower()
    if len(lower) >= 4 and lower in rules().person_nouns:  # not "son" ("Los terneros son")
        return True
    opening = re.findall(r"[^\W\d_][\w'\u2019-]*", text[:end])
    if not opening or opening[-1].lower() not in world_given_names():
        return False
    same_case = following.isupper() == opening[-1].isupper() and (
        following[:1].isupper() == opening[-1][:1].isupper()
    )
    return (
        same_case
        and len(lower) >= 3
        and lower not in _FUNCTION
        and lower not in rules().animal_words
        and lower not in rules().name_verbs
    )


_HANDLE = re.compile(
    r"(?<![\w.@/])@([A-Za-z0-9_.]{3,30})|\.(?:com|app|net|social)/([A-Za-z0-9_.]{3,40})"
)

_REDDIT_USER = re.compile(r"(?<![\w/])u/[A-Za-z0-9_-]{3,20}\b")
_SURNAME = re.compile(r"\b[A-Z][A-Za-z'\u2019-]+")
_POSSESSIVE_END = re.compile(r"['\u2019]s?$")
_APOSTROPHE = re.compile(r"['\u2019-]")


def handles(text: str, extra: frozenset[str] = frozenset()) -> list[Reference]:
    """Account handles and profile URLs that look like a person's: a given name, then nothing,
    a separator, digits, an initial ("@danaw_1975", "instagram.com/dana.whitfield"), or a
    surname the text or the records hold ("@danawhitfield"); and any Reddit user ("u/name":
    the platform's notation for a person, where a community is "r/name")."""
    given = given_names()
    # The text's capitalised words, as a handle writes them: lower case, no apostrophe, no
    # possessive ("Whitfield's", "O'Brien" -> "whitfield", "obrien").
    found = [
        Reference(m.start(), m.end(), m.group(0), "handle") for m in _REDDIT_USER.finditer(text)
    ]
    accounts = list(_HANDLE.finditer(text))
    if not accounts:
        return found
    surnames = extra | {
        _APOSTROPHE.sub("", _POSSESSIVE_END.sub("", w)).lower() for w in _SURNAME.findall(text)
    }
    for match in accounts:
        account = (match.group(1) or match.group(2) or "").lower()
        head = re.match(r"[a-z]+", account)
        letters = head.group(0) if head else ""
        for name in _prefixes(letters):
            rest = account[len(name) :]
            if name in given and (
                re.match(r"^(?:[a-z]{0,2})(?:[._\d-]|$)", rest)
                or rest.rstrip("0123456789_.") in surnames
            ):
                found.append(Reference(match.start(), match.end(), match.group(0), "handle"))
                break
    return found


def _prefixes(word: str) -> list[str]:
    return [word[:n] for n in range(3, len(word) + 1)]


def names(text: str | Message, extra: frozenset[str] = frozenset()) -> list[Reference]:
    """The names of people in ``text`` (see the module docstring), each marked "office" when a
    title of office stands next to it."""
    never, organisation, given = never_names(), organisation_words(), given_names()
    single_titles, title_pattern = _titles()
    message = annotate(text)
    text = message.text
    found: list[Reference] = []
    written = words_of(message, _CAPITAL, not_after=_NOT_AFTER, within=_NAME_WITHIN, alone=_LOWER)
    for run in capitalised_runs(text, written, connectors=_PARTICLES, in_a_row=1):
        tokens = [word.text for word in run]
        start = run[0].start
        # Leading words that never name anyone ("The", "Senator") are cut off the run.
        while tokens and (_word(tokens[0]) in never or _word(tokens[0]).lower() in single_titles):
            start = text.index(tokens[0], start) + len(tokens[0])
            tokens = tokens[1:]
        if not tokens:
            continue
        titled = False
        for i, token in enumerate(tokens):  # "Sponsor Senator Carla Jensen", "Jo Bland MP"
            if _word(token).lower() in single_titles:
                titled = True
                before, after = tokens[:i], tokens[i + 1 :]
                tokens = after or before
                break
        if not tokens:
            continue
        words = [_word(t).lower() for t in tokens]
        given_first = words[0] in given or words[0].split("-")[0] in given
        if (any(w in organisation for w in words) and not (given_first and len(words) == 2)) or all(
            _word(t) in never or _word(t).isupper() for t in tokens
        ):
            continue  # "Harlow Foods", "Victoria Park", "BJP Lok Sabha"; but "Dana Hill"
        if all(_word(t).isupper() for t in tokens):
            continue  # an acronym ("IVF", "RSPCA", "GMB") is no one's name
        start = text.index(tokens[0], start)
        end = text.index(tokens[-1], start) + len(tokens[-1])
        preceding = re.search(r"([a-z]+)\s+$", text[max(0, start - 30) : start])
        if preceding and preceding.group(1) in rules().organisation_before:
            continue  # "the trade union Unite", "the retailer Tesco"
        if (
            preceding
            and preceding.group(1) in _PLACE_BEFORE
            and len(tokens) == 1
            and not tokens[0].endswith(("'s", "\u2019s"))
        ):
            continue  # "a gala in Auckland": a place (but "in Whitfield's view")
        if _animal_apposition().match(text, end):
            continue  # "Nandi, the white rhino,": an animal's name
        opens_sentence = _opens_sentence(text, start)
        shaped = (
            titled
            or words[0] in given
            or len(tokens) >= 2
            or _AFTER_NAME.match(text, end) is not None
            or tokens[-1].endswith(("'s", "\u2019s"))
            or any(w in extra for w in words)
        )
        if opens_sentence and not shaped and _looks_common(tokens[0], text, end):
            continue
        office = titled or _has_title(text, start, end, title_pattern)
        kind = "office" if office else "name"
        found.append(Reference(start, end, text[start:end], kind))
    return found


def every_name(text: str, extra: frozenset[str] = frozenset()) -> list[Reference]:
    """``names``, or when it finds none, the names written in capitals or in lower case
    (``cased_names``, ``lowercase_names``), each marked "office" when a title of office stands
    next to it ("GMB ORGANISER TUNDE BAKARE")."""
    message = annotate(text)
    found = names(message, extra)
    if found:
        return found
    pattern = _titles()[1]
    return [
        Reference(
            r.start,
            r.end,
            r.text,
            "office" if _has_title(text, r.start, r.end, pattern) else r.kind,
        )
        for r in [*cased_names(message, extra), *lowercase_names(message)]
    ]


# A word in lower case (``lowercase_names``): ASCII letters, not in a handle, a path, a domain
# or a hyphenated word.
_ASCII_LOWER = re.compile(r"[a-z]+\Z")
_NOT_BEFORE_WORD = frozenset("_'\u2019@./-")
_LETTER = re.compile(r"[^\W\d_]")  # a word of ``cased_names`` opens with a letter
_NOT_AFTER_LOWER = frozenset("_@/-")
_DETERMINERS = frozenset(["the", "a", "an", "this", "that", "our", "my", "your", "his", "her"])


def lowercase_names(text: str | Message) -> list[Reference]:
    """In a sentence typed in lower case (all of it, or from its first word: "eli did the whole
    fast", "rob was handing out Reform leaflets"), a given name counts when a name's verb
    follows it, with "'s" ("jo's born again", "kemi's 30th"), or with an "s" for a possessive
    before a noun, and no determiner stands before it ("the lane was closed" is a lane)."""
    message = annotate(text)
    text = message.text
    first = re.search(r"[A-Za-z]", text)
    if first is None or first.group(0).isupper():
        return []
    given, verbs = world_given_names(), rules().name_verbs
    lower = [
        w
        for w in words_of(message, _ASCII_LOWER, not_after=_NOT_BEFORE_WORD)
        if text[w.end : w.end + 1] not in _NOT_AFTER_LOWER
    ]
    found = []
    for i, match in enumerate(lower):
        word = match.text
        before = lower[i - 1].text if i else ""
        after = lower[i + 1].text if i + 1 < len(lower) else ""
        adjacent = i + 1 < len(lower) and text[match.end : lower[i + 1].start].strip() == ""
        contraction = re.match(r"['\u2019]s\b", text[match.end :]) is not None
        if before in _DETERMINERS:
            continue
        if word in given and contraction:  # "jo's properly born again", "kemi's 30th"
            found.append(Reference(match.start, match.end, word, "name"))
            continue
        if not adjacent:
            continue
        if (word in given and after in verbs) or (
            len(word) >= 5 and word.endswith("s") and word[:-1] in given and after not in verbs
        ):
            found.append(Reference(match.start, match.end, word, "name"))
    return found


_PLACE_BEFORE = frozenset(["in", "near", "across", "throughout", "around"])

# Words that end a run of name words in capitals or lower case ("DANA WHITFIELD REVEALS"):
# function words, and what a verb after a name looks like (``name_verbs``, "-s" and "-ed").
_FUNCTION = frozenset(
    ["the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "from", "by",
     "as", "is", "was", "has", "had", "says", "said", "who", "that", "this", "after", "over",
     "into", "about", "not", "no", "but", "so", "if", "then", "than", "her", "his", "their",
     "she", "he", "they", "its", "it", "be", "been", "are", "were"]
)  # fmt: skip


def cased_names(text: str | Message, extra: frozenset[str] = frozenset()) -> list[Reference]:
    """Names written in capitals or in lower case, which ``names`` does not see (it takes
    "WHITFIELD" for an acronym and "whitfield" for a word): a word the records know as a
    person's (``extra``), and a given name with the next word when both are written the same
    way ("DANA WHITFIELD REVEALS", "saw dana whitfield at"), given names of many countries
    included (``world_given_names``). Lower-case words count only in a text written all in
    lower case."""
    message = annotate(text)
    text = message.text
    given = world_given_names()
    written = words_of(message, _LETTER, not_after=_NOT_BEFORE_WORD, within=_NAME_WITHIN)
    lower_text = not any(c.isupper() for c in text)  # in a text in mixed case, "carry" is a verb
    found: list[Reference] = []
    for i, match in enumerate(written):
        word = match.text
        if word[:1].isupper() and not word.isupper():
            continue  # written as names are: ``names`` reads it
        if word.islower() and not lower_text:
            continue
        lower = _word(word).lower()
        if lower in extra and len(lower) > 2:
            found.append(Reference(match.start, match.end, word, "name"))
            continue
        if lower not in given or i + 1 >= len(written) or lower != word.lower():
            continue  # "jo's off": a possessive or contraction ends the name
        after = written[i + 1]
        following = _word(after.text)
        gap = text[match.end : after.start]
        if (
            gap.strip() == ""
            and following.isupper() == word.isupper()
            and following.islower() == word.islower()
            and len(following) >= 3
            and following.lower() not in _FUNCTION
            and following.lower() not in rules().name_verbs
        ):
            found.append(Reference(match.start, after.end, text[match.start : after.end], "name"))
    return found


@cache
def _animal_apposition() -> re.Pattern[str]:
    """An apposition right after a name that says it is an animal's: ", the white rhino,",
    " the Labrador", ", a 23-year-old donkey called Biscuit,"."""
    words = sorted((re.escape(w) for w in rules().animal_words), key=len, reverse=True)
    return re.compile(
        r"(?:\s*,\s*(?:the|a|an|our|their|its|this)|\s+the)\s+"
        rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{'|'.join(words)})"
        r"(?:\s+(?:called|named)\s+[A-Z][\w'\u2019-]*)?" + _AFTER_ANIMAL,
        re.IGNORECASE,
    )


def _looks_common(token: str, text: str, end: int) -> bool:
    """A single word opening a sentence is a common word ("Hens live", "Transgender
    inclusion") unless a verb follows it as one follows a name ("Okafor was"), an adverb
    before it ("Aditi quietly joined"), or, after a word that is no plural, a verb in the
    singular with its object or place ("Thandi carries an", "Sipho lives in"; but "Gestation
    crates confine" is a noun)."""
    following = re.match(r"\s+([a-z]+)(?:\s+([a-z]+))?(?:\s+([a-z]+))?", text[end:])
    if following is None:
        return True
    word, then, after = following.group(1), following.group(2) or "", following.group(3) or ""
    if word.endswith("ly") and len(word) > 4 and then:
        word, then = then, after  # "quietly joined", "reportedly owns"
    singular = (
        not token.lower().endswith("s")
        and len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is", "ous"))
        and then in rules().object_words
    )
    return not (word in rules().name_verbs or (word.endswith("ed") and len(word) > 4) or singular)


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \"'\u201c\u2018(")
    return not before or before[-1] in ".!?:;\n"


def apposition(text: str, end: int) -> tuple[int, int] | None:
    """The span of an apposition right after a name (", the Plaid Cymru member for the
    ward,", " (Plaid Cymru)"), if there is one."""
    after = text[end:]
    match = re.match(r"\s*[,(]\s*", after)
    if match is None:
        return None
    close = re.search(r"[,.;:()]", after[match.end() :])
    stop = match.end() + (close.start() if close else len(after) - match.end())
    return end + match.end(), end + stop


def titles_only(text: str) -> bool:
    """The sentence refers to people only by titles of office ("The Lok Sabha member", "the
    senator", "their MP") or by a pronoun with its title ("He is a CDU member of the
    Bundestag"): no name, no other noun or pronoun for a person outside a title."""
    pattern = _titles()[1]
    title_spans = [m.span() for m in pattern.finditer(text)]
    if not title_spans:
        return False
    return all(
        any(a <= r.start and r.end <= b for a, b in title_spans)
        or r.kind == "record"
        or (r.text.lower() in _PRONOUNS and _has_title(text, r.start, r.end, pattern))
        for r in references(text)
    )


# "is a", "has been the new", "was elected": what may stand between a name and its title
_PREDICATE = re.compile(
    r"\s+(?:is|was|has\s+been|had\s+been|became|becomes|serves\s+as|served\s+as|was\s+elected|"
    r"is\s+now|remains)\s+(?:(?:the|a|an|its|their)\s+)?(?:(?:new|former|current|longtime|"
    r"long-serving|veteran|interim|acting|elected)\s+)?",
    re.IGNORECASE,
)
_CAPITALISED = re.compile(r"[A-Z][\w'\u2019-]*\s+")
# What may stand between a title and the name after it: a word of the name's own, or the
# title's place ("Le délégué CGT de l'abattoir, Karim Benali").
_TITLE_TO_NAME = re.compile(
    r"(?:\s+(?:of|at|for|de|du|des|de\s+la|del|de\s+los|bei|von|vom|der|im)\s+"
    r"(?:[\w'\u2019-]+\s*){1,4},)?[\s.,]*(?:[A-Z][\w-]*\s*)?"
)


def _has_title(text: str, start: int, end: int, titles: re.Pattern[str]) -> bool:
    """A title of office right before the name ("Senator", "Labour MP"), right after it ("Jo
    Bland MP", "Jo Bland is the Labour MP for"), or in an apposition after it ("Carla Jensen,
    the state senator,")."""
    before = text[max(0, start - 40) : start]
    last = list(titles.finditer(before))
    if last and _TITLE_TO_NAME.fullmatch(before[last[-1].end() :]):
        return True
    after = text[end : end + 80]
    if titles.match(after.lstrip()):
        return True
    predicate = _PREDICATE.match(after)  # "Bronagh Quinn is a Sinn Féin MLA"
    at = predicate.end() if predicate else -1
    for _ in range(4 if predicate else 0):  # up to three words of a party's name first
        if titles.match(after, at):
            return True
        word = _CAPITALISED.match(after, at)
        if word is None:
            break
        at = word.end()
    if after.lstrip().startswith(","):
        apposition = re.split(r"[,.;:()]", after.lstrip()[1:], maxsplit=1)[0]
        return len(apposition.split()) <= 6 and titles.search(apposition) is not None
    return False
