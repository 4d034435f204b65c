"""Which sheets are products (issue 37 item 5): Shopify's products export by its own headers,
a canonical sheet naming each product by SKU or title; a Description column alone is no
products sheet, and a row that names no product is refused with one line."""

from __future__ import annotations

from dispute_evidence.ingest import ingest_file
from dispute_evidence.ingest.layouts import norm_header
from dispute_evidence.ingest.tables import recognise
from tests.support.engine_helpers import write_rows


def _headers(*names: str) -> dict[str, int]:
    return {norm_header(n): i for i, n in enumerate(names)}


def test_a_products_sheet_is_told_by_its_headers():
    shopify = _headers(
        "Handle", "Title", "Body (HTML)", "Vendor", "Type", "Variant SKU", "Image Src"
    )
    assert recognise(shopify, ())[0].name == "Shopify products export"  # type: ignore[index]
    assert recognise(_headers("SKU", "Description"), ())[0].name == "canonical products"  # type: ignore[index]
    # a retail sheet's Description column does not make it a products sheet
    assert recognise(_headers("InvoiceNo", "StockCode", "Description", "Quantity"), ()) is None


def test_a_product_row_that_names_no_product_is_refused_with_one_line(tmp_path):
    path = tmp_path / "products.csv"
    write_rows(path, ["SKU", "Title", "Description"],
               [["SK-1", "", "Maple deck."], ["", "", "Orphan words."]])  # fmt: skip
    [(kind, frame)], rejects, _ = ingest_file(path, path.name)
    assert kind == "products" and frame["sku"].tolist() == ["SK-1"]
    assert [r.line() for r in rejects] == [
        "products.csv row 3, column 'Description' = 'Orphan words.': names no product: a "
        "description needs the product's SKU (as the orders export's `Lineitem sku`) or its title"
    ]
