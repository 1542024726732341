"""Least privilege (decision 0033): Terraform gives each function the secrets and roles its code
uses, and no others. The code side is read from the import graph of each entry point's route
tables (``registry.GROUPS``), lazy imports inside functions included."""

from __future__ import annotations

import ast
import re
from functools import cache

import pytest

from common.config import SECRET_FIELDS, Settings
from registry import GROUPS, JOBS
from tests.conftest import ROOT

# The module that reads each secret (the only place its setting is used).
READERS = {
    "SENDGRID_API_KEY": "common.adapters.email",
    "PAUSE_LINK_SECRET": "functions.tracking.pause_token",
    "IDP_WEBHOOK_SECRET": "common.http.webhooks",
    "LLM_API_KEY": "common.adapters.llm",
}
# Edges that do not carry the secret: the pipeline imports common.http.webhooks only for routes with
# webhook auth (checked separately below), and embeddings take only google_token_source from
# common.adapters.llm (an access token, not LLM_API_KEY).
NOT_CARRYING = {
    ("common.http.pipeline", "common.http.webhooks"),
    ("common.search.embeddings", "common.adapters.llm"),
}

# Entry point of main.py -> its group in registry.GROUPS.
GROUP_OF = {"health": "system", "api": None}

# What Terraform grants (terraform/iam.tf), what the code reaches at module level, and why the
# two differ where they do: the public tracking, legal and tracking_dispatch functions reach the
# email and LLM modules only through the task runners their modules define, which Cloud Tasks
# runs on task_worker (TASKS_BACKEND=cloudtasks in production).
EXPECTED = {
    "health": set(),
    "chat": {"LLM_API_KEY"},
    "tracking": {"PAUSE_LINK_SECRET"},  # the pause, confirm and unsubscribe pages check links
    "search": set(),
    "knowledge": set(),
    "content": {"LLM_API_KEY"},
    "legal": set(),
    "research": {"LLM_API_KEY"},
    "osint": set(),
    "webhooks": {"IDP_WEBHOOK_SECRET"},
    "portal": set(),
    "usage": set(),
    "tracking_dispatch": set(),
    "task_worker": {"SENDGRID_API_KEY", "PAUSE_LINK_SECRET", "LLM_API_KEY"},
    # runs every tool's route (content, chat and research call the LLM); it reaches the link
    # checks of the tracking pages through their route table, but no tool serves a page
    "mcp": {"LLM_API_KEY"},
}


def terraform_access() -> dict[str, dict[str, set[str]]]:
    iam = (ROOT / "terraform" / "iam.tf").read_text()
    block = re.search(r"function_access = \{\n(.*?)\n  \}\n", iam, re.DOTALL)
    assert block is not None
    access = {}
    for line in block.group(1).splitlines():
        match = re.match(
            r"\s+(\w+)\s+= \{ sa = \"[a-z]+\", secrets = (.*), roles = \[(.*)\] \}$", line
        )
        assert match, line
        name, secrets, roles = match.groups()
        access[name] = {
            "secrets": set(re.findall(r'"([A-Z_]+)"', secrets)),
            "all_secrets": {"all"} if secrets == "keys(local.secrets)" else set(),
            "roles": set(re.findall(r"local\.(\w+)", roles)),
        }
    return access


def _path(module: str) -> str | None:
    for candidate in (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"):
        if (ROOT / candidate).exists():
            return candidate
    return None


@cache
def _imports(module: str) -> frozenset[str]:
    path = _path(module)
    if path is None:
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(m for m in found if _path(m) and (module, m) not in NOT_CARRYING)


@cache
def tool_route_modules() -> list[str]:
    from importlib import import_module

    return [
        module
        for tables in GROUPS.values()
        for module, name in tables
        if any(route.tools for route in getattr(import_module(module), name))
    ]


def reaches(group: str) -> set[str]:
    seen: set[str] = set()
    todo = [module for module, _ in GROUPS[group]]
    if group == "task_worker":  # the worker runs the jobs the registry hands it (Call.jobs)
        todo += [module for module, _ in JOBS]
    if group == "mcp":  # the MCP server runs the routes that declare tools (Call.api_routes)
        todo += tool_route_modules()
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_imports(module))
    return seen


