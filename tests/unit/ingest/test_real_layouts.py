"""Every real layout of the shared document ingests without configuration."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from dispute_evidence.ingest import ingest_inbox, ingest_paths
from dispute_evidence.ingest.mappings import load_mappings
from tests.support.export_layouts import (
    CHARGE_1001,
    ORDER_1001,
    ORDER_1001_LINE2,
    ORDER_1002,
    SHIPSTATION,
    SHOPIFY_75,
    SHOPIFY_79,
    STRIPE_PAYMENTS,
    write_csv,
    write_xlsx,
)  # fmt: skip


def test_shopify_79_with_bom_crlf_and_order_fields_on_first_row_only(tmp_path):
    f = write_csv(tmp_path / "orders_export_1.csv", SHOPIFY_79, [ORDER_1001, ORDER_1001_LINE2, ORDER_1002],
                  bom=True, crlf=True)  # fmt: skip
    res = ingest_paths([f], tmp_path)
    (summary,) = res.files
    assert (summary.kind, summary.layout, summary.rows_read, summary.rows_used) == (
        "orders",
        "Shopify orders export",
        3,
        3,
    )
    orders = res.records["orders"]
    assert orders["order_number"].tolist() == ["1001", "1001", "1002"]
    second = orders.iloc[1]
    assert second["product_title"] == 'Belt, "leather"\r\nbrown'  # quoted CRLF inside a field
    assert (
        second["currency_code"] == "USD" and second["customer_email"] == "ann@example.com"
    )  # carried down
    assert (
        second["billing_address"] == "1 Main St, Boston, MA, 02108, US"
    )  # apostrophe zip kept as text
    assert orders.iloc[0]["order_date"] == "2025-05-11T13:55:16Z"
    assert orders["price"].tolist() == [49.5, 10.0, 25.0] and res.rejects == []


def test_shopify_75_older_layout(tmp_path):
    f = write_csv(tmp_path / "orders_2021.csv", SHOPIFY_75, [ORDER_1001, ORDER_1002])
    res = ingest_paths([f], tmp_path)
    assert res.files[0].layout == "Shopify orders export" and len(res.records["orders"]) == 2


def test_shipstation_grid_all_quoted_crlf(tmp_path):
    rows = [{"Order #": "1001", "Store": "Acme", "Order Date": "5/11/2025", "Item Name": "Linen shirt",
             "Recipient": "Ann Smith", "Ship Date": "5/12/2025", "Quantity": "2", "Service": "USPS Priority"}]  # fmt: skip
    f = write_csv(tmp_path / "shipstation.csv", SHIPSTATION, rows, quote_all=True, crlf=True)
    res = ingest_paths([f], tmp_path)
    assert res.files[0].kind == "shipments" and res.files[0].layout == "ShipStation orders export"
    ship = res.records["shipments"].iloc[0]
    assert (ship["order_number"], ship["service"], ship["shipped_at"]) == (
        "1001",
        "USPS Priority",
        "2025-05-12T00:00:00Z",
    )


def test_stripe_payments_all_columns_with_order_metadata(tmp_path):
    header = [
        *STRIPE_PAYMENTS[: STRIPE_PAYMENTS.index("Transfer") + 1],
        "orderId (metadata)",
        "Transfer Group",
    ]
    other = {**CHARGE_1001, "id": "ch_3PxB2", "Currency": "eur", "orderId (metadata)": "",
             "Dispute Evidence Due (UTC)": "", "Dispute Reason": "", "Dispute Status": ""}  # fmt: skip
    f = write_csv(tmp_path / "unified_payments.csv", header, [CHARGE_1001, other])
    res = ingest_paths([f], tmp_path)
    (s,) = res.files
    assert (s.kind, s.layout, s.rows_read, s.rows_used) == (
        "payments",
        "Stripe payments export",
        2,
        2,
    )
    assert res.rejects == []
    pay = res.records["payments"]
    assert pay["order_number"].tolist() == [
        "1001",
        "",
    ]  # '#1001' normalised; no metadata: joins by reference
    first = pay.iloc[0]
    assert (first["currency"], first["payment_amount"], first["card_last4"], first["avs_zip_check"]) == (
        "USD", 109.0, "4242", "pass")  # fmt: skip
    assert first["dispute_evidence_due"] == "2025-06-20T23:59:59Z"


def test_stripe_payments_without_metadata_and_a_bad_row(tmp_path):
    header = STRIPE_PAYMENTS[:-2] + ["Transfer Group"]
    bad = {**CHARGE_1001, "id": "ch_bad", "Amount": "lots"}
    f = write_csv(tmp_path / "payments.csv", header, [CHARGE_1001, bad])
    res = ingest_paths([f], tmp_path)
    assert res.files[0].layout == "Stripe payments export"
    assert [r.line() for r in res.rejects] == [
        "payments.csv row 3, column 'Amount' = 'lots': not a number"
    ]
    assert res.records["payments"]["payment_id"].tolist() == ["ch_3PxA1"]


def test_xlsx_with_title_row_serial_dates_extra_column_and_formula(tmp_path):
    f = write_xlsx(tmp_path / "disputes.xlsx", {
        "Notes": [["Read me"]],
        "Disputes": [
            ["Dispute list exported 2025-06-01"],
            ["Provider Dispute ID", "Order Number", "Amount", "Currency", "Reason", "Response due by", "Analyst"],
            ["dp_1", "#1001", 109, "usd", "fraudulent", 45850, "Kim"],
            ["dp_2", 1002.0, "=10*2.5", "EUR", "product_not_received", datetime(2025, 7, 1), "Lee"],
        ],
    }, date_cols={"Disputes": {5}})  # fmt: skip
    res = ingest_paths([f], tmp_path)
    d = res.records["disputes"]
    assert res.rejects == [] and d["provider_dispute_id"].tolist() == ["dp_1", "dp_2"]
    assert d["order_number"].tolist() == ["1001", "1002"]
    assert d["response_due_by"].tolist() == [
        "2025-07-12T23:59:59Z",
        "2025-07-01T23:59:59Z",
    ]  # serial 45850
    assert d["currency"].tolist() == ["USD", "EUR"]
    assert d["amount"].tolist() == [109.0, 99.0]  # formula: its stored value, never evaluated (=25)
    assert d["_row"].tolist()[0] == 3  # Excel row (title row 1, header row 2)


def test_canonical_shipments_xlsx_missing_optional_columns(tmp_path):
    f = write_xlsx(tmp_path / "ship.xlsx", {"Sheet1": [["order_number", "tracking_number", "carrier"],
                                                        ["1001", "1Z999", "UPS"], ["#1001", "1Z999", "UPS"]]})  # fmt: skip
    res = ingest_paths([f], tmp_path)
    (s,) = res.files
    assert (s.rows_read, s.rows_used, s.rows_duplicate) == (2, 1, 1)
    assert res.records["shipments"].iloc[0]["delivered_at"] == ""


def test_cp1252_semicolon_csv(tmp_path):
    f = write_csv(tmp_path / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
                  [{"provider_dispute_id": "dp_9", "order_number": "1009", "reason": "Non reçu – café"}],
                  encoding="cp1252", delimiter=";")  # fmt: skip
    res = ingest_paths([f], tmp_path)
    assert res.records["disputes"].iloc[0]["reason"] == "Non reçu – café"


def test_custom_mapping_for_generic_retail_sheet(tmp_path):
    cfg = tmp_path / "mappings.toml"
    cfg.write_text("""
