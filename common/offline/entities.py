"""Rule-based entity extraction for ``extractedInfo`` (DESIGN.md §3). Keys appear only when
found; values are short strings taken from the message (or normalised enumerations)."""

from __future__ import annotations

import re
from typing import Any

from functions.tracking.topics import TOPICS

# Words that point at a topic of the catalog (the slug's own words count too).
TOPIC_WORDS: dict[str, tuple[str, ...]] = {
    "factory-farming": ("factory farm", "intensive farming", "cafo", "broiler", "sow stall",
                        "gestation crate", "battery cage"),
    "legislation": ("bill", "legislation", "law", "regulation", "ballot", "statute", "vote"),
    "wildlife": ("wildlife", "wild animal", "habitat", "poaching"),
    "cage-free": ("cage-free", "cage free", "cage-free eggs", "egg pledge"),
    "ag-gag": ("ag-gag", "ag gag"),
    "animal-testing": ("animal testing", "animal test", "vivisection", "lab animals",
                       "tested on animals", "cosmetics testing"),
    "fur": ("fur", "mink"),
    "aquaculture": ("aquaculture", "fish farm", "salmon farm", "shrimp farm"),
    "fishing": ("fishing", "bycatch", "trawling", "fisheries"),
    "live-export": ("live export", "live transport", "live animal export"),
    "slaughter": ("slaughter", "abattoir", "stunning"),
    "dairy": ("dairy", "milk", "calves"),
    "plant-based": ("plant-based", "plant based", "vegan", "meat alternative"),
    "cultivated-meat": ("cultivated meat", "cultured meat", "lab-grown meat", "cell-based"),
    "companion-animals": ("companion animal", "pet", "dogs", "cats", "shelter", "puppy mill"),
    "marine-mammals": ("marine mammal", "whale", "dolphin", "seal", "orca"),
    "zoos-aquariums": ("zoo", "aquarium", "captivity"),
    "wildlife-trade": ("wildlife trade", "wildlife trafficking", "ivory", "exotic pet"),
    "zoonotic-disease": ("zoonotic", "bird flu", "avian influenza", "pandemic", "zoonoses"),
    "corporate-campaigns": ("corporate campaign", "corporate pledge", "commitment tracker"),
}  # fmt: skip

CONTENT_TYPES = {
    "thread": "thread", "tweet": "social_post", "post": "social_post", "caption": "caption",
    "press release": "press_release", "newsletter": "newsletter", "email": "email",
    "petition": "petition", "op-ed": "op_ed", "blog": "blog_post", "article": "article",
    "flyer": "flyer", "leaflet": "flyer", "script": "video_script",
    "talking points": "talking_points", "letter": "letter", "slogan": "slogan",
}  # fmt: skip
PLATFORMS = {
    "twitter": "twitter", "tweet": "twitter", " x ": "twitter", "instagram": "instagram",
    "facebook": "facebook", "linkedin": "linkedin", "tiktok": "tiktok", "youtube": "youtube",
    "threads": "threads", "bluesky": "bluesky", "email": "email", "newsletter": "email",
}  # fmt: skip
ROLES = ("ceo", "chief executive", "founder", "chair", "chairman", "chairwoman", "president",
         "director", "senator", "representative", "congressman", "congresswoman", "mp",
         "minister", "secretary", "commissioner", "governor", "mayor", "spokesperson",
         "head of sustainability", "cfo", "coo", "councillor", "lobbyist", "professor")  # fmt: skip
ACTIVITIES = ("protest", "demonstration", "leafleting", "leaflet", "picket", "vigil", "march",
              "open rescue", "undercover investigation", "filming", "drone", "boycott",
              "foia", "freedom of information", "petition", "civil disobedience", "sit-in",
              "banner", "trespass", "whistleblow")  # fmt: skip
JURISDICTIONS = ("Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado",
                 "Connecticut", "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois",
                 "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland",
                 "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana",
                 "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
                 "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania",
                 "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah",
                 "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming",
                 "UK", "United Kingdom", "England", "Scotland", "Wales", "Ireland", "EU",
                 "European Union", "Germany", "France", "Spain", "Italy", "Netherlands",
                 "Canada", "Australia", "New Zealand", "India", "Brazil", "Mexico", "US",
                 "United States", "Ontario", "Quebec", "British Columbia", "Queensland",
                 "New South Wales", "Victoria")  # fmt: skip
FREQUENCIES = (
    ("realtime", ("real-time", "realtime", "real time", "as soon as", "immediately",
                  "instantly", "right away", "breaking")),
    ("weekly", ("weekly", "every week", "each week", "once a week")),
    ("daily", ("daily", "every day", "each day", "every morning", "every evening")),
)  # fmt: skip

_ORG_SUFFIX = (
    r"(?:Inc|Ltd|LLC|Corp|Co|Group|Foods?|Farms?|Poultry|Dairy|Brands|Holdings|"
    r"Industries|Restaurants?|Markets?|Stores?|Meats?|Seafood|Labs?|Pharma|Company)"
)
_CAP = r"[A-Z][\w&'.-]*"
_NAME = rf"{_CAP}(?:\s+(?:&\s+)?{_CAP}){{0,3}}"
_STOP_CAPS = {"I", "I'm", "Can", "Could", "Please", "What", "Who", "How", "Help", "Write",
              "Draft", "Make", "Create", "Tell", "Find", "Look", "Give", "Research", "Dig",
              "Investigate", "Keep", "Track", "Monitor", "Send", "Is", "Are", "Do", "Does",
              "The", "A", "An", "Hi", "Hey", "Hello", "Thanks", "We", "Our", "My", "Let",
              "Need", "Want", "Any", "Compile", "Pull", "Put", "Show", "Check", "Notify",
              "Alert", "Follow", "Update", "Watch", "Senator", "CEO", "Profile", "Background",
              "Bio", "Summarize", "Summarise", "Brief", "Get", "Run", "Who's", "About"}  # fmt: skip
