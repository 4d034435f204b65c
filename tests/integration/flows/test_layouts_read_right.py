"""Real layouts read right in a run (issue 45, items 2, 3, 4, 8): the real CLI against the
local API over loopback. A refunds log with payment ids is a refunds log; nine semicolons in
a statement leave the disputes list readable; Shopify's orders export without its price
columns is read for what it has; a whole refused file is not told "its other rows were used"."""

from __future__ import annotations

import io

import pandas as pd
from pypdf import PdfReader

from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows
from tests.support.export_layouts import write_csv

REFUNDS_LOG = ["Order Number", "Payment ID", "Refund Amount", "Refunded On", "Reason", "Processed by"]  # fmt: skip
ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_date"]  # fmt: skip
# 189 characters, nine semicolons (tests/unit/ingest/test_delimiter_guess.py)
STATEMENT = (
    "We shipped on 2 Dec; the tracking shows delivery; the customer wrote twice; we offered a "
    "return; no reply; the parcel was signed for; photos attached; policy accepted; no refund; "
    "due, sorry"
)


def _problems(tmp_path) -> pd.DataFrame:
    path = tmp_path / "inbox.reports" / "latest" / "problems.csv"
    return pd.read_csv(path, dtype=str).fillna("")


def _pdf_text(sb, pid: str) -> str:
    names = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (names[-1],)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


def test_a_refunds_log_with_a_payment_id_is_a_refunds_log(sandbox_factory, tmp_path, monkeypatch):
    """Issue 45's log: its credit and date reach the case ("Refunded 0.00" never under a full
    refund), its payment id never becomes the disputed charge, it is no sale in the standing,
    and the report says which layout it was read as and why."""
    sb = sandbox_factory(rows=seed_rows(1, reason="credit_not_processed"))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "credit_not_processed"]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Board", "30.50", 1, "USD", "c@example.com", "C", "2026-10-01"],
        [5001, "Wheel", "12.00", 1, "USD", "d@example.com", "D", "2026-10-02"],
    ])  # fmt: skip
    write_rows(inbox / "refunds log.csv", REFUNDS_LOG, [
        ["#5000", "pay_PQx81LmA3nZc2k", "30.50", "2026-10-05", "damaged", "Priya"],
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    extra = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]
    assert "payments" not in extra, extra  # the log's payment id is no charge of the shop's
    assert [(r["refund_amount"], r["refunded_at"][:10]) for r in extra["refunds"]] == [
        (30.5, "2026-10-05")]  # fmt: skip
    text = _pdf_text(sb, "dp_test_0")
    assert "pay_PQx81LmA3nZc2k" not in text.split("Disputed amount")[0], text
    assert "Refunded 0.00" not in text and "Refunded 30.50 " in text, text  # (currency: item 4)
    lines = _problems(tmp_path)
    chosen = lines[lines["problem"].str.startswith("read as a refunds log")]
    assert chosen["file"].tolist() == ["refunds log.csv"], lines.to_dict("records")
    assert "'Refund Amount'" in chosen["problem"].iloc[0] and "Sheets that fit two layouts" in out
    assert not lines["problem"].str.contains("did you mean").any()
    standing = pd.read_csv(tmp_path / "inbox.reports" / "latest" / "standing.csv", dtype=str)
    assert not standing.empty and "pay_PQx81LmA3nZc2k" not in standing.to_csv()


def test_a_statement_with_nine_semicolons_and_a_styled_products_export_are_read(
    sandbox_factory, tmp_path, monkeypatch
):
    """The delimiter guess no longer picks `;` for a comma file: the disputes list is read
    and its dispute sent with the statement; the products export with inline styles and
    entities is recognised (nothing on the report about either file)."""
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    assert len(STATEMENT) == 189 and STATEMENT.count(";") == 9
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "Statement"],
               [["dp_test_0", "#5000", "general", STATEMENT]])  # fmt: skip
    header = ["Handle", "Title", "Body (HTML)", "Vendor", "Variant SKU", "Variant Price"]
    body = ('<p style="color: #333; font-size: 14px; margin: 0;">Cuir &amp; su&egrave;de'
            '&nbsp;&mdash; <span style="font-weight: bold;">38</span></p>')  # fmt: skip
    write_csv(inbox / "products_export.csv", header, [
        {"Handle": "board", "Title": "Item 0", "Body (HTML)": body, "Variant SKU": "B-1"},
        {"Handle": "wheel", "Title": "Item 1", "Body (HTML)": body.replace("14", "12")},
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    dispute = sb.snapshot()["dp_test_0"]
    assert dispute["evidence_updates"] == 1, out
    assert STATEMENT in str(dispute["evidence"]), dispute["evidence"]
    lines = _problems(tmp_path)
    about = lines[lines["file"].isin(["disputes.csv", "products_export.csv"])]
    assert about.empty, about.to_dict("records")


# Issue 45's real store: one line of its 34-column export (no Lineitem price, no Total)
BOOT = {"Name": "#5000", "Email": "c@example.com", "Currency": "CAD", "Lineitem quantity": "1",
        "Lineitem name": "Botte d'hiver - 38", "Billing Name": "C", "Shipping City": "Montréal"}  # fmt: skip


def _orders_without_prices(sandbox_factory, tmp_path, monkeypatch, line: dict[str, str]):
    """A sandbox with one dispute on order #5000, and an inbox holding the disputes list and
    Shopify's orders export without its price columns, listing `line`."""
    from tests.unit.ingest.test_orders_without_prices import SHOPIFY_34

    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "general"]])  # fmt: skip
    write_csv(inbox / "orders_export.csv", SHOPIFY_34, [line])
    return sb, inbox


