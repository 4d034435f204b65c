"""A corpus of broken inputs, each asserting the exact report line it produces."""

from __future__ import annotations

import pytest

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.ingest.mappings import MappingError, parse_mappings
from tests.support.export_layouts import ORDER_1001, SHOPIFY_79, write_csv, write_xlsx

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "order_date"]
GOOD = {
    "order_number": "1001",
    "product_title": "Shirt",
    "price": "10",
    "quantity": "1",
    "currency_code": "USD",
}


@pytest.mark.parametrize(("row", "line"), [
    ({**GOOD, "order_number": ""}, "o.csv row 2, column 'order_number': missing order number (required)"),
    ({**GOOD, "price": "ten"}, "o.csv row 2, column 'price' = 'ten': not a number"),
    ({**GOOD, "quantity": "-2"}, "o.csv row 2, column 'quantity' = '-2': negative quantity"),
    ({**GOOD, "quantity": "0"}, "o.csv row 2, column 'quantity' = '0': quantity is 0"),
    ({**GOOD, "currency_code": "XYZ"}, "o.csv row 2, column 'currency_code' = 'XYZ': unknown currency code (use ISO 4217, e.g. USD, EUR)"),
    ({**GOOD, "order_date": "31/31/2025"}, "o.csv row 2, column 'order_date' = '31/31/2025': unparseable date (use YYYY-MM-DD or YYYY-MM-DD HH:MM)"),
])  # fmt: skip
def test_bad_row_is_rejected_and_good_rows_go_through(tmp_path, row, line):
    f = write_csv(tmp_path / "o.csv", ORDERS, [row, {**GOOD, "order_number": "1002"}])
    res = ingest_paths([f], tmp_path)
    assert [r.line() for r in res.rejects] == [line]
    (s,) = res.files
    assert (s.rows_read, s.rows_used, s.rows_rejected) == (2, 1, 1)
    assert res.records["orders"]["order_number"].tolist() == ["1002"]


def test_row_with_two_problems_lists_both_and_counts_once(tmp_path):
    f = write_csv(tmp_path / "o.csv", ORDERS, [{**GOOD, "price": "x", "currency_code": "usd1"}])
    res = ingest_paths([f], tmp_path)
    assert [r.column for r in res.rejects] == ["currency_code", "price"] and res.files[
        0
    ].rows_rejected == 1


def test_shopify_reject_names_the_header_the_analyst_sees(tmp_path):
    f = write_csv(tmp_path / "shop.csv", SHOPIFY_79, [{**ORDER_1001, "Lineitem price": "4,9.x"}])
    res = ingest_paths([f], tmp_path)
    assert [r.line() for r in res.rejects] == [
        "shop.csv row 2, column 'Lineitem price' = '4,9.x': not a number"
    ]


def test_missing_required_column_is_one_file_level_error(tmp_path):
    f = write_csv(
        tmp_path / "o.csv", ["order_number", "product_title", "quantity", "currency_code"], [GOOD]
    )
    res = ingest_paths([f], tmp_path)
    assert [r.line() for r in res.rejects] == [
        "o.csv: no recognised table: as orders it lacks required column(s) price (recognised: "
        "currency_code, order_number, product_title, quantity). Rename the headers or add a mapping in config (see README, 'Your own sheets')."
    ]
    assert res.files[0].problem and res.records["orders"].empty


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("empty.csv", b"", "the file is empty; export it again."),
    ("binary.csv", b"MZ\x00\x00\x01\x02", "this is a binary file, not a CSV; export the sheet as CSV or XLSX."),
    ("fake.xlsx", b"just text", "not a valid .xlsx workbook (damaged or renamed); open and re-save it."),
])  # fmt: skip
def test_unreadable_files(tmp_path, name, content, reason):
    (tmp_path / name).write_bytes(content)
    res = ingest_paths([tmp_path / name], tmp_path)
    assert [r.line() for r in res.rejects] == [f"{name}: {reason}"]


def test_oversize_file_refused_before_reading(tmp_path):
    f = write_csv(tmp_path / "big.csv", ORDERS, [GOOD] * 100)
    res = ingest_paths([f], tmp_path, max_bytes=1000)
    (r,) = res.rejects
    assert r.line().startswith("big.csv: ") and "over the 0 MB limit" in r.reason


def test_zip_bomb_workbook_refused(tmp_path):
    import zipfile

    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("xl/worksheets/sheet1.xml", "0" * 5_000_000)
    res = ingest_paths([path], tmp_path)
    assert "possible zip bomb" in res.rejects[0].reason


def test_every_row_is_accounted_for(tmp_path):
    """Two equal order rows are two line items (Shopify writes one row per line): both used.
    A shipments row equal to an earlier one in every column is one parcel written twice."""
    rows = [
        GOOD,
        GOOD,
        {**GOOD, "price": "bad"},
        {k: "" for k in GOOD},
        {**GOOD, "order_number": "#1003"},
    ]
    f = write_csv(tmp_path / "o.csv", ORDERS, rows)
    (s,) = ingest_paths([f], tmp_path).files
    assert (s.rows_read, s.rows_used, s.rows_duplicate, s.rows_rejected, s.rows_blank) == (
        5,
        3,
        0,
        1,
        1,
    )
    parcel = {"order_number": "1001", "tracking_number": "1Z9", "carrier": "UPS"}
    f = write_csv(tmp_path / "s.csv", list(parcel), [parcel, parcel])
    (s,) = ingest_paths([f], tmp_path).files
    assert (s.kind, s.rows_read, s.rows_used, s.rows_duplicate) == ("shipments", 2, 1, 1)
    assert s.rows_read == s.rows_used + s.rows_duplicate + s.rows_rejected + s.rows_blank


