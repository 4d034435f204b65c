"""The example config documents the settings it shows (issue 39, item 4)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from dispute_evidence.settings import IngestSection

EXAMPLE = Path(__file__).parents[2] / "config" / "dispute-evidence.example.toml"


def _block(text: str, section: str) -> str:
    """The lines of `[section]` up to the next section header (commented lines included)."""
    start = text.index(f"[{section}]")
    rest = text[start + len(section) + 2 :]
    end = re.search(r"^\[(?!\[)[a-z_.]+\]", rest, flags=re.M)
    return rest[: end.start()] if end else rest


def test_every_ingest_setting_is_in_the_example_with_a_comment():
    text = EXAMPLE.read_text(encoding="utf-8")
    tomllib.loads(text)  # still valid TOML
    block = _block(text, "ingest")
    assert "# [[ingest.mapping]]" in block  # `mapping`: shown as an example table
    for name in set(IngestSection.model_fields) - {"mapping"}:
        assert re.search(rf"^#?\s*{name} = .*#", block, flags=re.M), name


def test_the_example_timezone_is_the_default():
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert data["ingest"]["timezone"] == IngestSection().timezone


def test_the_example_mapping_kind_comment_names_every_kind():
    """Issue 45 item 4: the comment omitted `products` (and every kind added since)."""
    from dispute_evidence.ingest.layouts import FIELDS

    text = EXAMPLE.read_text(encoding="utf-8")
    start = text.index('# kind = "orders"')
    comment = text[start : text.index("# columns =", start)]
    named = set(re.findall(r"[a-z_]+", comment.split("#", 2)[2]))
    assert set(FIELDS) <= named, sorted(set(FIELDS) - named)
