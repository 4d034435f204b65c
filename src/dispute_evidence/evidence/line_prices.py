"""Prices of order lines the orders export gives none (Shopify's export without its price
columns), from the products export where it has them (issue 45 item 3): the product's
`Variant Price` found by the line's SKU, else by its title only when exactly one priced
product row bears that exact title. Each price found says where it came from; each line still
without one says what is missing, and its dispute waits (evidence/order_lines.py).

Never guessed: a SKU listed at two prices (in the latest products file that lists it) gives
none; the disputes list's amount is never a line's price (it may hold shipping and tax). The
listed price is the listing's when exported, in the order line's currency. Pure: records in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd


def _key(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


Listed = tuple[float | None, str]  # a price (None: two listed) and the file that lists it


@dataclass(frozen=True)
class ListedPrices:
    """Each SKU's and each title's price as the products export lists it, with the file that
    lists it; None where that file lists two prices for it (told, never picked)."""

    by_sku: dict[str, Listed]
    by_title: dict[str, Listed]
    file: str  # the latest products file read, named where a line finds no price ('' none)

    @classmethod
    def of(cls, products: pd.DataFrame | None) -> ListedPrices:
        """From the products records: of each SKU (title) only the rows of the latest file
        that lists it with a price."""
        if products is None or products.empty or "price" not in products:
            return cls({}, {}, "")
        rows = products.loc[pd.to_numeric(products["price"], errors="coerce").notna()]
        if rows.empty:
            return cls({}, {}, str(products["_file"].iloc[-1]) if "_file" in products else "")
        file = str(rows["_file"].iloc[-1]) if "_file" in rows else "the products export"
        return cls(_priced(rows, "sku"), _priced(rows, "product_title"), file)

    def find(self, sku: str, title: str) -> tuple[float | None, str]:
        """A line's price and where it came from, or None and what is missing."""
        where = f"the products export ({self.file})" if self.file else ""
        if sku.strip():
            if _key(sku) in self.by_sku:
                return self._said(self.by_sku[_key(sku)], f"SKU {sku.strip()}")
            if not where:
                return None, "no products export was read"
            return None, f"{where} lists no price for SKU {sku.strip()}"
        if not where:
            return None, "no SKU, and no products export was read"
        if (hit := self.by_title.get(_key(title))) and hit[0] is not None:
            return self._said(hit, f"title '{title}'")
        if hit:
            return None, f"no SKU, and {where} has more than one priced row titled '{title}'"
        return None, f"no SKU, and no product of {where} is titled '{title}' with a price"

    @staticmethod
    def _said(hit: Listed, by: str) -> tuple[float | None, str]:
        price, where = hit[0], f"the products export ({hit[1]})"
        if price is None:
            return None, f"{where} lists {by} at more than one price"
        return price, f"price from {where}, {by} (the listing's price when exported)"


def _priced(rows: pd.DataFrame, field: str) -> dict[str, Listed]:
    """Each value of `field` (case- and space-insensitive) with its one price, or None when
    the latest file listing it gives more than one (a title: more than one priced row)."""
    if field not in rows:
        return {}
    keys = rows[field].fillna("").map(_key)
    rows = rows.assign(_k=keys, _p=pd.to_numeric(rows["price"], errors="coerce"))
    rows = rows.loc[rows["_k"] != ""]
    if "_seq" in rows:
        rows = rows.loc[rows["_seq"] == rows.groupby("_k")["_seq"].transform("max")]
    out: dict[str, Listed] = {}
    for key, group in rows.groupby("_k", sort=False):
        prices = set(group["_p"].tolist())
        one = len(prices) == 1 and (field == "sku" or len(group) == 1)
        file = str(group["_file"].iloc[-1]) if "_file" in group else "as read"
        out[str(key)] = (float(group["_p"].iloc[0]) if one else None, file)
    return out


def fill_prices(oc: dict[str, list[Any]], products: pd.DataFrame | None) -> None:
    """Give each order line without a price its listed one (`oc["price"]`), saying where it
    came from (`oc["_price_from"]`, by line) or what is missing (`oc["_price_missing"]`);
    both empty lists when every line has a price (no lookup made, no list of 1,000,000 '');
    `oc["_unpriced"]` keeps the lines still without one."""
    oc["_price_from"], oc["_price_missing"] = [], []
    if not oc["_unpriced"]:
        return
    oc["_price_from"], oc["_price_missing"] = [""] * len(oc["price"]), [""] * len(oc["price"])
    listed = ListedPrices.of(products)
    still = []
    for i in oc["_unpriced"]:
        price, said = listed.find(str(oc["sku"][i] or ""), str(oc["product_title"][i] or ""))
        if price is None:
            oc["_price_missing"][i] = said
            still.append(i)
        else:
            oc["price"][i], oc["_price_from"][i] = price, said
    oc["_unpriced"] = still
