"""The delimiter is guessed from the records of the file's head, quotes respected (issue 45,
item 8): a prose cell full of semicolons (a statement, a product description's inline styles
and HTML entities) never flips a comma file to `;`, and a real semicolon file stays one."""

from __future__ import annotations

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.ingest.readers import _sniff_delimiter
from tests.support.export_layouts import write_csv

# 189 characters, nine semicolons, commas too (so the cell is quoted)
STATEMENT = (
    "We shipped on 2 Dec; the tracking shows delivery; the customer wrote twice; we offered a "
    "return; no reply; the parcel was signed for; photos attached; policy accepted; no refund; due, sorry"
)
SHOPIFY_PRODUCTS = ["Handle", "Title", "Body (HTML)", "Vendor", "Type", "Tags", "Published",
                    "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price", "Image Src"]  # fmt: skip


def _styled(i: int) -> str:
    return (
        f'<p style="color: #333; font-size: {12 + i}px; margin: 0;">Chaussure d&eacute;tente'
        '&nbsp;&mdash; cuir &amp; su&egrave;de</p><ul><li style="list-style: none;">'
        f"Taille&nbsp;{38 + i}</li></ul>" + "&#8212;" * i
    )


def test_nine_semicolons_in_a_statement_leave_the_disputes_list_a_comma_file(tmp_path):
    assert len(STATEMENT) == 189 and STATEMENT.count(";") == 9
    header = ["provider_dispute_id", "order_number", "reason", "statement"]
    rows = [{"provider_dispute_id": "dp_1", "order_number": "1001", "reason": "fraudulent",
             "statement": STATEMENT}]  # fmt: skip
    res = ingest_paths([write_csv(tmp_path / "disputes.csv", header, rows)], tmp_path)
    assert [r.line() for r in res.rejects] == []
    assert res.records["disputes"]["statement"].tolist() == [STATEMENT]


def test_a_products_export_with_inline_styles_and_entities_is_recognised(tmp_path):
    rows = [
        {"Handle": f"chaussure-{i}", "Title": f"Chaussure {i}", "Body (HTML)": _styled(i),
         "Vendor": "Atelier", "Variant SKU": f"CH-{i}", "Variant Price": "129.00"}
        for i in range(4)
    ]  # fmt: skip
    res = ingest_paths(
        [write_csv(tmp_path / "products_export.csv", SHOPIFY_PRODUCTS, rows)], tmp_path
    )
    (summary,) = res.files
    assert (summary.kind, summary.layout, summary.rows_used) == (
        "products",
        "Shopify products export",
        4,
    )
    assert res.records["products"]["description"].tolist() == [_styled(i) for i in range(4)]


def test_the_guess_respects_quotes_and_line_breaks_in_cells():
    assert _sniff_delimiter('a,b,c\n1,"x; y; z; w",3\n2,"p;\nq;r",4\n') == ","
    assert _sniff_delimiter("a;b;c\n1;2,5;3\n2;7,5;4\n") == ";"  # decimal commas
    assert _sniff_delimiter("a\tb\n1\t2\n") == "\t"
    assert _sniff_delimiter("order_number\n1001\n") == ","  # one column: nothing to split


def test_a_semicolon_file_with_quoted_commas_stays_a_semicolon_file(tmp_path):
    header = ["provider_dispute_id", "order_number", "statement"]
    rows = [{"provider_dispute_id": f"dp_{i}", "order_number": str(1000 + i),
             "statement": "shipped, delivered, signed, photographed"} for i in range(3)]  # fmt: skip
    res = ingest_paths([write_csv(tmp_path / "d.csv", header, rows, delimiter=";")], tmp_path)
    assert res.files[0].rows_used == 3 and res.rejects == []
