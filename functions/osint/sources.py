"""What an OSINT profile reads: the search tables (public figures, organizations, campaigns,
actions, content), the knowledge corpus, and the news -- the same news search
(``NEWS_SEARCH_URL``) and topic feed catalog as research, fetched by ``common.adapters.feeds`` with
its deadlines and size bounds. No Flask here.

Each lookup returns a ``Consulted`` source with its ``Passage``s: a record, a passage of the
corpus or a news item, with the text that must identify the subject and, for curated records,
the claims the service writes from them. Whether a passage is used, and which of its claims
are kept, is the service's decision (guardrails), not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from common.adapters.feeds import FeedItem, fetch_all
from common.config import get_settings
from common.language import names
from common.language.sentences import split
from functions.osint import report
from functions.osint.guardrails import Subject

TABLE_LIMIT = 25  # records looked at per table
KNOWLEDGE_LIMIT = 8
MAX_TOPICS = 3  # topic feeds read (from the company's campaigns)
COMPANY_TOPIC = "corporate-campaigns"


@dataclass
class Passage:
    section: str  # report section key
    title: str
    url: str | None
    published: str | None
    text: str  # what must identify the subject (title and body)
    body: str = ""  # where claims come from (with the title) when ``claims`` is None
    claims: tuple[str, ...] | None = None  # written from a curated record
    verified: bool = False  # the lookup already tied the record to the subject
    namesake: bool = False  # the lookup found it is someone else of the same name: left out


@dataclass
class Consulted:
    label: str
    kind: str  # "table", "knowledge" or "news"
    ok: bool = True
    passages: list[Passage] = field(default_factory=list)


def _text_search(table: str, query: str, limit: int = TABLE_LIMIT) -> list[dict[str, Any]]:
    """Records of a table that share words with ``query`` (text search: no embedding)."""
    from functions.search.service import search
    from functions.search.tables import TABLES

    if not query.strip():
        return []
    return [hit["record"] for hit in search([TABLES[table]], query, "text", limit)]


def _day(value: Any) -> str | None:
    return str(value)[:10] if value else None


# --- a person ----------------------------------------------------------------------------------


@dataclass
class PersonContext:
    consulted: Consulted
    ambiguous: bool = False
    organization: str | None = None  # from the person's public-figures record
    role: str | None = None
    summary: str | None = None


def public_figure(subject: Subject, company_given: bool) -> PersonContext:
    """The person's public-figures record, which gives their employer and role.

    With companyName, only a record at that company is theirs (others are namesakes, left
    out). Without it, a single record of that name is theirs; several are ambiguous and all
    left out."""
    records = _text_search("public_figures", subject.display, 10)
    wanted = names.short_key(subject.display)
    same_name = [r for r in records if names.short_key(str(r.get("name") or "")) == wanted]
    if company_given:
        mine = [
            r for r in same_name if subject.in_context(names.fold(str(r.get("organization") or "")))
        ]
    else:
        mine = same_name if len(same_name) == 1 else []
    consulted = Consulted("public figures", "table")
    for record in same_name:
        passage = _figure_passage(record, verified=record in mine, own=True)
        passage.namesake = record not in mine
        consulted.passages.append(passage)
    context = PersonContext(consulted, ambiguous=not company_given and len(same_name) > 1)
    if mine:
        context.organization = mine[0].get("organization")
        context.role = mine[0].get("role")
        context.summary = mine[0].get("summary")
    return context


def _figure_passage(record: dict[str, Any], *, verified: bool, own: bool) -> Passage:
    name, role, org = record.get("name"), record.get("role"), record.get("organization")
    line = f"{name}: {', '.join(str(p) for p in (role, org) if p)}." if role or org else None
    claims = [line] if line else []
    if own:  # the person's own profile: the record's summary too; a company's: the role only
        claims += split(str(record.get("summary") or ""))
    text = " ".join(str(record.get(k) or "") for k in ("name", "role", "organization", "summary"))
    return Passage(
        "role" if own else "people",
        str(name or ""),
        record.get("url"),
        None,
        text,
        claims=tuple(claims),
        verified=verified,
    )


def person_work(subject: Subject, organization: str | None = None) -> list[Consulted]:
    """Campaigns, actions and publications that name the person (used when they also show
    evidence it is them), and campaigns their record ties them to without naming them: aimed
    at their organisation and sharing facts with their record ("Sponsored the 2023 mink
    farming phase-out act" and the campaign to phase out mink farming)."""
    from functions.osint.guardrails import FACT_PAIRS, fact_pairs

    found = []
    for table, label, fields in (
        ("campaigns", "campaigns", ("title", "description", "target", "organization")),
        ("actions", "actions", ("title", "description")),
        ("content", "publications", ("title", "body")),
    ):
        consulted = Consulted(label, "table")
        for record in _text_search(table, subject.display, 10):
            title = str(record.get("title") or "")
            body = str(record.get("description") or record.get("body") or "")
            text = " ".join(str(record.get(f) or "") for f in fields)
            if subject.names(text):
                date = record.get("start_date") or record.get("date") or record.get("published_at")
                consulted.passages.append(
                    Passage("work", title, record.get("url"), _day(date), text, body)
                )
        if table == "campaigns" and organization and subject.facts:
            target = Subject("company", companies=(names.company_core(organization),))
            for record in _text_search(table, names.company_core(organization)):
                description = str(record.get("description") or "")
                shared = fact_pairs(f"{record.get('title')}. {description}") & subject.facts
                if _mentions(target, record, ("target",)) and len(shared) >= FACT_PAIRS:
                    consulted.passages.append(_campaign_passage(record, "work"))
        found.append(consulted)
    return found


# --- a company ---------------------------------------------------------------------------------


def company_campaigns(subject: Subject) -> tuple[Consulted, list[str], list[str]]:
    """Campaigns targeting the company (its name in the target, or in the title or description):
    their claims, and their topics and ids."""
    consulted = Consulted("campaigns", "table")
    topics: list[str] = []
    ids: list[str] = []
    for record in _text_search("campaigns", _query(subject)):
        if not _mentions(subject, record, ("target", "title", "description")):
            continue
        ids.append(str(record["id"]))
        topics += [t for t in record.get("topics") or [] if t not in topics]
        status = record.get("status")
        consulted.passages.append(
            _campaign_passage(record, "commitments" if status == "won" else "campaigns")
        )
    return consulted, topics, ids


def _campaign_passage(record: dict[str, Any], section: str) -> Passage:
    """A campaign record as a passage: a line of its title, organisation, status and start,
    and the sentences of its description."""
    organization = record.get("organization")
    line = f"Campaign \u201c{record.get('title')}\u201d"
    if organization:
        line += f" by {organization}"
    line += f" ({report.status_text(record.get('status'))}"
    if record.get("start_date"):
        line += f", started {_day(record['start_date'])}"
    line += ")."
    description = str(record.get("description") or "")
    return Passage(
        section,
        str(record.get("title") or ""),
        record.get("url"),
        _day(record.get("start_date")),
        f"{record.get('title')} {description}",
        claims=(line, *split(description)),
        verified=True,
    )


def organisation_records(company: str) -> list[dict[str, Any]]:
    """The organizations table's records of this company (its name holds the other's)."""
    subject = Subject("company", companies=(names.company_core(company),))
    return [
        record
        for record in _text_search("organizations", _query(subject), 10)
        if _same_company(subject, str(record.get("name") or ""))
    ]


def public_figure_named(name: str) -> bool:
    """The public-figures table holds a person of this name (first and last word)."""
    words = names.company_core(name).split()
    if len(words) < 2:
        return False
    wanted = names.short_key(" ".join(words))
    return any(
        names.short_key(str(r.get("name") or "")) == wanted
        for r in _text_search("public_figures", " ".join(words), 10)
    )


def company_tables(
    subject: Subject, campaign_ids: list[str], records: list[dict[str, Any]]
) -> list[Consulted]:
    """The company's record (``records``: ``organisation_records``, read once per profile),
    the actions of its campaigns (and those naming it), its people in public roles, and
    publications about it."""
    organizations = Consulted("organizations", "table")
    for record in records:
        description = str(record.get("description") or "")
        organizations.passages.append(
            Passage(
                "overview",
                str(record.get("name") or ""),
                record.get("website"),
                None,
                f"{record.get('name')} {description}",
                claims=(f"{record.get('name')}: {description}",) if description else (),
                verified=True,
            )
        )
    actions = Consulted("actions", "table")
    seen: set[str] = set()
    for record in [*_linked_actions(campaign_ids), *_text_search("actions", _query(subject))]:
        linked = record.get("campaign_id") in campaign_ids
        if record["id"] in seen or not (
            linked or _mentions(subject, record, ("title", "description"))
        ):
            continue
        seen.add(record["id"])
        kind = str(record.get("action_type") or "action")
        when = f", {_day(record['date'])}" if record.get("date") else ""
        line = f"{record.get('title')} ({kind}{when})"
        description = str(record.get("description") or "")
        actions.passages.append(
            Passage(
                "campaigns",
                str(record.get("title") or ""),
                record.get("url"),
                _day(record.get("date")),
                f"{record.get('title')} {description}",
                claims=(f"{line}. {description}".strip(),),
                verified=True,
            )
        )
    people = Consulted("public figures", "table")
    for record in _text_search("public_figures", _query(subject)):
        if _mentions(subject, record, ("organization",)):
            people.passages.append(_figure_passage(record, verified=True, own=False))
    publications = Consulted("publications", "table")
    for record in _text_search("content", _query(subject)):
        body = str(record.get("body") or "")
        text = f"{record.get('title')} {body}"
        if not _mentions(subject, record, ("title", "body")):
            continue
        publications.passages.append(
            Passage(
                "news",
                str(record.get("title") or ""),
                record.get("url"),
                _day(record.get("published_at")),
                text,
                body,
            )
        )
    return [organizations, actions, people, publications]


def _query(subject: Subject) -> str:
    """What the tables are searched for: the company's name (nothing without one)."""
    return subject.companies[0] if subject.companies else ""


def _same_company(subject: Subject, name: str) -> bool:
    """An organization's name is the company's: one of the two names holds the other."""
    core = names.company_core(name)
    return bool(core) and any(
        names.contains(core, c) or names.contains(c, core) for c in subject.companies if c
    )


def _mentions(subject: Subject, record: dict[str, Any], fields: tuple[str, ...]) -> bool:
    return any(subject.in_context(names.fold(str(record.get(f) or ""))) for f in fields)


def _linked_actions(campaign_ids: list[str]) -> list[dict[str, Any]]:
    """The actions of the given campaigns (a Firestore ``in`` query, 30 ids at most)."""
    if not campaign_ids:
        return []
    from common.adapters.firestore import field_filter, get_db
    from common.search.retrieval import public
    from functions.search.tables import TABLES

    table = TABLES["actions"]
    query = (
        get_db()
        .collection(table.collection)
        .where(filter=field_filter("campaign_id", "in", campaign_ids[:30]))
    )
    records = []
    for doc in query.limit(TABLE_LIMIT).stream():
        record = public(doc.to_dict() or {})
        records.append({k: record.get(k) for k in table.fields if k in record} | {"id": doc.id})
    return records


# --- knowledge and news ------------------------------------------------------------------------


def knowledge(query: str) -> Consulted:
    """Passages of the knowledge corpus close to the query (each used only if it names the
    subject). A corpus that cannot be searched (another embedding model, the embedder down)
    is a failed source, not a failed profile."""
    from common.errors import AppError
    from functions.knowledge.service import search

    consulted = Consulted("knowledge corpus", "knowledge")
    try:
        hits = search(query, KNOWLEDGE_LIMIT, floor=0.0)  # used only if they name the subject
    except AppError:
        consulted.ok = False
        return consulted
    for hit in hits:
        passage = str(hit.get("passage") or "")
        title = str(hit.get("title") or "")
        section = str(hit.get("section") or "")
        shown = title if not section or section == title else f"{title}: {section}"
        consulted.passages.append(
            Passage("background", shown, hit.get("url"), None, passage, passage)
        )
    return consulted


@dataclass(frozen=True)
class Feed:
    label: str
    url: str


def news_feeds(query: str, topics: list[str]) -> list[Feed]:
    """The news search for ``query`` (NEWS_SEARCH_URL) and the catalog feeds of ``topics``."""
    from functions.research.gather import catalog

    template = get_settings().news_search_url
    feeds = [Feed("news search", template.replace("{query}", quote_plus(query)))]
    known = catalog()
    for topic in topics:
        for url in known[topic].feeds if topic in known else ():
            if url not in {f.url for f in feeds}:
                feeds.append(Feed(f"topic feed: {topic}", url))
    return feeds


def fetch_news(feeds: list[Feed]) -> list[Consulted]:
    """Fetch every feed (common.adapters.feeds: deadlines, size bounds, conditional GET); one
    ``Consulted`` per feed, each item a passage."""
    results = fetch_all([feed.url for feed in feeds])
    consulted = []
    for feed, result in zip(feeds, results, strict=True):
        source = Consulted(feed.label, "news", ok=result.error is None)
        source.passages = [_item_passage(item) for item in result.items]
        consulted.append(source)
    return consulted


def _item_passage(item: FeedItem) -> Passage:
    text = f"{item.title} {item.summary}"
    published = item.published.isoformat() if item.published else None
    return Passage("news", item.title, item.link, published, text, item.summary)


def news_query(subject: Subject, company: str | None) -> str:
    """The news search: the quoted name, with the quoted company for a person."""
    if subject.kind == "person":
        query = f'"{subject.display}"'
        return f'{query} "{company}"' if company else query
    return f'"{company or subject.display}"'


def company_topics(topics: list[str], *, company_profile: bool) -> list[str]:
    """The topic feeds worth reading: the company's campaigns' topics (catalog ids only), at
    most MAX_TOPICS, and corporate campaigns for a company profile."""
    from functions.research.gather import catalog

    known = catalog()
    chosen = [t for t in topics if t in known][:MAX_TOPICS]
    if company_profile and COMPANY_TOPIC in known and COMPANY_TOPIC not in chosen:
        chosen.append(COMPANY_TOPIC)
    return chosen
