"""The product as sold (issue 37 item 5; issue 36 finding 7): Shopify's products export, read
unedited, gives each order line's listing by SKU (else title); its description, HTML made
plain text, reaches the not-as-described letter quoted and cited to the products export, and
the API's additional_evidence. A product photo dropped as `<sku> photo.jpg` goes to every
dispute whose order has that SKU. Image URLs are kept as text, never fetched. The real CLI
against the local API over loopback."""

from __future__ import annotations

import io
import json

from PIL import Image
from pypdf import PdfReader

from tests.integration.flows.test_case_wins import _inbox, _letter, _rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

# Shopify's products export header, as Admin > Products > Export writes it
HEADER = ["Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags",
          "Published", "Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value",
          "Option3 Name", "Option3 Value", "Variant SKU", "Variant Grams",
          "Variant Inventory Tracker", "Variant Inventory Qty", "Variant Inventory Policy",
          "Variant Fulfillment Service", "Variant Price", "Variant Compare At Price",
          "Variant Requires Shipping", "Variant Taxable", "Variant Barcode", "Image Src",
          "Image Position", "Image Alt Text", "Gift Card", "SEO Title", "SEO Description",
          "Variant Image", "Variant Weight Unit", "Variant Tax Code", "Cost per item",
          "Status"]  # fmt: skip
BODY = ("<p>Hand-pressed <strong>7-ply Canadian maple</strong> deck, 8.25&quot; wide.</p>"
        "<p>The veneer's colour may vary slightly from the photos; this is not a defect.</p>"
        "<script>fetch('https://evil.test/x')</script><ul><li>Medium concave</li></ul>")  # fmt: skip
IMAGE_1 = "https://cdn.shopify.com/s/files/1/0001/products/deck-1.jpg"
IMAGE_2 = "https://cdn.shopify.com/s/files/1/0001/products/deck-2.jpg"


def _row(**cells: str) -> list[str]:
    return [cells.get(h, "") for h in HEADER]


def _products_export(path) -> None:
    """One product with two variants and a second image: the product's own fields only on the
    first row of its handle, as Shopify writes them."""
    write_rows(path, HEADER, [
        _row(**{"Handle": "maple-deck", "Title": "Skateboard deck", "Body (HTML)": BODY,
                "Vendor": "Acme Boards", "Type": "Decks", "Tags": "deck, maple",
                "Published": "true", "Option1 Name": "Size", "Option1 Value": "8.25in",
                "Variant SKU": "SKB-825", "Variant Price": "129.00", "Image Src": IMAGE_1,
                "Image Position": "1", "Status": "active"}),
        _row(**{"Handle": "maple-deck", "Option1 Value": "8.5in", "Variant SKU": "SKB-850",
                "Variant Price": "135.00"}),
        _row(**{"Handle": "maple-deck", "Image Src": IMAGE_2, "Image Position": "2"}),
    ])  # fmt: skip


def _photo(path) -> None:
    Image.new("RGB", (40, 30), (200, 150, 90)).save(path, "JPEG")


def _pdf_text(sb, pid: str) -> str:
    names = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (names[-1],)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


def test_the_listing_as_sold_reaches_the_letter_and_the_photo_every_dispute_of_its_sku(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(3))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"] * 3)
    write_rows(inbox / "orders.csv", ["order_number", "product_title", "sku", "price", "quantity",
               "currency_code", "customer_email", "order_date"], [
        [5000, "Skateboard deck - 8.25in", "SKB-825", "129", 1, "USD", "a@example.com", "2026-10-01"],
        [5001, "Skateboard deck - 8.5in", "SKB-850", "129", 1, "USD", "b@example.com", "2026-10-01"],
        [5002, "Grip tape", "GT-1", "129", 1, "USD", "c@example.com", "2026-10-01"],
    ])  # fmt: skip
    _products_export(inbox / "products_export_1.csv")
    _photo(inbox / "SKB-825 photo.jpg")
    out = run_cli("--inbox", str(inbox))
    assert "products_export_1.csv" not in out  # read whole: no problem line names it

    sold = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]["products_as_sold"]
    assert sold == [{
        "title": "Skateboard deck", "sku": "SKB-825", "vendor": "Acme Boards",
        "product_type": "Decks", "image_urls": [IMAGE_1, IMAGE_2],
        "description": "Hand-pressed 7-ply Canadian maple deck, 8.25\" wide.\nThe veneer's "
                       "colour may vary slightly from the photos; this is not a defect.\n"
                       "• Medium concave",
    }]  # fmt: skip
    # the second variant's line finds the same listing by its own SKU
    other = sb.snapshot()["dp_test_1"]["evidence"]["additional_evidence"]["products_as_sold"]
    assert [p["sku"] for p in other] == ["SKB-850"]
    assert "products_as_sold" not in sb.snapshot()["dp_test_2"]["evidence"]["additional_evidence"]

    letter = _letter(sb, "dp_test_0")
    assert ("as sold, the listing of Skateboard deck described it as: “Hand-pressed 7-ply "
            "Canadian maple deck, 8.25\" wide. The veneer's colour may vary slightly from the "
            "photos; this is not a defect.") in letter  # fmt: skip
    assert "evil.test" not in json.dumps(sb.snapshot()) and "fetch(" not in letter
    # its source is named for the analyst (the sources appendix of the review packet), never
    # as a footnote on the reviewer's pages (issue 36, finding 10)
    from dispute_evidence.evidence.letter import SOURCE_WORDS

    assert "the products export (the product's listing as sold)" in SOURCE_WORDS.values()
    assert "products export" not in letter

    files = {pid: [f["file_name"] for f in sb.snapshot()[pid]["files"]] for pid in
             ("dp_test_0", "dp_test_1", "dp_test_2")}  # fmt: skip
    assert "SKB-825 photo.jpg" in files["dp_test_0"]
    assert not any("photo" in n for n in files["dp_test_1"] + files["dp_test_2"])
    assert not (inbox / "SKB-825 photo.jpg").exists()  # archived once, like any matched file


def test_a_canonical_products_sheet_finds_a_line_by_title_and_a_photo_goes_to_each_order(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"] * 2)
    write_rows(inbox / "orders.csv", ["order_number", "product_title", "sku", "price", "quantity",
               "currency_code", "customer_email"], [
        [5000, "Wool scarf", "SC-1", "129", 1, "USD", "a@example.com"],
        [5001, "Wool scarf", "SC-1", "129", 1, "USD", "b@example.com"],
    ])  # fmt: skip
    write_rows(
        inbox / "products.csv",
        ["Title", "Description", "Image URL"],
        [["Wool scarf", "Lambswool, 180 cm. Hand wash only.", "https://x.test/s.jpg"]],
    )
    _photo(inbox / "SC-1_photo_2.jpg")
    run_cli("--inbox", str(inbox))
    for pid in ("dp_test_0", "dp_test_1"):
        sold = sb.snapshot()[pid]["evidence"]["additional_evidence"]["products_as_sold"]
        assert sold[0]["description"] == "Lambswool, 180 cm. Hand wash only."
        assert "SC-1_photo_2.jpg" in [f["file_name"] for f in sb.snapshot()[pid]["files"]]
    assert "“Lambswool, 180 cm. Hand wash only.”" in _letter(sb, "dp_test_1")
