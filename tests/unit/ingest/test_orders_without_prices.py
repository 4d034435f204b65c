"""A real orders export without its price columns (issue 45, item 3): Shopify's 34-column
export is read for what it has, with one line saying what it is and what to do; a sheet that
needs a mapping gets one that names a column for every field and works when followed."""

from __future__ import annotations

import re
import tomllib

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.ingest.mappings import parse_mappings
from tests.support.export_layouts import ORDER_1001, ORDER_1001_LINE2, SHOPIFY_79, write_csv

# A real store's export as it came: Shopify's own headers, no Lineitem price, Subtotal or Total
SHOPIFY_34 = ["Name", "Email", "Financial Status", "Paid at", "Fulfillment Status", "Fulfilled at",
              "Accepts Marketing", "Currency", "Shipping Method", "Created at", "Lineitem quantity",
              "Lineitem name", "Lineitem sku", "Lineitem requires shipping", "Lineitem fulfillment status",
              "Billing Name", "Billing Street", "Billing Address1", "Billing Address2", "Billing City",
              "Billing Zip", "Billing Province", "Billing Country", "Shipping Name", "Shipping Street",
              "Shipping Address1", "Shipping Address2", "Shipping City", "Shipping Zip",
              "Shipping Province", "Shipping Country", "Shipping Phone", "Notes", "Cancelled at"]  # fmt: skip


def test_shopify_orders_without_price_columns_are_read_for_what_they_have(tmp_path):
    assert len(SHOPIFY_34) == 34 and set(SHOPIFY_34) < set(SHOPIFY_79)
    f = write_csv(tmp_path / "orders_export.csv", SHOPIFY_34, [ORDER_1001, ORDER_1001_LINE2])
    res = ingest_paths([f], tmp_path)
    (summary,) = res.files
    assert (summary.kind, summary.layout, summary.rows_used) == (
        "orders",
        "Shopify orders export",
        2,
    )
    orders = res.records["orders"]
    assert orders["product_title"].tolist() == ["Linen shirt", 'Belt, "leather"\r\nbrown']
    assert orders["quantity"].tolist() == [2, 1] and orders["price"].isna().all()
    assert orders["shipping_address"].iloc[1].startswith("1 Main St")  # carried down its order
    assert orders["customer_name"].iloc[0] == "Ann Smith"
    (line,) = [r.line() for r in res.rejects]
    assert "Shopify orders export without its 'Lineitem price', 'Total' column(s)" in line, line
    assert "export it again with all its columns" in line
    assert "items, quantities, shipping and customer are read" in line


def _hint_mapping(line: str) -> dict:
    """The [[ingest.mapping]] the line suggests, as the config would hold it."""
    body = re.search(r"\[\[ingest\.mapping\]\] (.*?)\.(?: |$)", line).group(1)  # type: ignore[union-attr]
    keys = re.split(r", (?=(?:kind|columns|defaults|order_fields_on_first_row_only) = )", body)
    return tomllib.loads("[[mapping]]\n" + "\n".join(keys))


def test_the_mapping_hint_names_every_column_and_following_it_works(tmp_path):
    """Shopify's words without its own quantity header: the hint names `Name` and `Lineitem
    name` (the issue's hint left them out, and following it ended in exit 2), and the sheet
    is read once the mapping it gives is added."""
    header = ["Name", "Lineitem name", "Qty", "Currency", "Unit Price", "Email"]
    row = {"Name": "#1001", "Lineitem name": "Linen shirt", "Qty": "2", "Currency": "USD",
           "Unit Price": "49.50", "Email": "ann@example.com"}  # fmt: skip
    f = write_csv(tmp_path / "orders.csv", header, [row])
    (reject,) = ingest_paths([f], tmp_path).rejects
    assert (
        'order_number = "Name"' in reject.reason
        and 'product_title = "Lineitem name"' in reject.reason
    )
    mapping = parse_mappings(_hint_mapping(reject.reason), "hint")  # no "no column or default"
    res = ingest_paths([f], tmp_path, custom=mapping)
    assert res.rejects == [] and res.files[0].rows_used == 1
    order = res.records["orders"].iloc[0]
    assert (order["order_number"], order["product_title"], order["quantity"], order["price"]) == (
        "1001", "Linen shirt", 2, 49.5)  # fmt: skip
