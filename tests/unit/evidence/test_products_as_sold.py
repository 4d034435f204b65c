"""The product as sold, pure (issue 37 item 5): an exported description made plain text
safely, and each order line's listing found by SKU, else by title (Shopify's "Title - Variant")."""

from __future__ import annotations

import pandas as pd

from dispute_evidence.evidence.products import Catalogue, html_text, opening


def test_html_is_made_plain_text_and_nothing_hidden_or_active_is_kept():
    html = ("<style>p{color:red}</style><h2>Deck</h2><p>Maple &amp; resin,<br>8.25&quot;"
            "</p><script>document.location='https://evil.test'</script><iframe src=x>y"
            "</iframe><!-- note --><ul><li>one</li><li>two</li></ul>")  # fmt: skip
    assert html_text(html) == 'Deck\nMaple & resin,\n8.25"\n• one\n• two'
    assert html_text("Plain text, < 5 kg") == "Plain text, < 5 kg"


def test_the_letter_quotes_the_opening_sentences_cut_at_a_word():
    text = "First sentence here. Second one. " + "word " * 200
    assert opening(text) == "First sentence here. Second one."
    assert opening("x" * 10 + " " + "y" * 400).endswith("…")


def _products(rows: list[dict], seq: int) -> pd.DataFrame:
    frame = pd.DataFrame(rows).reindex(columns=["handle", "sku", "product_title", "description",
                                                "image_url", "vendor", "product_type"])  # fmt: skip
    return frame.fillna("").assign(_file="p.csv", _sheet="", _row=range(2, len(rows) + 2), _seq=seq)


def test_a_line_finds_its_listing_by_sku_else_by_its_title_and_the_latest_export_wins():
    old = _products([{"handle": "deck", "sku": "SKB-1", "product_title": "Deck",
                      "description": "<p>Old words.</p>"}], seq=1)  # fmt: skip
    new = _products([{"handle": "deck", "sku": "SKB-1", "product_title": "Deck",
                      "description": "<p>New words.</p>"},
                     {"handle": "deck", "sku": "skb-2"}], seq=2)  # fmt: skip
    catalogue = Catalogue.of(pd.concat([old, new], ignore_index=True))
    assert catalogue.find("SKB-1", "anything").description == "New words."  # type: ignore[union-attr]
    assert catalogue.find("SKB-2", "").title == "Deck"  # type: ignore[union-attr]
    assert catalogue.find("", "Deck - Maple 8.25in").title == "Deck"  # type: ignore[union-attr]
    assert catalogue.find("NOPE", "Wheels") is None
    (sold,) = catalogue.as_sold([("SKB-1", "Deck"), ("SKB-2", "Deck - 8.5in")])
    assert (sold.title, sold.sku, sold.description) == ("Deck", "SKB-1", "New words.")
