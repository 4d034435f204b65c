"""Bad values of the second adversarial pass (issue 24), dropped beside a good drop, in one run
of the real CLI against the sandbox: every good dispute is sent once and exactly as it should
be, nothing wrong is sent, and each bad input gets a line naming its file, row and column."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

GOOD = 4
ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code"]
DISPUTES = ["provider_dispute_id", "order_number", "amount", "response_due_by"]
# disputes of the bad drop, known to the API: those whose data is fine (read correctly now)
# must be sent, the others must not
SENT = {"dp_eu": "6001", "dp_enc": "6002", "dp_nul": "6003", "dp_u16": "6004"}
NOT_SENT = {"dp_big_price": "6010", "dp_big_qty": "6011", "dp_huge_qty": "6012",
            "dp_huge_int": "6013", "dp_conflict": "6001", "dp_far": "6020", "dp_big_amount": "6021"}  # fmt: skip


def _sandbox_rows() -> list[dict[str, object]]:
    rows = seed_rows(GOOD)
    extra = seed_rows(len(SENT) + len(NOT_SENT), prefix="x")
    for row, pid in zip(extra, [*SENT, *NOT_SENT], strict=True):
        row["provider_dispute_id"] = pid
    return rows + extra


def _drop_bad_values(inbox) -> dict[str, tuple[int | None, str]]:
    """The bad drop; returns {file: (row, column)} each must be reported at."""
    write_rows(inbox / "orders_big.csv", ORDERS, [
        [6010, "Big", "1e300", 1, "USD"], [6011, "Big", 5, "1e20", "USD"],
        [6012, "Big", 5, "1e12", "USD"], [6013, "Big", "99999999999999999999", 1, "USD"]])  # fmt: skip
    (inbox / "orders_eu.csv").write_text(
        "order_number;product_title;price;quantity;currency_code\n"
        "6001;Fauteuil;1.234,56;1;EUR\n6001;Coussin;12,50;2;EUR\n"
    )
    mixed = "order_number,product_title,price,quantity,currency_code\n6002,Café crème,4,1,EUR\n"
    (inbox / "orders_mixed.csv").write_bytes(
        mixed.encode() + "6002,Thé glacé,3,1,EUR\n".encode("cp1252")
    )
    (inbox / "orders_nul.csv").write_bytes(
        b"order_number,product_title,price,quantity,currency_code\n"
        b"6003,Lamp,20,1,EUR\n6099,Da\x00maged,20,1,EUR\n"
    )
    unicode_text = "order_number\tproduct_title\tprice\tquantity\tcurrency_code\r\n"
    (inbox / "orders_unicode.txt").write_bytes(
        (unicode_text + "6004\tŁódź mug\t7\t1\tPLN\r\n").encode("utf-16")
    )
    write_rows(inbox / "orders_dup_header.csv", [*ORDERS, "Price"], [[6005, "Two", 1, 1, "USD", 2]])
    write_rows(inbox / "disputes_bad.csv", DISPUTES, [
        ["dp_eu", 6001, 100, ""], ["dp_enc", 6002, 100, ""], ["dp_nul", 6003, 100, ""],
        ["dp_u16", 6004, 100, ""], ["dp_big_price", 6010, 100, ""], ["dp_big_qty", 6011, 100, ""],
        ["dp_huge_qty", 6012, 100, ""], ["dp_huge_int", 6013, 100, ""],
        ["dp_conflict", 6001, 100, ""], ["dp_far", 6020, 100, "9999-12-31T23:59:59Z"],
        ["dp_big_amount", 6021, "1e308", ""]])  # fmt: skip
    write_rows(inbox / "disputes_other.csv", DISPUTES, [["dp_conflict", 6002, 100, ""]])
    return {
        "orders_big.csv": (2, "price"),
        "orders_nul.csv": (3, "product_title"),
        "orders_dup_header.csv": (None, "price"),
        "disputes_bad.csv": (11, "response_due_by"),
        "disputes_other.csv": (2, "order_number"),
    }


def test_bad_values_beside_a_good_drop(prefect_harness, sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=_sandbox_rows())
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__SUMMARY_PDF", "false")
    # the bad-value drops' disputes argue nothing (no customer, no shipment): sent, not held
    monkeypatch.setenv("DISPUTE_EVIDENCE_REVIEW__HOLD_WITHOUT_CLAIM", "false")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, GOOD)
    write_rows(inbox / "orders_more.csv", ORDERS, [[5000, "Item 2", 3, 1, "USD"]])  # one more line
    bad = _drop_bad_values(inbox)

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])

    assert r.exit_code in (0, 1, 5), r.output
    assert "Traceback" not in r.output and "Configuration error" not in r.output
    snap = sb.snapshot()
    for i in range(GOOD):
        assert snap[f"dp_test_{i}"]["evidence_updates"] == 1
    products = {pid: snap[pid]["evidence"]["products"] for pid in SENT}
    assert [p["product_title"] for p in snap["dp_test_0"]["evidence"]["products"]] == [
        "Item 0", "Item 1", "Item 2"]  # fmt: skip
    assert [(p["product_title"], p["price"]) for p in products["dp_eu"]] == [
        ("Fauteuil", 1234.56), ("Coussin", 12.5)]  # fmt: skip
    assert [p["product_title"] for p in products["dp_enc"]] == ["Café crème", "Thé glacé"]
    assert [p["product_title"] for p in products["dp_nul"]] == ["Lamp"]
    assert [p["product_title"] for p in products["dp_u16"]] == ["Łódź mug"]
    assert all(snap[pid]["evidence_updates"] == 1 for pid in SENT)
    assert [pid for pid in NOT_SENT if snap[pid]["evidence_updates"]] == []

    report = next((tmp_path / "inbox.reports").iterdir())
    problems = pd.read_csv(report / "problems.csv", dtype=str).fillna("")
    for name, (row, column) in bad.items():
        mine = problems[problems["file"] == name]
        at = mine[(mine["row"] == ("" if row is None else str(row))) & (mine["column"] == column)]
        assert not at.empty, f"{name} row {row} column {column} not reported:\n{mine}"
    conflict = problems.loc[problems["file"] == "disputes_other.csv", "problem"].iloc[0]
    assert "disputes_bad.csv row 10" in conflict and "disputes_other.csv row 2" in conflict
    assert (
        "columns C and F"
        in problems.loc[problems["file"] == "orders_dup_header.csv", "problem"].iloc[0]
    )
