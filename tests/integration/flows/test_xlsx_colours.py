"""disputes.xlsx colours a dispute's state as the page does (issue 45, item 4): one sent but
weak (it still needs something) is yellow in both, not green in the workbook. The real CLI
against the local API over loopback."""

from __future__ import annotations

from openpyxl import load_workbook

from tests.conftest import seed_rows
from tests.integration.flows.test_right_evidence import in_transit_inbox
from tests.support.cli_helpers import approve_cli, latest_disputes, run_cli, use_sandbox

YELLOW = "FFEB9C"  # the page's .needs .state


def test_sent_but_weak_is_yellow_in_the_workbook_as_on_the_page(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = in_transit_inbox(tmp_path)
    run_cli("--inbox", str(inbox))  # in transit, no proof: held as advice: accept
    approve_cli(inbox, "dp_test_0")  # the analyst fights it anyway: sent, still weak
    run_cli("--inbox", str(inbox))
    assert latest_disputes(tmp_path).loc["dp_test_0", "Status"].startswith("sent, weak")
    folder = tmp_path / "inbox.reports" / "latest"
    page = (folder / "summary.html").read_text()
    assert 'class="s-sent needs"' in page  # the page: yellow (.needs .state)
    ws = load_workbook(folder / "disputes.xlsx").active
    titles = [c.value for c in ws[1]]
    cell = ws.cell(row=2, column=titles.index("Status") + 1)
    assert str(cell.value).startswith("sent, weak")
    assert cell.fill.fgColor.rgb.endswith(YELLOW), cell.fill.fgColor.rgb
