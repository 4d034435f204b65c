"""Round 3's low findings on what the analyst reads (issue 39, items 5 and 12): through the real
CLI against the local API."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd

from tests.conftest import TOKEN, seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_subtotal"]  # fmt: skip
DISPUTES = ["provider_dispute_id", "order_number", "reason", "amount", "currency"]


def test_the_pipelines_lines_print_plainly_not_as_log_records(sandbox_factory, tmp_path):
    """A dispute held because the API's amount differs from the list's: the line that says so
    reads as the rest of the output does, without `WARNING dispute_evidence.…:` before it."""
    rows = [{**r, "reason": "fraudulent"} for r in seed_rows(1)]  # 10.00 USD at the API
    sb = sandbox_factory(rows=rows)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(1, 1))
    write_rows(
        inbox / "disputes.csv", DISPUTES, [["dp_test_0", "#5000", "fraudulent", "129", "USD"]]
    )
    env = {
        **os.environ,
        "DISPUTE_API_BASE_URL": sb.base_url,
        "DISPUTE_API_TOKEN": TOKEN,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
        "DISPUTE_EVIDENCE_READBACK__ENABLED": "false",
    }
    cmd = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    said = [line for line in r.stderr.splitlines() if "dp_test_0" in line and "held" in line]
    assert said, r.stderr
    assert all(line.startswith("dp_test_0: held") for line in said), said
    assert "dispute_evidence." not in r.stderr + r.stdout, r.stderr


def test_a_held_disputes_evidence_column_says_held_as_its_state_does(
    sandbox_factory, tmp_path, monkeypatch
):
    """A dispute held because its order lost a row: the *Evidence* column does not say
    "waiting for data" beside a *State* of "held: would go out wrong"."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "42"],
        [5000, "Belt", "twelve", 1, "USD", "c0@example.com", "C 0", "42"],
    ])  # fmt: skip
    run_cli("--inbox", str(inbox))
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert row["Status"].startswith("held: would go out wrong"), row.to_dict()
    assert row["Evidence (by reason)"] == "held: would go out wrong", row.to_dict()


def test_a_file_named_for_a_refused_dispute_row_says_the_row_was_refused(
    sandbox_factory, tmp_path, monkeypatch
):
    """Issue 39 item 12: dp_test_0's row in the disputes list is refused (its deadline cannot
    be read); a file named for dp_test_0 was told "did you mean 'dp_test_1'?"."""
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason",
               "response_due_by"], [["dp_test_0", "#5000", "general", "next tuesday"],
                                    ["dp_test_1", "#5001", "general", "2030-01-10"]])  # fmt: skip
    (inbox / "dp_test_0 receipt.pdf").write_bytes(b"%PDF-1.4\nreceipt for order 5000")
    run_cli("--inbox", str(inbox))
    problems = pd.read_csv(tmp_path / "inbox.reports" / "latest" / "problems.csv", dtype=str)
    said = problems.loc[problems["file"] == "dp_test_0 receipt.pdf"].fillna("")
    assert len(said) == 1, problems.to_dict("records")
    what = said.iloc[0]["problem"]
    assert "dp_test_1" not in what and "did you mean" not in what, what
    assert "names dp_test_0, whose row was not used (disputes.csv row 2" in what, what
    assert "fix that row, drop its file again, and this file is matched then" in what, what
    assert (inbox / "dp_test_0 receipt.pdf").exists(), what  # kept for when the row is fixed
