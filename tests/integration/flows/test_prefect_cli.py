"""Prefect's own list commands work against the embedded server on the pinned stack.

fastapi 0.151 began validating an explicit JSON `null` in an embedded body field instead of
replacing it with the field's default; prefect 3.8.8's client sends `"limit": null` (and
`"sort": null`) for `deployment ls`, `flow-run ls` and `work-pool ls`, so its server answered
422. The pin (fastapi 0.150.0, the last release that treats null as missing) is the fix.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from prefect import flow

PREFECT = Path(sys.executable).with_name("prefect")


@flow(name="list-commands-probe")
def _probe() -> int:
    return 1


def _prefect(*args: str) -> subprocess.CompletedProcess[str]:
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ, PREFECT_API_URL=str(PREFECT_API_URL.value()), COLUMNS="250")
    return subprocess.run(
        [str(PREFECT), *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_prefect_deployment_flow_run_and_work_pool_ls_answer(prefect_harness):
    _probe()  # one flow run to list
    for args in (("deployment", "ls"), ("flow-run", "ls"), ("work-pool", "ls")):
        done = _prefect(*args)
        out = done.stdout + done.stderr
        assert done.returncode == 0, f"prefect {' '.join(args)}: {out[-2000:]}"
        # "422" as a number of its own: flow-run ids are hex and may hold the digits 422
        assert not re.search(r"(?<![0-9A-Za-z])422(?![0-9A-Za-z])", out), out[-2000:]
        assert "Unprocessable" not in out
    runs = _prefect("flow-run", "ls")
    assert "list-commands-probe" in runs.stdout
