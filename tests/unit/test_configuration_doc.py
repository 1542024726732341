"""docs/configuration.md is generated from common.config.Settings (issue 23): a setting added,
removed or described differently without the page fails here."""

from __future__ import annotations

from common.config import SHOWN_DEFAULTS, Settings
from devtools import configdoc


def test_the_configuration_page_is_generated_from_the_settings():
    assert configdoc.main(["--check"]) == 0, "run: .venv/bin/python -m devtools.configdoc"


def test_every_setting_is_described_and_every_shown_default_is_a_setting():
    undescribed = [n for n, f in Settings.model_fields.items() if not (f.description or "").strip()]
    assert undescribed == []
    assert set(SHOWN_DEFAULTS) <= set(Settings.model_fields)
    page = configdoc.page()
    for name in Settings.model_fields:
        assert f"| `{name.upper()}` |" in page
