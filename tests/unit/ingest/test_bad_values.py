"""Hardening round 2 (issue 24), ingest side: a bad value rejects its row (or its column) with
one line saying where and what to do; the good rows of the same file go through unchanged."""

from __future__ import annotations

import pandas as pd
import pytest

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.ingest.numbers import AMBIGUOUS, parse_number

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "order_date"]
HEADER = ",".join(ORDERS) + "\n"
GOOD_ROW = "1002,Good,10,1,USD,2025-05-01\n"


def _ingest(tmp_path, body: bytes | str, name: str = "o.csv"):
    path = tmp_path / name
    path.write_bytes(body.encode() if isinstance(body, str) else body)
    return ingest_paths([path], tmp_path)


@pytest.mark.parametrize(("row", "line"), [
    ("1001,X,1e300,1,USD,", "o.csv row 2, column 'price' = '1e300': price of 1,000,000,000,000 or more: not a plausible amount; check the cell"),
    ("1001,X,99999999999999999999,1,USD,", "o.csv row 2, column 'price' = '99999999999999999999': price of 1,000,000,000,000 or more: not a plausible amount; check the cell"),
    ("1001,X,10,1e20,USD,", "o.csv row 2, column 'quantity' = '1e20': quantity over 1,000,000: not a plausible order line; check the cell"),
    ("1001,X,10,1e12,USD,", "o.csv row 2, column 'quantity' = '1e12': quantity over 1,000,000: not a plausible order line; check the cell"),
    ("1001,X,10,2.5,USD,", "o.csv row 2, column 'quantity' = '2.5': quantity must be a whole number of items"),
    ("1001,X,10,1,USD,9999-12-31T23:59:59Z", "o.csv row 2, column 'order_date' = '9999-12-31T23:59:59Z': date outside 2000-01-01 to 2100-12-31: not a plausible order, shipping, payment or deadline date; check the cell"),
    ("1001,X,10,1,USD,1899-01-01", "o.csv row 2, column 'order_date' = '1899-01-01': date outside 2000-01-01 to 2100-12-31: not a plausible order, shipping, payment or deadline date; check the cell"),
    ('1001,"A\x00B",10,1,USD,', "o.csv row 2, column 'product_title' = 'A\\x00B': contains a NUL byte (a damaged export); fix or retype the cell and drop the file again"),
])  # fmt: skip
def test_implausible_cell_rejects_its_row_only(tmp_path, row, line):
    res = _ingest(tmp_path, HEADER + row + "\n" + GOOD_ROW)
    assert [r.line() for r in res.rejects] == [line]
    assert res.records["orders"]["order_number"].tolist() == ["1002"]
    assert res.records["orders"]["price"].tolist() == [10.0]


def test_far_deadline_in_a_disputes_list_is_a_row_reject(tmp_path):
    res = _ingest(
        tmp_path,
        "provider_dispute_id,order_number,amount,response_due_by\n"
        "dp_1,1001,1e308,2025-06-01\ndp_2,1002,100,9999-12-31T23:59:59Z\ndp_3,1003,100,2025-06-01\n",
        "d.csv",
    )
    assert [(r.row, r.column) for r in res.rejects] == [(2, "amount"), (3, "response_due_by")]
    assert res.records["disputes"]["provider_dispute_id"].tolist() == ["dp_3"]


@pytest.mark.parametrize(("cells", "values", "ambiguous"), [
    (["1.234,56", "7,5"], [1234.56, 7.5], [False, False]),  # European
    (["1,234.56", "7.5"], [1234.56, 7.5], [False, False]),  # English
    (["1.234", "12,50"], [1234.0, 12.5], [False, False]),  # 1.234 read as the column shows
    (["1,234", "12.50"], [1234.0, 12.5], [False, False]),
    (["1,234", "12,5"], [1.234, 12.5], [False, False]),
    (["1.234.567", "1,234"], [1234567.0, 1.234], [False, False]),
    (["1,234"], [float("nan")], [True]),  # nothing tells: refused, never guessed
    (["1,234", "1.234,5", "9.5"], [float("nan"), 1234.5, 9.5], [True, False, False]),
    (["1.234", "9.5"], [1.234, 9.5], [False, False]),  # plain numbers stay plain
    (["€ 1 234,56", "$1,049.50"], [1234.56, 1049.5], [False, False]),
])  # fmt: skip
def test_decimal_mark_is_decided_per_column(cells, values, ambiguous):
    parsed = parse_number(pd.Series(cells, dtype="str"))
    assert parsed.values.tolist() == pytest.approx(values, nan_ok=True)
    assert parsed.ambiguous.tolist() == ambiguous


