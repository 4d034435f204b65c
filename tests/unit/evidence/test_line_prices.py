"""Prices of an orders export without its price columns (issue 45 item 3): each line takes its
product's `Variant Price` from Shopify's products export, by SKU (else by a title only one
priced row bears), saying where it came from; a line no product prices keeps its dispute
waiting, and the reason names what is missing. Real exports read by ingest, then built."""

from __future__ import annotations

import orjson
import pandas as pd

from dispute_evidence.evidence.builder import build_evidence
from dispute_evidence.evidence.line_prices import ListedPrices
from dispute_evidence.ingest import ingest_paths
from tests.support.export_layouts import write_csv
from tests.unit.ingest.test_orders_without_prices import SHOPIFY_34

PRODUCTS = ["Handle", "Title", "Body (HTML)", "Vendor", "Variant SKU", "Variant Price"]
BOOT = {"Name": "#5000", "Email": "c@example.com", "Currency": "CAD", "Lineitem quantity": "2",
        "Lineitem name": "Botte d'hiver - 38", "Lineitem sku": "BH-38", "Billing Name": "C"}  # fmt: skip
SCARF = {"Name": "#5000", "Lineitem quantity": "1", "Lineitem name": "Foulard"}
LISTED = [
    {"Handle": "botte", "Title": "Botte d'hiver", "Body (HTML)": "<p>Cuir</p>",
     "Variant SKU": "BH-38", "Variant Price": "189.00"},
    {"Handle": "botte", "Variant SKU": "BH-39", "Variant Price": "199.00"},
    {"Handle": "foulard", "Title": "Foulard", "Body (HTML)": "<p>Laine</p>",
     "Variant Price": "35.00"},
]  # fmt: skip


def _built(tmp_path, orders, products=None):
    files = [write_csv(tmp_path / "orders_export.csv", SHOPIFY_34, orders)]
    files.append(tmp_path / "disputes.csv")
    files[-1].write_text("provider_dispute_id,order_number,reason\ndp_1,#5000,general\n")
    if products is not None:
        files.append(write_csv(tmp_path / "products_export.csv", PRODUCTS, products))
    return build_evidence(ingest_paths(files, tmp_path).records)


def test_a_line_without_a_price_takes_its_products_price_by_sku_and_says_so(tmp_path):
    built = _built(tmp_path, [BOOT, SCARF], LISTED)
    assert built.incomplete == [], built.incomplete
    (payload,) = built.payloads
    evidence = orjson.loads(payload.body)
    assert [(p["product_title"], p["price"], p["currency_code"]) for p in evidence["products"]] == [
        ("Botte d'hiver - 38", 189.0, "CAD"), ("Foulard", 35.0, "CAD")]  # fmt: skip
    sources = [p["source"] for p in evidence["additional_evidence"]["line_prices"]]
    assert sources == [
        "price from the products export (products_export.csv), SKU BH-38 (the listing's price "
        "when exported)",
        "price from the products export (products_export.csv), title 'Foulard' (the listing's "
        "price when exported)",
    ]


def test_without_a_products_export_the_dispute_waits_and_names_what_is_missing(tmp_path):
    built = _built(tmp_path, [BOOT])
    assert built.payloads == []
    (waiting,) = built.incomplete
    assert not waiting.held
    assert waiting.reason.startswith("waiting for prices: orders_export.csv gives no price for 1")
    assert "'Botte d'hiver - 38': no products export was read" in waiting.reason
    assert "Shopify's products export (its Variant Price by Variant SKU)" in waiting.reason


def test_no_price_is_guessed_from_a_sku_missing_or_listed_twice_or_a_shared_title(tmp_path):
    listed = [*LISTED, {"Handle": "foulard", "Variant SKU": "", "Variant Price": "39.00"}]
    other = {**BOOT, "Lineitem sku": "BH-40"}
    built = _built(tmp_path, [other, SCARF], listed)
    assert built.payloads == []
    (waiting,) = built.incomplete
    assert "gives no price for 2 of the order's 2 line(s)" in waiting.reason, waiting.reason
    assert "products_export.csv) lists no price for SKU BH-40" in waiting.reason
    assert "more than one priced row titled 'Foulard'" in waiting.reason
    b2 = {**LISTED[1], "Handle": "b2", "Title": "B2", "Body (HTML)": "x", "Variant Price": "150"}
    p2 = write_csv(tmp_path / "p2.csv", PRODUCTS, [*LISTED, b2])
    twice = ListedPrices.of(ingest_paths([p2], tmp_path).records["products"])
    said = "the products export (p2.csv) lists SKU BH-39 at more than one price"
    assert twice.find("BH-39", "") == (None, said)
    assert twice.find("BH-38", "")[0] == 189.0


def test_a_price_names_the_products_file_that_lists_it_and_the_latest_file_wins(tmp_path):
    def read(name, rows, seq):
        frame = ingest_paths([write_csv(tmp_path / name, PRODUCTS, rows)], tmp_path)
        return frame.records["products"].assign(_seq=seq)

    old = read("products_may.csv", LISTED, 1)
    new = read("products_june.csv", [{**LISTED[0], "Variant Price": "179.00"}], 2)
    listed = ListedPrices.of(pd.concat([old, new], ignore_index=True))
    assert listed.find("BH-38", "") == (179.0, "price from the products export "
                                        "(products_june.csv), SKU BH-38 (the listing's price "
                                        "when exported)")  # fmt: skip
    assert listed.find("BH-39", "")[1].startswith("price from the products export "
                                                  "(products_may.csv), SKU BH-39")  # fmt: skip
