"""Issue 39, item 11: a dispute whose API view differs from the disputes list is held on the
run that first finds it, and that run says so: the hold in its report, counted as needing a
person, exit 5. The real CLI against the sandbox."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes
from tests.support.cli_helpers import use_sandbox as _api
from tests.support.engine_helpers import make_inbox, write_rows

HELD = "held: the API's view of this dispute differs from the disputes list"


def _run(inbox) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


@pytest.mark.parametrize("read_back", [True, False])
def test_the_first_run_that_finds_the_apis_view_differs_shows_the_hold_and_exits_5(
    sandbox_factory, tmp_path, monkeypatch, read_back
):
    sb = sandbox_factory(
        rows=[{**r, "reason": "general"} for r in seed_rows(2)]
    )  # 10.00, 10.01 USD
    _api(sb, monkeypatch)
    if read_back:
        monkeypatch.delenv("DISPUTE_EVIDENCE_READBACK__ENABLED")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(1, 1))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
               "currency"], [["dp_test_0", "#5000", "general", "129", "USD"],
                             ["dp_test_1", "#5001", "general", "10.01", "USD"]])  # fmt: skip
    for run in ("first", "second"):
        code, out = _run(inbox)
        assert sb.snapshot()["dp_test_0"]["files"] == []  # held: nothing more went
        assert code == 5, (run, out)
        assert "nothing needs you" not in out, (run, out)
        attention = out[out.index("Needs your attention") :]
        assert HELD in attention and "dp_test_0" in attention, (run, out)
        assert HELD in latest_disputes(tmp_path).loc["dp_test_0", "Next step"], run
        problems = (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()
        assert HELD in problems and "amount 1000 (smallest unit) at the API" in problems, run