def test_every_module_named_in_this_file_exists():
    """The checks here compare module names; one left at an old path by a move (issue 45 moved
    most of common/) would let a check pass without checking anything."""
    named = {
        *READERS.values(),
        *(module for edge in NOT_CARRYING for module in edge),
        "common.http.webhooks",
        "common.search.embeddings",
        "common.adapters.tasks",
        "common.adapters.firestore",
    }
    assert {module for module in named if _path(module) is None} == set()


def test_terraform_lists_every_function_and_only_known_secrets():
    access = terraform_access()
    assert set(access) == set(EXPECTED) | {"api"}
    assert access["api"]["all_secrets"] == {"all"}  # the monolith serves every route
    for name, granted in access.items():
        assert granted["secrets"] <= set(READERS), name


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_each_function_mounts_exactly_the_secrets_its_code_reads(function):
    granted = terraform_access()[function]["secrets"]
    assert granted == EXPECTED[function]
    # A secret is never granted to a function whose code cannot reach the module reading it.
    group = GROUP_OF.get(function, function)
    assert group is not None
    reachable = reaches(group)
    if group == "webhooks":  # the pipeline verifies its Auth.WEBHOOK routes (test below)
        reachable.add("common.http.webhooks")
    for secret in granted:
        assert READERS[secret] in reachable, (function, secret)


def test_the_public_chat_portal_and_webhook_functions_cannot_read_email_or_link_secrets():
    access = terraform_access()
    for function in ("chat", "portal", "webhooks"):
        assert not access[function]["secrets"] & {"SENDGRID_API_KEY", "PAUSE_LINK_SECRET"}
    # and their code indeed never reaches the modules that read them
    for group in ("chat", "portal", "webhooks"):
        assert not reaches(group) & {READERS["SENDGRID_API_KEY"], READERS["PAUSE_LINK_SECRET"]}


def test_only_the_webhooks_function_verifies_identity_provider_signatures():
    from common.http import Auth
    from registry import routes_of

    signed = {g for g in GROUPS if any(r.auth is Auth.WEBHOOK for r in routes_of(g))}
    assert signed == {"webhooks"}
    holders = {f for f, a in terraform_access().items() if "IDP_WEBHOOK_SECRET" in a["secrets"]}
    assert holders == {"webhooks"}


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_vertex_role_where_embeddings_or_the_llm_run(function):
    """roles/aiplatform.user for every function that embeds text or calls the LLM (with
    llm_auth = "google" it authenticates to Vertex AI as the function's own account)."""
    roles = terraform_access()[function]["roles"]
    group = GROUP_OF.get(function, function)
    assert group is not None
    uses_vertex = (
        bool(reaches(group) & {"common.search.embeddings"}) or "LLM_API_KEY" in EXPECTED[function]
    )
    if function in ("tracking", "tracking_dispatch"):
        uses_vertex = False  # only through task runners, which run on task_worker (above)
    # legal embeds at request time: the check of what a request names searches the knowledge
    # base's legal notes (functions.legal.recognition, decision 0068)
    assert ("vertex" in roles) == uses_vertex, roles
    if "LLM_API_KEY" in EXPECTED[function]:
        assert "vertex" in roles