_STOP_CAPS |= set(JURISDICTIONS)


# The extractedInfo keys of each intent (DESIGN.md §3).
INTENT_KEYS: dict[str, tuple[str, ...]] = {
    "CREATE_CONTENT": ("contentType", "platform", "topic"),
    "INVESTIGATE_COMPANY": ("companyName", "focus"),
    "RESEARCH_INDIVIDUAL": ("personName", "companyName", "role"),
    "LEGAL_HELP": ("activity", "jurisdiction"),
    "TRACK_ISSUES": ("topics", "keywords", "frequency"),
    "GENERAL_CHAT": (),
}


def topics_in(text: str) -> list[str]:
    lowered = f" {text.lower()} "
    found = []
    for slug, words in TOPIC_WORDS.items():
        if any(re.search(rf"\b{re.escape(w)}", lowered) for w in (slug.replace("-", " "), *words)):
            found.append(slug)
    return [slug for slug in found if slug in TOPICS]


def frequency_in(text: str) -> str | None:
    lowered = text.lower()
    for value, words in FREQUENCIES:
        if any(word in lowered for word in words):
            return value
    return None


def _first(options, text: str) -> str | None:
    lowered = f" {text.lower()} "
    hits = [(lowered.find(key), value) for key, value in options.items() if key in lowered]
    return min(hits)[1] if hits else None


def company_in(text: str) -> str | None:
    suffixed = re.search(rf"\b({_NAME}\s+{_ORG_SUFFIX}\.?)(?=\W|$)", text)
    if suffixed:
        return _trim_leading_stopwords(suffixed.group(1))
    cues = r"on|into|about|at|from|of|for|investigate|research|behind"
    cue = re.search(rf"\b(?:{cues})\s+({_NAME})", text)
    if cue:
        name = _trim_leading_stopwords(cue.group(1))
        if name and name.split()[0] not in _STOP_CAPS:
            return name
    return None


def _trim_leading_stopwords(name: str) -> str:
    words = name.split()
    while words and words[0] in _STOP_CAPS:
        words.pop(0)
    return " ".join(words)


def person_in(text: str) -> tuple[str | None, str | None]:
    """(personName, role) of a message about a person's public role."""
    role = next((r for r in ROLES if re.search(rf"\b{re.escape(r)}\b", text.lower())), None)
    titled = re.search(r"\b(?:Senator|Sen\.|Rep\.|Representative|Minister|Mayor|Governor|"
                       r"Commissioner|Dr\.|Professor|MP|CEO|Director)\s+([A-Z][a-z'-]+"
                       r"(?:\s+[A-Z][a-z'-]+){1,2})", text)  # fmt: skip
    if titled:
        return titled.group(1), role
    plain = re.findall(r"\b([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){1,3})\b", text)
    for candidate in plain:
        name = _trim_leading_stopwords(candidate)
        if len(name.split()) >= 2 and not re.search(_ORG_SUFFIX + "$", name):
            return name, role
    return None, role


def extract(intent: str, text: str) -> dict[str, Any]:
    info: dict[str, Any] = {}
    lowered = text.lower()
    if intent == "CREATE_CONTENT":
        info["contentType"] = _first(CONTENT_TYPES, text)
        info["platform"] = _first(PLATFORMS, text)
        about = re.search(r"\babout\s+(.{3,80}?)(?:[.?!]|$)", text, flags=re.IGNORECASE)
        topics = topics_in(text)
        info["topic"] = about.group(1).strip() if about else (topics[0] if topics else None)
    elif intent == "INVESTIGATE_COMPANY":
        info["companyName"] = company_in(text)
        focus = re.search(r"\b(?:focus(?:ing)? on|regarding|especially|particularly|their)\s+"
                          r"(.{3,80}?)(?:[.?!,]|$)", text, flags=re.IGNORECASE)  # fmt: skip
        topics = topics_in(text)
        info["focus"] = focus.group(1).strip() if focus else (topics[0] if topics else None)
    elif intent == "RESEARCH_INDIVIDUAL":
        person, role = person_in(text)
        info["personName"] = person
        info["role"] = role
        for company in re.finditer(rf"\b(?:at|of|from)\s+({_NAME})", text):
            name = _trim_leading_stopwords(company.group(1))
            if name and (not person or name not in person):
                info["companyName"] = name
                break
    elif intent == "LEGAL_HELP":
        info["activity"] = next((a for a in ACTIVITIES if a in lowered), None)
        info["jurisdiction"] = next(
            (j for j in JURISDICTIONS if re.search(rf"\b{re.escape(j)}\b", text)), None
        )
    elif intent == "TRACK_ISSUES":
        info["topics"] = topics_in(text) or None
        quoted = re.findall(r"[\"“']([^\"”']{2,60})[\"”']", text)
        info["keywords"] = quoted or ([c] if (c := company_in(text)) else None)
        info["frequency"] = frequency_in(text)
    return {key: value for key, value in info.items() if value}
