"""What the analyst knows and the exports do not, added to the facts by the builder: the
merchant's statement per dispute (evidence/statement.py) and each order line's listing as
sold (evidence/products.py). Pure: records in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from dispute_evidence.evidence.dispute_facts import Statement
from dispute_evidence.evidence.products import Catalogue, Listing
from dispute_evidence.evidence.statement import statements_by_dispute


@dataclass(frozen=True)
class KnownFacts:
    """What the analyst knows and the exports do not: the merchant's statement per dispute
    (evidence/statement.py) and each order line's listing as sold (evidence/products.py)."""

    said: dict[str, Statement]
    catalogue: Catalogue
    order_cols: dict[str, list[Any]]

    @classmethod
    def of(
        cls, disputes: pd.DataFrame, records: dict[str, pd.DataFrame], oc: dict[str, list[Any]]
    ) -> KnownFacts:
        """From the current dispute rows, the records and the builder's order-line columns."""
        said = statements_by_dispute(disputes, records.get("statements"))
        return cls(said, Catalogue.of(records.get("products")), oc)

    def of_dispute(
        self, pid: str, lines: list[int]
    ) -> tuple[Statement | None, tuple[Listing, ...]]:
        """One dispute's statement, and its order lines' listings as sold."""
        if not (self.catalogue.by_sku or self.catalogue.by_title):  # no products export
            return self.said.get(pid), ()
        oc = self.order_cols
        listed = self.catalogue.as_sold([(oc["sku"][i], oc["product_title"][i]) for i in lines])
        return self.said.get(pid), listed
