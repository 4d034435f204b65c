"""The product as sold: each order line's listing (title, description, vendor, type) from the
products records (Shopify's products export, or a sheet of the canonical `products` layout),
found by the line's SKU, else by its title (Shopify names a line "Title - Variant"). A SKU
listed under two products (a merchant's copy-paste) is told apart by the line's title: the
listing whose title the line's names; when none does, no listing is quoted (never the other
product's).

The description is HTML as exported: made plain text here with the standard library's parser
(tags dropped, entities decoded, script and style left out). Image URLs are kept as listed and
never followed: the inbox is untrusted, and a reviewer sees the images a merchant drops as
files (`<sku> photo.jpg`, documents/files.py). The latest products export read wins for a
product. Pure: records in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

import pandas as pd

DESCRIPTION_CHARS = 2000  # of a description in the payload (the letter quotes its opening)
MAX_PRODUCTS = 5  # listings per dispute
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "section",
        "article",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "hr",
    }
)
_HIDDEN = frozenset({"script", "style", "template", "noscript", "head", "title", "iframe"})


class _Text(HTMLParser):
    """Text of an HTML fragment: block tags end a line, hidden elements say nothing."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "li" and not self.hidden:
            self.parts.append("• ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(html: str) -> str:
    """Plain text of an exported description (plain text passes through unchanged)."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


@dataclass(frozen=True)
class Listing:
    """One product as its listing sold it."""

    title: str
    description: str  # plain text
    vendor: str = ""
    product_type: str = ""
    images: tuple[str, ...] = ()  # URLs as listed: never fetched
    sku: str = ""  # the order line's SKU it was found by ('' by title)


def _key(text: str) -> str:
    return " ".join(str(text).split()).casefold()


@dataclass(frozen=True)
class Catalogue:
    """The listings, by SKU and by title (both case- and space-insensitive)."""

    by_sku: dict[str, Listing]
    by_title: dict[str, Listing]
    shared: dict[str, tuple[Listing, ...]] = field(default_factory=dict)  # SKUs of 2+ products

    @classmethod
    def of(cls, products: pd.DataFrame | None) -> Catalogue:
        """From the products records; of each product (its handle, else its title) only the
        rows of the latest file that lists it."""
        if products is None or products.empty:
            return cls({}, {})
        rows = products.fillna("").astype({"handle": str, "product_title": str})
        product = rows["handle"].where(rows["handle"] != "", "title:" + rows["product_title"])
        if "_seq" in rows:
            latest = rows.groupby(product)["_seq"].transform("max")
            rows, product = rows.loc[rows["_seq"] == latest], product.loc[rows["_seq"] == latest]
        by_sku: dict[str, Listing] = {}
        by_title: dict[str, Listing] = {}
        shared: dict[str, tuple[Listing, ...]] = {}
        for _, group in rows.groupby(product, sort=False):
            listing = _listing(group)
            if listing is None:
                continue
            for sku in dict.fromkeys(_key(s) for s in group["sku"].astype(str) if s.strip()):
                if sku in by_sku and by_sku[sku] is not listing:
                    shared[sku] = (*shared.get(sku, (by_sku[sku],)), listing)
                by_sku[sku] = listing
            if listing.title:
                by_title.setdefault(_key(listing.title), listing)
        return cls(by_sku, by_title, shared)

    def find(self, sku: str, title: str) -> Listing | None:
        """The listing of one order line: by SKU, else by title, else by the title before a
        variant ("Skateboard deck - Maple 8.25in" is "Skateboard deck"). A SKU of two
        products: the one the title names, else none."""
        if sku.strip() and _key(sku) in self.shared:
            return _named(self.shared[_key(sku)], title)
        if sku.strip() and (hit := self.by_sku.get(_key(sku))):
            return hit
        name = _key(title)
        while name:
            if hit := self.by_title.get(name):
                return hit
            name = name.rpartition(" - ")[0]
        return None

    def as_sold(self, lines: list[tuple[str, str]]) -> tuple[Listing, ...]:
        """The listings of an order's lines, (sku, title) each, each listing once: as the line
        found it (its SKU, and its title where the listing has none)."""
        if not (self.by_sku or self.by_title):  # no products export: nothing to look up
            return ()
        out: list[Listing] = []
        seen: list[Listing] = []
        for sku, title in lines:
            listing = self.find(sku, title)
            if listing is None or any(listing is x for x in seen):
                continue
            seen.append(listing)
            out.append(replace(listing, title=listing.title or title, sku=sku))
        return tuple(out[:MAX_PRODUCTS])


def shared_skus(products: pd.DataFrame | None) -> list[tuple[str, str, list[str]]]:
    """(file, SKU, the products' titles) of each SKU the latest products records list under
    more than one product: the analyst is told (the catalogue tells them apart by title)."""
    catalogue = Catalogue.of(products)
    if not catalogue.shared or products is None:
        return []
    rows = products.fillna("").astype({"sku": str, "_file": str})
    keys = rows["sku"].map(_key)
    out = []
    for sku, listings in sorted(catalogue.shared.items()):
        listed = rows.loc[keys == sku]
        if len(listed):  # as the export writes it (the key is casefolded)
            out.append(
                (
                    listed["_file"].iloc[-1],
                    listed["sku"].iloc[-1].strip(),
                    [x.title for x in listings],
                )
            )
    return out


def _named(listings: tuple[Listing, ...], title: str) -> Listing | None:
    """Of the listings sharing a SKU, the one whose title the line's title is (or begins
    with, before " - " and its variant); None when no one, or several, fit."""
    name = _key(title)
    while name:
        hits = [x for x in listings if _key(x.title) == name]
        if hits:
            return hits[0] if len(hits) == 1 else None
        name = name.rpartition(" - ")[0]
    return None


def _listing(group: pd.DataFrame) -> Listing | None:
    """One product's listing from its rows (the first row with each field; images in order)."""

    def first(field: str) -> str:
        values = [v for v in group[field].astype(str) if v.strip()] if field in group else []
        return values[0].strip() if values else ""

    description = _cut(html_text(first("description")), DESCRIPTION_CHARS)
    if not description:
        return None
    images = tuple(dict.fromkeys(u for u in group["image_url"].astype(str) if u.strip()))
    return Listing(
        first("product_title"), description, first("vendor"), first("product_type"), images
    )


def opening(description: str, limit: int = 320) -> str:
    """The description's opening as the letter quotes it: its first sentences, up to `limit`
    characters (cut at a word, never mid-word)."""
    prose = [line for line in description.split("\n") if not line.startswith("• ")]
    flat = " ".join(" ".join(prose or [description]).split())  # a list's items: not its prose
    sentences = re.split(r"(?<=[.!?])\s+", flat)
    said = ""
    for s in sentences:
        if said and len(said) + len(s) + 1 > limit:
            break
        said = f"{said} {s}".strip()
    return _cut(said, limit)
