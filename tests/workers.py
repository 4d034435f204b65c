"""Which tests share a pytest-xdist worker under `make test` (`-n N --dist loadgroup`).

Every Prefect harness test shares one worker, so the session's Prefect server starts once, not
once per worker; a module whose fixture is built once per module (a fleet, a PostgreSQL
cluster, a browser, a served report) keeps it on one worker, so it is built once. Every other
test is a group of its own, sent to whichever worker is free. A test may still name its group
with `@pytest.mark.xdist_group("name")`.

Why not pytest-xdist's own loadgroup: it passes the group to the scheduler by appending it to
the node id in the worker, and pytest 9.2's structured node ids drop that edit, so every group
is silently split (pytest-xdist issue 1386). Here each worker writes the groups it computed to
a file the controller named, and the controller's scheduler reads them: the groups are the
same whatever the worker, as the collection is."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

GROUPS_FILE = "dispute_evidence_groups_file"
PREFECT_GROUP = "prefect-harness"
_groups_file = pytest.StashKey[Path]()


def worker_group(item: pytest.Item) -> str:
    """The group `item` runs in: its own node id unless it shares a worker (the docstring)."""
    named = item.get_closest_marker("xdist_group")
    if named is not None:
        return str(named.args[0] if named.args else named.kwargs.get("name", "default"))
    if "prefect_harness" in getattr(item, "fixturenames", ()):
        return PREFECT_GROUP
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    if any(d[-1].scope in ("module", "class", "package") for d in defs if d):
        return item.nodeid.split("::")[0]
    return item.nodeid


def write_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a worker: the group of every collected test, for the controller's scheduler."""
    where = getattr(config, "workerinput", {}).get(GROUPS_FILE)
    if where is None:
        return
    mine = Path(f"{where}.{os.getpid()}")
    mine.write_text(json.dumps({item.nodeid: worker_group(item) for item in items}))
    mine.replace(where)  # whole or not at all: another worker may be writing the same


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """In the controller: where each worker writes the groups."""
    config = node.config
    if _groups_file not in config.stash:
        config.stash[_groups_file] = Path(tempfile.mkdtemp(prefix="test-groups-")) / "groups"
    node.workerinput[GROUPS_FILE] = str(config.stash[_groups_file])


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup`: xdist's scope scheduler, with the scopes the workers wrote."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedWorkers(LoadScopeScheduling):  # type: ignore[misc]
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = json.loads(config.stash[_groups_file].read_text())
            return self.groups.get(nodeid, nodeid)

    return SharedWorkers(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _groups_file in config.stash:
        shutil.rmtree(config.stash[_groups_file].parent, ignore_errors=True)
