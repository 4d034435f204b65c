"""Real exports read right (issue 39 items 3-4, issue 37 items 6-7): the real CLI against the
local API over loopback."""

from __future__ import annotations

from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

# Stripe's real payments export: the shop's metadata as `<key> (metadata)` columns, a
# database id before the order number
STRIPE = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
          "Status", "Card Brand", "orderId (metadata)", "orderNumber (metadata)"]  # fmt: skip


def _problems(tmp_path) -> str:
    return (tmp_path / "inbox.reports" / "latest" / "problems.csv").read_text()


def test_stripe_charges_join_on_the_order_number_not_the_database_id(
    sandbox_factory, tmp_path, monkeypatch
):
    """`orderId (metadata)` holds a database id, `orderNumber (metadata)` the shop's order
    number: the charge joins its order through the number, and its facts are sent."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "unified_payments.csv", STRIPE, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa",
         "6617890123", "#5000"],
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    payments = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"].get("payments")
    assert [p["payment_id"] for p in payments or []] == ["ch_0"], out
    assert "join no order" not in _problems(tmp_path)


def test_charges_that_join_no_order_are_counted_on_the_report(
    sandbox_factory, tmp_path, monkeypatch
):
    """A payments export whose order column holds something else (ids): one line with the
    count of charges that join no order and which column to check, not silence."""
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    header = [h for h in STRIPE if h != "orderNumber (metadata)"]
    write_rows(inbox / "unified_payments.csv", header, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "6617890123"],
        ["ch_1", "2026-10-01 11:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "6617890124"],
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    lines = [ln for ln in _problems(tmp_path).splitlines() if "join no order" in ln]
    assert len(lines) == 1, _problems(tmp_path)
    assert "2 of 2 charges" in lines[0] and "unified_payments.csv" in lines[0], lines
    assert "order number" in lines[0], (lines, out)


def test_a_date_only_deadline_takes_the_apis_at_the_first_real_run(
    sandbox_factory, tmp_path, monkeypatch
):
    """A merchant in India lists a deadline as a date alone: it ends 23:59 UTC by default,
    5 h 30 min after the API's. The first real run names the API's dispute as it sends, and
    uses the API's deadline at once (state, report), saying it moved; not only the next run."""
    from datetime import UTC, datetime, timedelta

    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateStore

    rows = seed_rows(1)
    day = (datetime.now(UTC) + timedelta(days=20)).date()
    rows[0]["response_due_by"] = f"{day.isoformat()}T18:29:59Z"  # 23:59:59 in Kolkata
    sb = sandbox_factory(rows=rows)
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason",
               "response_due_by"], [["dp_test_0", "#5000", "general", day.isoformat()]])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1, out
    with StateStore(default_state(inbox)) as store:
        assert (
            store.disputes.dispute("dp_test_0")["response_due_by"] == f"{day.isoformat()}T18:29:59Z"
        )
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert row["Deadline (UTC)"].startswith(f"{day.isoformat()} 18:29"), row.to_dict()
    assert "the API's deadline is" in _problems(tmp_path)


def test_information_notes_are_not_counted_as_new_problems(sandbox_factory, tmp_path, monkeypatch):
    """'Changed since the last run' counts problems that need a person: a workbook's notes
    sheet beside its table (information only) is no new problem."""
    import pandas as pd

    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    first = run_cli("--inbox", str(inbox))
    assert "nothing needs you" in first.lower(), first
    with pd.ExcelWriter(inbox / "shipping.xlsx") as book:
        pd.DataFrame({"order_number": ["5000"], "tracking_number": ["1Z999"]}).to_excel(
            book, sheet_name="Shipments", index=False
        )
        pd.DataFrame({"Notes": ["exported by hand", "ask Priya"]}).to_excel(
            book, sheet_name="Read me", index=False
        )
    second = run_cli("--inbox", str(inbox))
    assert "Sheets with no table" in second or "Read me" in _problems(tmp_path), second
    assert "Problems: 1 new" not in second, second
    assert "nothing needs you" in second.lower(), second


def test_a_header_one_edit_from_a_known_column_gets_did_you_mean(
    sandbox_factory, tmp_path, monkeypatch
):
    """A payments sheet's misspelt refund column was ignored without a word. Now one line on
    the report names it and the column it is likely meant for; the rest of the file is used.
    (A refunds log's `Refund Amount` is read: test_layouts_read_right.py.)"""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "payments.csv", ["payment_id", "order_number", "payment_amount",
               "Amount Refundd"], [["ch_9", "5000", "9.50", "1.00"]])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    lines = [ln for ln in _problems(tmp_path).splitlines() if "Amount Refundd" in ln]
    assert len(lines) == 1, _problems(tmp_path)
    assert "did you mean 'amount_refunded'" in lines[0] and "payments.csv" in lines[0]
    assert "Columns not read" in out, out
    payments = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["payments"]
    assert [p["payment_id"] for p in payments] == ["ch_9"]  # the rest of the file was used


def _pdf_text(tmp_path, name_part: str) -> str:
    from pypdf import PdfReader

    found = [p for p in tmp_path.rglob("*.pdf") if name_part in p.name]
    assert found, sorted(str(p) for p in tmp_path.rglob("*.pdf"))
    return "\n".join(pg.extract_text() or "" for pg in PdfReader(found[-1]).pages)


def test_a_credit_is_stated_with_its_date_and_reference(sandbox_factory, tmp_path, monkeypatch):
    """Refunds had no date: Stripe's `Refunded date (UTC)` reaches the charge's facts, and a
    refunds log (order, amount, date, reference) reaches the case, so the letter and the data
    sheet state the credit with its date and reference."""
    sb = sandbox_factory(rows=seed_rows(2, reason="credit_not_processed"))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "credit_not_processed"],
                ["dp_test_1", "#5001", "credit_not_processed"]])  # fmt: skip
    header = [*STRIPE[:-1], "Refunded date (UTC)"]
    write_rows(inbox / "unified_payments.csv", header, [
        ["ch_0", "2026-10-01 10:00:00", "28.50", "0", "usd", "true", "Paid", "Visa", "5000", ""],
        ["ch_1", "2026-10-01 11:00:00", "28.50", "9.50", "usd", "true", "Paid", "Visa", "5001",
         "2026-10-09 08:15:00"],
    ])  # fmt: skip
    write_rows(inbox / "refunds.csv",
               ["order_number", "refund_amount", "refunded_at", "refund_reference", "currency"],
               [["#5000", "12.00", "2026-10-05", "re_3Abc", "USD"]])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    snap = sb.snapshot()
    first = snap["dp_test_0"]["evidence"]["additional_evidence"]
    assert first["refunds"] == [{"refund_amount": 12, "refunded_at": "2026-10-05T00:00:00Z",
                                 "refund_reference": "re_3Abc", "currency": "USD"}], out  # fmt: skip
    second = snap["dp_test_1"]["evidence"]["additional_evidence"]
    assert second["payments"][0]["refunded_at"] == "2026-10-09T08:15:00Z", second

    sheet = " ".join(_pdf_text(tmp_path, "dp_test_0").split())
    assert "A refund of 12.00 USD on 2026-10-05 (reference re_3Abc) was issued" in sheet, sheet
    other = " ".join(_pdf_text(tmp_path, "dp_test_1").split())
    assert "Charge ch_1 shows 9.50 USD refunded on 2026-10-09" in other, other
