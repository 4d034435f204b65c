"""Inputs read and then used by no dispute, each said in a line (issue 45, items 10 and 11):
a statement file naming no dispute of the list, a SKU the products export lists under two
products. They hold nothing. Pure: records in, lines out (evidence/builder.py adds them to
the build's problems)."""

from __future__ import annotations

import pandas as pd

from dispute_evidence.evidence.products import shared_skus
from dispute_evidence.evidence.statement import unclaimed_statements
from dispute_evidence.ingest.tables import Reject


def statements_for_no_dispute(
    disputes: pd.DataFrame, statements: pd.DataFrame | None
) -> list[Reject]:
    """A line per statement file whose name gives no dispute's order number or id."""
    return [
        Reject(
            file,
            None,
            None,
            "file name",
            key,
            f"a statement for '{key}', which no dispute of the disputes list has (a row "
            "refused for a bad cell is not in it): it is sent to no dispute. Name it for the "
            "dispute's order number or dp_ id ('1041 statement.txt'), or fix the refused row",
        )
        for file, key in unclaimed_statements(disputes, statements)
    ]


def skus_of_two_products(products: pd.DataFrame | None) -> list[Reject]:
    """A line per SKU the products export lists under two products or more (it holds nothing:
    an order line of it gets the listing its title names, else none)."""
    return [
        Reject(
            file,
            None,
            None,
            "sku",
            sku,
            f"SKU {sku!r} is listed under {len(titles)} products ({', '.join(titles[:3])}): an "
            "order line of it is quoted the product its title names, and none when its title "
            "names neither. Give each product its own SKU and export the products again",
        )
        for file, sku, titles in shared_skus(products)
    ]


def said_unused(
    disputes: pd.DataFrame,
    records: dict[str, pd.DataFrame],
    unlisted: list[Reject],
    conflicts: list[Reject],
) -> tuple[list[Reject], list[Reject]]:
    """The build's lines with these added: statements for no dispute beside the unlisted
    disputes, SKUs of two products beside the rows and files not used."""
    return (
        unlisted + statements_for_no_dispute(disputes, records.get("statements")),
        conflicts + skus_of_two_products(records.get("products")),
    )
