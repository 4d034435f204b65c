"""The example config is what it says it is (issue 39, item 6): every setting of every section,
each with a comment, and each value it sets the default."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pydantic import AliasChoices, BaseModel

from dispute_evidence.settings import Settings

EXAMPLE = Path(__file__).parents[2] / "config" / "dispute-evidence.example.toml"
NOT_IN_THE_FILE = {("api", "token")}  # a secret: the file names its variable instead


def _sections() -> dict[str, type[BaseModel]]:
    return {
        name: field.annotation
        for name, field in Settings.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
    }


def _block(text: str, section: str) -> str:
    """`[section]`'s lines up to the next section header (commented lines included)."""
    head = re.search(rf"^\[{section}\]", text, flags=re.M)
    assert head, section
    rest = text[head.end() :]
    end = re.search(r"^\[(?!\[)[a-z_.]+\]", rest, flags=re.M)
    return rest[: end.start()] if end else rest


def _names(model: type[BaseModel], field: str) -> list[str]:
    """The names a key may have in the file (its own, and a TOML alias such as concurrency)."""
    alias = model.model_fields[field].validation_alias
    others = alias.choices if isinstance(alias, AliasChoices) else []
    return [field, *(a for a in others if isinstance(a, str) and a.islower())]


def test_every_setting_of_every_section_is_in_the_example_with_a_comment():
    text = EXAMPLE.read_text(encoding="utf-8")
    undocumented = []
    for section, model in _sections().items():
        block = _block(text, section)
        for field in model.model_fields:
            if (section, field) in NOT_IN_THE_FILE:
                continue
            shown = any(
                re.search(rf"^#?\s*{name} = .*#", block, flags=re.M)  # a comment on its line
                or re.search(rf"^# .*\n#?\s*{name} = ", block, flags=re.M)  # or just above it
                or re.search(rf"^# \[\[?{section}\.{name}[\].]", block, flags=re.M)  # a table
                for name in _names(model, field)
            )
            if not shown:
                undocumented.append(f"{section}.{field}")
    assert undocumented == []
    assert "DISPUTE_API_TOKEN" in _block(text, "api")


def test_every_value_the_example_sets_is_the_default():
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    for section, model in _sections().items():
        defaults = model().model_dump()
        for key, value in data.get(section, {}).items():
            field = next(f for f in model.model_fields if key in _names(model, f))
            assert value == defaults[field], f"{section}.{key}"