def test_shopify_orders_without_price_columns_say_the_real_problem(
    sandbox_factory, tmp_path, monkeypatch
):
    """A real store's 34-column export (no Lineitem price, no Total): read for what it has,
    one line says what it is and to export it again, and the dispute waits for the prices
    with that reason (not the whole file refused and every dispute left "waiting for data"),
    naming what is missing (no products export to take a price from)."""
    sb, inbox = _orders_without_prices(sandbox_factory, tmp_path, monkeypatch, BOOT)
    run_cli("--inbox", str(inbox))
    lines = _problems(tmp_path)
    (line,) = lines.loc[lines["file"] == "orders_export.csv", "problem"]
    assert "Shopify orders export without its 'Lineitem price', 'Total' column(s)" in line, line
    assert "export it again with all its columns" in line
    assert "no recognised table" not in " ".join(lines["problem"])
    row = latest_disputes(tmp_path).loc["dp_test_0"]
    assert "waiting for prices: orders_export.csv gives no price" in row.to_csv(), row.to_dict()
    assert "Botte d'hiver - 38': no SKU, and no products export was read" in row.to_csv()
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0  # no line goes without a price


def test_shopify_orders_without_prices_take_the_products_exports_price(
    sandbox_factory, tmp_path, monkeypatch
):
    """The same export beside Shopify's products export: the line takes its product's Variant
    Price by its SKU, the payload says where that price came from, and the dispute is sent
    (issue 45 item 3: "prices come from the products export")."""
    line = {**BOOT, "Lineitem sku": "BH-38"}
    sb, inbox = _orders_without_prices(sandbox_factory, tmp_path, monkeypatch, line)
    write_csv(inbox / "products_export.csv", ["Handle", "Title", "Body (HTML)", "Variant SKU",
              "Variant Price"], [
        {"Handle": "botte", "Title": "Botte d'hiver", "Body (HTML)": "<p>Cuir</p>",
         "Variant SKU": "BH-38", "Variant Price": "189.00"},
        {"Handle": "botte", "Variant SKU": "BH-39", "Variant Price": "199.00"},
    ])  # fmt: skip
    out = run_cli("--inbox", str(inbox))
    dispute = sb.snapshot()["dp_test_0"]
    assert dispute["evidence_updates"] == 1, out
    evidence = dispute["evidence"]
    assert [(p["product_title"], p["price"], p["currency_code"]) for p in evidence["products"]] == [
        ("Botte d'hiver - 38", 189.0, "CAD")]  # fmt: skip
    (said,) = evidence["additional_evidence"]["line_prices"]
    assert said["source"].startswith(
        "price from the products export (products_export.csv), SKU BH-38"), said  # fmt: skip
    assert "waiting for prices" not in latest_disputes(tmp_path).loc["dp_test_0"].to_csv()
    text = _pdf_text(sb, "dp_test_0")  # the data sheet says where the price came from
    assert "Botte d'hiver - 38: price from the products export (products_export.csv), SKU " \
        "BH-38" in text, text  # fmt: skip


def test_a_whole_refused_file_is_not_told_its_other_rows_were_used(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "notes.csv", ["Who", "When"], [["Priya", "Monday"]])
    out = run_cli("--inbox", str(inbox))
    lines = _problems(tmp_path)
    (kind,) = lines.loc[lines["file"] == "notes.csv", "problem_kind"]
    assert kind == "Files not used", lines.to_dict("records")
    (todo,) = lines.loc[lines["file"] == "notes.csv", "what to do"]
    assert "other rows were used" not in todo and "nothing of this file was used" in todo
    assert "Files not used" in out, out
