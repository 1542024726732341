"""Offline replies: route by intent, answer usefully and honestly, point to the API operation
that does the job when it exists, and say plainly what this engine cannot do."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

DISCLAIMER = "This is general information, not legal advice."

# intent -> (operation path, what it does)
OPERATIONS = {
    "CREATE_CONTENT": ("POST /v1/content/generate", "generates campaign content"),
    "INVESTIGATE_COMPANY": ("POST /v1/osint/company-profile", "researches a company"),
    "RESEARCH_INDIVIDUAL": (
        "POST /v1/osint/personal-profile",
        "profiles a person's public professional role",
    ),
    "LEGAL_HELP": ("POST /v1/legal/guidance", "emails a structured legal-information guide"),
    "TRACK_ISSUES": ("POST /v1/tracking/subscriptions", "emails periodic research digests"),
}


def reply(
    intent: str, info: dict[str, Any], *, memory: dict[str, Any] | None, available: Collection[str]
) -> str:
    """The assistant's answer. ``available`` lists the "METHOD /path" operations this
    deployment serves, so the answer never points at one that does not exist."""
    memory = memory or {}
    parts = [_opening(intent, info, memory)]
    operation = OPERATIONS.get(intent)
    if operation and operation[0] in available:
        parts.append(f"Use {operation[0]}, which {operation[1]}{_example(intent, info)}.")
    elif operation:
        parts.append(
            "This deployment cannot do that for you yet; the operation that will "
            f"({operation[0]}) is not available here."
        )
    if intent == "LEGAL_HELP":
        parts.append(
            f"{DISCLAIMER} Laws differ by place and change; for a decision, "
            "talk to a lawyer licensed where you act."
        )
    if intent == "RESEARCH_INDIVIDUAL":
        parts.append(
            "Research on people covers only their public, professional role "
            "(position, public statements, votes, published work), never private "
            "life or contact details."
        )
    return " ".join(parts)


def _opening(intent: str, info: dict[str, Any], memory: dict[str, Any]) -> str:
    who = f" for {memory['organization']}" if memory.get("organization") else ""
    if intent == "CREATE_CONTENT":
        kind = (info.get("contentType") or "content").replace("_", " ")
        where = f" for {info['platform'].title()}" if info.get("platform") else ""
        about = f" about {info['topic']}" if info.get("topic") else ""
        return f"You want a {kind}{where}{about}{who}."
    if intent == "INVESTIGATE_COMPANY":
        company = info.get("companyName", "the company")
        focus = f", focusing on {info['focus']}" if info.get("focus") else ""
        return f"You want research on {company}{focus}."
    if intent == "RESEARCH_INDIVIDUAL":
        person = info.get("personName", "this person")
        return f"You want a profile of {person}'s public role."
    if intent == "LEGAL_HELP":
        activity = info.get("activity", "your activity")
        where = f" in {info['jurisdiction']}" if info.get("jurisdiction") else ""
        return f"You have a legal question about {activity}{where}."
    if intent == "TRACK_ISSUES":
        topics = ", ".join(info.get("topics") or info.get("keywords") or ["these issues"])
        how_often = info.get("frequency", "daily")
        return f"You want {how_often} updates on {topics}."
    areas = memory.get("causeAreas") or []
    interest = f" I remember your work on {', '.join(areas[:3])}." if areas else ""
    return (
        "I'm the advocacy research assistant: I can help draft campaign content, research "
        "companies and public officials' public roles, outline legal questions, and set up "
        f"tracking digests.{interest} What would you like to do?"
    )


def _example(intent: str, info: dict[str, Any]) -> str:
    if intent == "TRACK_ISSUES":
        fields = []
        if info.get("topics"):
            fields.append(f'"topics": {info["topics"]}'.replace("'", '"'))
        if info.get("keywords"):
            fields.append(f'"custom_keywords": {info["keywords"]}'.replace("'", '"'))
        fields.append(f'"frequency": "{info.get("frequency", "daily")}"')
        return f" (for example {{{', '.join(fields)}}})"
    if intent == "INVESTIGATE_COMPANY" and info.get("companyName"):
        return f' (with {{"companyName": "{info["companyName"]}"}})'
    if intent == "CREATE_CONTENT" and info.get("topic"):
        return f' (with {{"topic": "{info["topic"]}"}})'
    return ""