def test_excel_rows_numbered_as_excel_shows_them(tmp_path):
    f = write_xlsx(
        tmp_path / "o.xlsx",
        {"Q2": [ORDERS, ["1001", "A", 1, 1, "USD", ""], ["1002", "B", "x", 1, "USD", ""]]},
    )
    res = ingest_paths([f], tmp_path)
    assert [r.line() for r in res.rejects] == [
        "o.xlsx [Q2] row 3, column 'price' = 'x': not a number"
    ]


@pytest.mark.parametrize(("data", "message"), [
    ({"mapping": [{"kind": "returns"}]}, "m.toml: mapping #1: kind must be one of disputes, orders, shipments, payments, refunds, approvals, fraud_warnings, statements, products, activity, got 'returns'"),
    ({"mapping": [{"kind": "orders", "columns": {"colour": "C"}}]}, "m.toml: mapping #1: columns.colour is not a orders field"),
    ({"mapping": [{"kind": "shipments", "columns": {"order_number": "O"}}]},
     "m.toml: mapping #1: no column or default for required field(s) tracking_number"),
])  # fmt: skip
def test_bad_mapping_names_the_key(data, message):
    with pytest.raises(MappingError) as info:
        parse_mappings(data, "m.toml")
    assert str(info.value).startswith(message)


def test_ragged_rows_keep_excel_numbering_and_are_reported(tmp_path):
    f = tmp_path / "o.csv"
    f.write_text(
        "order_number,product_title,price,quantity,currency_code\n"
        "1001,Shirt,10,1,USD\n"
        "\n"
        "1002,Shirt,10,1,USD,surprise,extra\n"
        "1003,Shirt\n"
        "1004,Hat,x,1,USD\n"
    )
    res = ingest_paths([f], tmp_path)
    assert sorted(r.line() for r in res.rejects) == [
        "o.csv row 4: has 7 fields but the header has 5; fix the quoting",
        "o.csv row 5, column 'currency_code': missing currency code (required)",
        "o.csv row 5, column 'price': missing price (required)",
        "o.csv row 5, column 'quantity': missing quantity (required)",
        "o.csv row 6, column 'price' = 'x': not a number",
    ]
    (s,) = res.files
    assert (s.rows_read, s.rows_used, s.rows_rejected, s.rows_blank) == (5, 1, 3, 1)


INVOICES = parse_mappings(
    {"mapping": [{"name": "Invoices", "kind": "orders", "defaults": {"currency_code": "GBP"},
                  "columns": {"order_number": "InvoiceNo", "product_title": "Description",
                              "price": "UnitPrice", "quantity": "Quantity",
                              "order_date": "InvoiceDate"}}]},
    "test",
)  # fmt: skip
INVOICE_HEADER = ["InvoiceNo", "Description", "UnitPrice", "Quantity", "InvoiceDate"]


def _invoices(tmp_path, dates, mappings=INVOICES, dayfirst=None):
    rows = [
        {"InvoiceNo": str(5000 + i), "Description": "Mug", "UnitPrice": "2.5", "Quantity": "1",
         "InvoiceDate": d}
        for i, d in enumerate(dates)
    ]  # fmt: skip
    f = write_csv(tmp_path / "inv.csv", INVOICE_HEADER, rows)
    return ingest_paths([f], tmp_path, mappings, dayfirst=dayfirst)


def _days(res):
    return [d[:10] for d in res.records["orders"]["order_date"]]


def test_a_date_column_is_read_one_way_decided_from_all_its_values(tmp_path):
    # 13/12 can only be day-first, so 01/12 in the same column is 1 December, not 12 January
    res = _invoices(tmp_path, ["01/12/2025 08:34", "13/12/2025 08:34"])
    assert res.rejects == [] and _days(res) == ["2025-12-01", "2025-12-13"]
    res = _invoices(tmp_path, ["12/01/2025", "12/13/2025"])  # month-first, told by 12/13
    assert res.rejects == [] and _days(res) == ["2025-12-01", "2025-12-13"]


def test_an_ambiguous_date_column_is_refused_unless_the_order_is_set(tmp_path):
    dates = ["01/12/2025 08:34", "05/05/2025", "02/11/2025"]
    res = _invoices(tmp_path, dates)
    assert [(r.row, r.value) for r in res.rejects] == [(2, "01/12/2025 08:34"), (4, "02/11/2025")]
    assert res.rejects[0].reason.startswith("ambiguous date: day-first or month-first?")
    assert (
        "dayfirst = true or false" in res.rejects[0].reason
        and "ingest.locale" in res.rejects[0].reason
    )
    assert _days(res) == ["2025-05-05"]  # reads the same both ways
    assert _days(_invoices(tmp_path, dates, dayfirst=True)) == [
        "2025-12-01",
        "2025-05-05",
        "2025-11-02",
    ]
    assert _days(_invoices(tmp_path, dates, dayfirst=False)) == [
        "2025-01-12",
        "2025-05-05",
        "2025-02-11",
    ]


def test_a_column_mixing_both_orders_is_refused(tmp_path):
    res = _invoices(tmp_path, ["13/12/2025", "12/13/2025", "2025-12-14"])
    assert [r.row for r in res.rejects] == [2, 3]
    assert "mixes day-first (e.g. 13/12) and month-first (e.g. 12/13)" in res.rejects[0].reason
    assert _days(res) == ["2025-12-14"]  # ISO dates are never in doubt
