"""A superseding summary says the real reason (issue 45, item 4): a refund recorded since the
first version is "a refund changed", never "the payment checks changed". The real CLI against
the local API over loopback."""

from __future__ import annotations

from tests.integration.flows.test_case_wins import PAYMENTS, _inbox, _letter, _rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows


def _payments(inbox, refunded: str) -> None:
    write_rows(inbox / "payments.csv", PAYMENTS, [
        ["ch_A", "5000", "2026-10-01", "129", refunded, "usd", "Paid", "Visa", "4242", "pass",
         "pass", "pass"]])  # fmt: skip


def test_the_v2_banner_names_a_refund_not_the_payment_checks(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"])
    _payments(inbox, "0")
    run_cli("--inbox", str(inbox))
    _payments(inbox, "25")  # the export again: a refund since
    run_cli("--inbox", str(inbox))
    names = [
        f["file_name"] for f in sb.snapshot()["dp_test_0"]["files"] if "summary" in f["file_name"]
    ]
    assert names[-1].endswith("-v2.pdf"), names
    letter = _letter(sb, "dp_test_0")
    assert "because a refund changed" in letter, letter
    assert "payment checks changed" not in letter
