"""docs/api.md names every value the content request's fields take, as the request model does:
a campaigner writing a request from the guide alone should not have to guess a tone."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from functions.content import models

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("contentType", models.ContentType),
        ("platform", models.Platform),
        ("tone", models.Tone),
        ("length", models.Length),
    ],
)
def test_the_api_guide_lists_every_value_of_a_content_field(field, values):
    row = next(
        line
        for line in API.read_text().splitlines()
        if "`POST /v1/content/generate`" in line and line.startswith("|")
    )
    listed = row.split(f"`{field}` one of ", 1)[1].split(";", 1)[0]
    assert set(typing.get_args(values)) <= {
        v for v in listed.replace(",", " ").replace("`", " ").split()
    }
