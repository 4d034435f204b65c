"""The process environment is read in one place (settings/environment.py, and the Settings
model's own sources): no other module reads os.environ or os.getenv, except the three that
touch it for a reason of their own, each in the one way named here (issue 47)."""

from __future__ import annotations

import ast
from pathlib import Path

from dispute_evidence.settings.environment import environment, variable
from tests.support.source import tree_of, walked

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"environ", "getenv", "environb"}
# module -> why it may touch os.environ (and nothing else may)
ALLOWED = {
    "src/dispute_evidence/api/client.py": "the client reads its own DISPUTE_API_* names, as httpx "
    "reads its proxies: api/ never imports the pipeline's settings",
    "src/dispute_evidence/prefect_env.py": "sets Prefect's variables for this process and the "
    "runs it starts (its one read goes through settings.environment)",
    "src/dispute_evidence/documents/_read_worker.py": "hands the environment on to its child",
}


def environment_uses(path: Path) -> list[int]:
    """Lines of `path` that name os.environ or os.getenv (or import them by name)."""
    tree = tree_of(path.read_text(encoding="utf-8"))
    lines = []
    for node in walked(tree):
        named = isinstance(node, ast.Attribute) and node.attr in NAMES
        if named and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
        imported = isinstance(node, ast.ImportFrom) and node.module == "os"
        if imported and any(a.name in NAMES for a in node.names):
            lines.append(node.lineno)
    return lines


def test_the_finder_finds_a_read(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import os\nfrom os import getenv\nv = os.environ.get('A')\nw = 'environ'\n")
    assert environment_uses(sample) == [2, 3]


def test_no_module_outside_settings_reads_the_environment():
    found = {}
    for path in [*(ROOT / "src").rglob("*.py"), *(ROOT / "flows").rglob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("src/dispute_evidence/settings/") or rel in ALLOWED:
            continue
        if lines := environment_uses(path):
            found[rel] = lines
    assert found == {}, "read the variable through dispute_evidence.settings.environment"


def test_the_variables_are_read_when_asked_and_empty_is_not_set(monkeypatch):
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4999/api")
    monkeypatch.setenv("DISPUTE_SANDBOX_TOKENS", "sk_a,sk_b")
    monkeypatch.setenv("TZ", "")
    env = environment()
    assert env.prefect_api_url == "http://127.0.0.1:4999/api" and env.timezone is None
    assert env.sandbox_tokens == "sk_a,sk_b"
    monkeypatch.delenv("PREFECT_API_URL")
    assert environment().prefect_api_url is None
    monkeypatch.setenv("SHOP_KEY", "sk_live_x")
    assert variable("SHOP_KEY") == "sk_live_x" and variable("NOT_SET_HERE") == ""
