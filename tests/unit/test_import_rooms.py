"""No import cycle between the modules of ``common/`` (issue 45, decision 0069).

Why this test exists beside the import-linter contracts of ``pyproject.toml``: the
``common-rooms`` layers contract orders the rooms, and ``common-acyclic`` (``acyclic_siblings``)
refuses cycles between sibling modules and packages, but neither sees a cycle that runs through
a package's own ``__init__``. ``common/http/__init__.py`` re-exports the pipeline, and
``idempotency`` and ``webhooks`` once imported ``HeaderMap`` from ``common.http`` (under
``TYPE_CHECKING``), closing ``http -> pipeline -> settle -> idempotency -> http``: every contract
was kept. This test reads the same graph (grimp, which import-linter is built on; imports inside
functions and under ``TYPE_CHECKING`` count) and refuses any module-level cycle.
"""

from __future__ import annotations

import grimp  # installed with import-linter (requirements-test.txt)


def test_no_module_cycle_in_common():
    graph = grimp.build_graph("common", cache_dir=None)
    closing = sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.chain_exists(importer=imported, imported=importer)
    )
    assert not closing, f"imports on a cycle (importer, imported): {closing}"
