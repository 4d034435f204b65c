"""One SKU listed under two products (issue 45, item 10): the order line's title says which
product it sold, and the letter and the API get that one's listing, never the other's; a line
whose title names neither gets no listing. The real CLI against the local API over loopback."""

from __future__ import annotations

import pandas as pd

from tests.integration.flows.test_case_wins import _inbox, _letter, _rows
from tests.integration.flows.test_product_as_sold import BODY, HEADER, _row
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

WHEELS = "<p>Soft 78A urethane cruiser wheels, 60 mm, set of four.</p>"


def test_a_sku_of_two_products_quotes_the_product_the_order_line_names(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"] * 2)
    write_rows(inbox / "orders.csv", ["order_number", "product_title", "sku", "price", "quantity",
               "currency_code", "customer_email", "order_date"], [
        [5000, "Skateboard deck - 8.25in", "SKB-825", "129", 1, "USD", "a@example.com", "2026-10-01"],
        [5001, "Mystery box", "SKB-825", "129", 1, "USD", "b@example.com", "2026-10-01"],
    ])  # fmt: skip
    write_rows(inbox / "products_export_1.csv", HEADER, [  # the wheels copied the deck's SKU
        _row(**{"Handle": "maple-deck", "Title": "Skateboard deck", "Body (HTML)": BODY,
                "Option1 Name": "Size", "Option1 Value": "8.25in", "Variant SKU": "SKB-825"}),
        _row(**{"Handle": "cruiser-wheels", "Title": "Cruiser wheels", "Body (HTML)": WHEELS,
                "Variant SKU": "SKB-825"}),
    ])  # fmt: skip
    run_cli("--inbox", str(inbox))

    extra = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]
    assert [p["title"] for p in extra["products_as_sold"]] == ["Skateboard deck"]
    letter = _letter(sb, "dp_test_0")
    assert "7-ply Canadian maple" in letter and "urethane" not in letter
    # a line whose title names neither product: no listing rather than a guess
    other = sb.snapshot()["dp_test_1"]["evidence"]["additional_evidence"]
    assert "products_as_sold" not in other
    assert "urethane" not in _letter(sb, "dp_test_1")
    # and the analyst is told, once, of the products export
    problems = pd.read_csv(tmp_path / "inbox.reports" / "latest" / "problems.csv", dtype=str)
    said = problems.loc[problems["problem"].fillna("").str.startswith("SKU 'SKB-825'")]
    assert len(said) == 1, problems
    assert said["file"].iloc[0] == "products_export_1.csv"
    assert "listed under 2 products (Skateboard deck, Cruiser wheels)" in said["problem"].iloc[0]
