"""The held-back pins are stated, with their reason, in one place (the README's "Pinned
versions"), and that place agrees with pyproject.toml, constraints.txt and what is installed."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index("### Pinned versions") :].split("\n## ", 1)[0]


def _constraint(name: str) -> str:
    text = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    return re.search(rf"^{name}==(\S+)$", text, flags=re.M | re.I).group(1)


def test_the_readme_states_each_held_pin_and_why_in_one_place():
    section = _section()
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    deps = declared["project"]["dependencies"]
    for name in ("fastapi", "prefect"):
        pinned = _constraint(name)
        assert f"{name}=={pinned}" in deps and f"`{name}=={pinned}`" in section, name
        assert version(name) == pinned, name  # what runs is what the README says
    assert "0.154.0" in section and "developers' guide" in section  # the version not taken
    assert '"limit": null' in section and "422" in section  # the reason
    assert "tests/integration/flows/test_prefect_cli.py" in section  # what guards it
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("fastapi==") == 1 and readme.count('"limit": null') == 1  # one place