def test_plain_numbers_read_as_python_reads_them():
    """Plain columns are cast by Arrow (issue 32): the values float() gives, to the last bit."""
    cells = [
        "0.1",
        "+5",
        "-0",
        ".5",
        "5.",
        "1E5",
        "00012",
        "123456789.123456789",
        "1e400",
        "2e-320",
    ]
    parsed = parse_number(pd.Series(cells, dtype="str"))
    assert [v.hex() for v in parsed.values.tolist()] == [float(c).hex() for c in cells]


@pytest.mark.parametrize("cell", ["nan(1)", "1_000", " 7", "inf"])
def test_a_cell_arrow_alone_would_read_is_read_as_before(tmp_path, cell):
    """Arrow's cast takes 'nan(1)', which float() refuses: such a column keeps the old path."""
    res = _ingest(tmp_path, HEADER + f"1001,A,{cell},1,USD,\n" + GOOD_ROW)
    expected = {"nan(1)": ["o.csv row 2, column 'price' = 'nan(1)': not a number"],
                "inf": ["o.csv row 2, column 'price' = 'inf': not a finite number"]}  # fmt: skip
    assert [r.line() for r in res.rejects] == expected.get(cell, [])
    assert res.records["orders"]["order_number"].tolist()[-1] == "1002"


def test_european_prices_in_a_semicolon_csv(tmp_path):
    body = "order_number;product_title;price;quantity;currency_code\n1001;A;1.234,56;1;EUR\n"
    res = _ingest(tmp_path, body + "1002;B;12,50;2;EUR\n1003;C;1,234;1;EUR\n")
    assert res.rejects == []
    assert res.records["orders"]["price"].tolist() == [1234.56, 12.5, 1.234]


def test_ambiguous_number_rejects_its_row(tmp_path):
    res = _ingest(tmp_path, HEADER + '1001,A,"1,234",1,USD,\n' + GOOD_ROW)
    assert [r.line() for r in res.rejects] == [
        f"o.csv row 2, column 'price' = '1,234': {AMBIGUOUS}"
    ]


def test_one_cp1252_line_in_a_utf8_file_is_decoded_alone(tmp_path):
    body = (HEADER + "1001,Café crème,10,1,EUR,\n").encode()
    body += "1003,Thé glacé,5,1,EUR,\n".encode("cp1252") + GOOD_ROW.encode()
    res = _ingest(tmp_path, body)
    assert res.rejects == []
    assert res.records["orders"]["product_title"].tolist() == ["Café crème", "Thé glacé", "Good"]


def test_plain_cp1252_file_still_reads(tmp_path):
    res = _ingest(tmp_path, (HEADER + "1001,Crème brûlée,10,1,EUR,\n").encode("cp1252"))
    assert res.records["orders"]["product_title"].tolist() == ["Crème brûlée"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_excel_unicode_text_export_is_read(tmp_path, encoding):
    text = "\t".join(ORDERS) + "\r\n" + "1001\tCafé\t10\t1\tEUR\t2025-05-01\r\n"
    body = text.encode(encoding)
    if encoding == "utf-16-be":
        body = b"\xfe\xff" + body
    res = _ingest(tmp_path, body, "orders.txt")
    assert res.rejects == [] and res.unreadable == []
    assert res.records["orders"]["product_title"].tolist() == ["Café"]


def test_binary_file_is_still_refused(tmp_path):
    res = _ingest(tmp_path, b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)) * 8, "x.csv")
    assert "binary file" in res.rejects[0].reason


def test_repeated_required_header_refuses_the_table(tmp_path):
    res = _ingest(tmp_path, "order_number,product_title,price,quantity,currency_code,Price\n"
                  "1001,A,10,1,USD,12\n")  # fmt: skip
    assert [r.line() for r in res.rejects] == [
        "o.csv, column 'price': the header 'price' heads columns C and F; rename or delete one "
        "and drop the file again (until then this table is not used)"
    ]
    assert res.records["orders"].empty and res.files[0].problem


def test_repeated_optional_header_leaves_that_column_out(tmp_path):
    res = _ingest(tmp_path, "order_number,product_title,price,quantity,currency_code,sku,SKU\n"
                  "1001,A,10,1,USD,a,b\n")  # fmt: skip
    assert [r.line() for r in res.rejects] == [
        "o.csv, column 'sku': the header 'sku' heads columns F and G; rename or delete one "
        "and drop the file again (until then this column is not used)"
    ]
    assert res.records["orders"][["order_number", "sku"]].values.tolist() == [["1001", ""]]