[[mapping]]
name = "Retail invoices"
kind = "orders"
[mapping.columns]
order_number = "InvoiceNo"
product_title = "Description"
price = "UnitPrice"
quantity = "Quantity"
order_date = "InvoiceDate"
sku = "StockCode"
[mapping.defaults]
currency_code = "GBP"
""")
    f = write_xlsx(tmp_path / "retail.xlsx", {"Online Retail": [
        ["InvoiceNo", "StockCode", "Description", "Quantity", "InvoiceDate", "UnitPrice", "CustomerID", "Country"],
        [536365, "85123A", "WHITE HANGING HEART T-LIGHT HOLDER", 6, 40513.34, 2.55, 17850, "United Kingdom"],
    ]})  # fmt: skip
    res = ingest_paths([f], tmp_path, custom=load_mappings(cfg))
    row = res.records["orders"].iloc[0]
    assert res.files[0].layout == "Retail invoices" and res.rejects == []
    assert (row["order_number"], row["currency_code"], row["price"], row["order_date"]) == (
        "536365",
        "GBP",
        2.55,
        "2010-12-01T08:09:36Z",
    )


def test_inbox_scan_ignores_lock_temp_hidden_and_symlinks(tmp_path):
    write_csv(
        tmp_path / "d.csv",
        ["provider_dispute_id", "order_number"],
        [{"provider_dispute_id": "dp_1", "order_number": "1"}],
    )
    (tmp_path / "~$d.xlsx").write_bytes(b"lock")
    (tmp_path / ".~lock.d.csv#").write_bytes(b"lock")
    (tmp_path / "upload.tmp").write_bytes(b"x")
    (tmp_path / ".hidden.csv").write_bytes(b"x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "dp_1 receipt.pdf").write_bytes(b"%PDF-1.4")
    outside = tmp_path.parent / "outside.csv"
    outside.write_text("provider_dispute_id,order_number\ndp_x,9\n")
    (tmp_path / "link.csv").symlink_to(outside)
    res = ingest_inbox(tmp_path)
    assert [f.file for f in res.files] == ["d.csv"]
    assert [p.name for p in res.evidence_files] == ["dp_1 receipt.pdf"]
    assert res.skipped == [
        ("link.csv", "symbolic link: not followed (copy the real file into the inbox)")
    ]


def test_legacy_xls_workbook(tmp_path):
    # tests/ingest/data/disputes_legacy.xls: an Excel 97-2003 (BIFF8) workbook written once with
    # xlwt 1.3.0 (not a dependency): title row, real date cells, a bad amount, a notes sheet.
    import shutil

    f = Path(shutil.copy(Path(__file__).parent / "data" / "disputes_legacy.xls", tmp_path))
    res = ingest_paths([f], tmp_path)
    (s,) = res.files
    assert (s.sheet, s.kind, s.rows_read, s.rows_used, s.rows_rejected) == (
        "Disputes",
        "disputes",
        3,
        2,
        1,
    )
    assert [r.line() for r in res.rejects] == [
        "disputes_legacy.xls [Disputes] row 5, column 'Amount' = 'n/a': not a number"
    ]
    d = res.records["disputes"]
    assert d["order_number"].tolist() == ["1001", "1002"]
    assert d["response_due_by"].tolist() == ["2025-07-12T23:59:59Z", "2025-07-01T23:59:59Z"]