def _enqueues(group: str) -> bool:
    """Some module the group reaches imports ``enqueue`` or ``enqueue_many`` (not just Task)."""
    for module in reaches(group):
        path = _path(module)
        assert path is not None
        for node in ast.walk(ast.parse((ROOT / path).read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "common.adapters.tasks"
                and {a.name for a in node.names} & {"enqueue", "enqueue_many"}
            ):
                return True
    return False


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_only_functions_that_enqueue_may_create_tasks(function):
    """roles/cloudtasks.enqueuer (and actAs on the invoker account, iam.tf) only where tasks
    are created; every function but health reads Firestore."""
    roles = terraform_access()[function]["roles"]
    assert ("enqueuer" in roles) == _enqueues(GROUP_OF.get(function) or function), roles
    assert ("datastore" in roles) == (function != "health")


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_every_function_whose_code_reads_firestore_may_read_it(function):
    """A function whose code reaches ``common.adapters.firestore`` holds a Firestore grant on the
    main database: roles/datastore.user, or for health the probe (get one document by its name,
    decision 0063). /health read Firestore without one: in production it would answer 502."""
    roles = terraform_access()[function]["roles"]
    if "common.adapters.firestore" in reaches(GROUP_OF.get(function) or function):
        assert roles & {"datastore", "probe"}, roles
    assert ("probe" in roles) == (function == "health")  # the probe is all health holds
    if function == "health":
        assert roles == {"probe"}


def test_production_function_without_a_secret_starts_with_it_empty_not_the_local_default(
    monkeypatch,
):
    from tests.unit.test_config import PROD

    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    public = {k: v for k, v in PROD.items() if k not in SECRET_FIELDS}
    settings = Settings(**public)
    for name in SECRET_FIELDS:
        assert getattr(settings, name) == ""


def test_an_unmounted_secret_is_refused_where_it_would_be_used(monkeypatch):
    from common.config import get_settings
    from common.http import webhooks
    from functions.tracking import pause_token
    from tests.unit.test_config import PROD

    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    for name, value in PROD.items():
        if name not in SECRET_FIELDS:
            monkeypatch.setenv(name.upper(), str(value))
    for name in SECRET_FIELDS:
        monkeypatch.delenv(name.upper(), raising=False)
    get_settings.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="PAUSE_LINK_SECRET is not mounted"):
            pause_token._signature("body")
        headers = {"webhook-id": "m", "webhook-timestamp": "1", "webhook-signature": "v1,x"}
        with pytest.raises(RuntimeError, match="IDP_WEBHOOK_SECRET is not mounted"):
            webhooks.verify(b"{}", headers)
    finally:
        get_settings.cache_clear()


def _databases_used(module: str) -> set[str]:
    """The restricted databases whose collections ``module`` names (decision 0051)."""
    from common.adapters import firestore

    constants = {  # SUPPRESSIONS -> recipients, OSINT_AUDIT -> osint...
        name: firestore.DATABASE_OF[value]
        for name, value in vars(firestore).items()
        if name.isupper() and isinstance(value, str) and value in firestore.DATABASE_OF
    }
    path = _path(module)
    assert path is not None
    named = {
        alias.name
        for node in ast.walk(ast.parse((ROOT / path).read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == "common.adapters.firestore"
        for alias in node.names
    }
    return {constants[name] for name in named & set(constants)}


# Functions whose code reaches a restricted database only through the task runners their
# modules define, which run on task_worker (as for the secrets above): the legal guide's
# email checks the suppression list; the dispatcher imports the tracking run it enqueues.
THROUGH_TASKS_ONLY = {"legal", "tracking_dispatch"}


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_each_function_reaches_exactly_the_restricted_databases_its_code_uses(function):
    """The suppression list and consents (recipients) and the OSINT opt-out list and audit
    log (osint) are granted per database, IAM conditions in terraform/iam.tf; the
    tftest checks what Terraform makes of the table."""
    granted = terraform_access()[function]["roles"] & {"recipients", "osint"}
    group = GROUP_OF.get(function, function)
    assert group is not None
    used = set().union(*(_databases_used(m) for m in reaches(group)))
    if function in THROUGH_TASKS_ONLY:
        assert granted == set(), function
        # the digest run reads the opt-out list (osint, decision 0058) on task_worker
        assert used <= {"recipients", "osint"}, used
    else:
        assert granted == used, (function, granted, used)


def test_the_public_portal_usage_and_search_functions_reach_no_restricted_database():
    access = terraform_access()
    for function in ("portal", "usage", "search", "knowledge"):
        assert not access[function]["roles"] & {"recipients", "osint"}, function
    # the assistant's company and person answers (0051); drafts and research leave out the
    # people on the opt-out list, which lives in the osint database (0058)
    for function in ("osint", "chat", "content", "research"):
        assert access[function]["roles"] & {"recipients", "osint"} == {"osint"}, function
