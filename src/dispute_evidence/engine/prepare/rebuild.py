"""A night's build: rebuild only the disputes whose inputs changed since the last build.

A payload is made from its dispute's rows in the disputes lists and its order's lines and
shipments (evidence/builder.py). A dispute none of whose rows, order lines or shipments arrived
since the last build, under the same merchant profile, rules and held orders, would get the
very same payload again: it is not rebuilt, and its records are not read. The disputes to
rebuild are those named by the new rows, those whose order the new rows name, and (so the build
problems of an order are replaced whole) every dispute sharing an order with them.

Everything is rebuilt (as the first build) when the last build's inputs changed, and whenever
what one payload holds can rest on rows of other orders: a payments export (charges join orders
by number or by payment reference, across the whole history) or a card fingerprint in any
order (Visa CE 3.0 searches the card's whole history). tests/unit/engine/test_rebuild.py checks
that what is rebuilt equals a full rebuild on a changing inbox.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from dispute_evidence.evidence.builder import claimed_orders
from dispute_evidence.evidence.ce3 import Ce3
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.fact_sources import source_keys
from dispute_evidence.names import NearNames
from dispute_evidence.state.holders import HasKept, HasRecords, HasRuns, HasScoped
from dispute_evidence.state.kept import KeptVerdict


class RebuildParts(HasKept, HasRecords, HasRuns, HasScoped, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


BUILT_SEQ = "built_seq"  # meta: the last ingest the last build covered (store/disputes.py)
BUILT_INPUTS = "built_inputs"  # meta: the build inputs (rules, merchant) it used
BUILT_HELD = "built_held_orders"  # meta: a digest of the held orders the last build used
MAX_WIDENING = 20  # rounds of "disputes sharing an order"; past it, everything is rebuilt


@dataclass(frozen=True)
class Scope:
    """What a build rebuilds: these disputes, from the rows of these orders."""

    disputes: frozenset[str]
    orders: frozenset[str]


def held_digest(held: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(held, sort_keys=True).encode()).hexdigest()


def changed_scope(store: RebuildParts, inputs: str, held: dict[str, str]) -> Scope | None:
    """The disputes whose inputs changed since the last build; None: rebuild them all."""
    built = store.runs.get_meta(BUILT_SEQ)
    if built is None or store.runs.get_meta(BUILT_INPUTS) != inputs:
        return None
    if store.runs.get_meta(BUILT_HELD) != held_digest(held) or _joins_across_orders(store):
        return None
    seq = int(built)
    if store.scoped.keys_since("products", seq, "handle"):  # a listing: any order with its SKU
        return None
    orders: set[str] = set()
    for kind in ("disputes", "orders", "shipments", "refunds", "statements"):
        orders |= store.scoped.keys_since(kind, seq, "order_number")
    pids = store.scoped.keys_since("disputes", seq, "provider_dispute_id")
    pids |= store.scoped.keys_since("statements", seq, "provider_dispute_id")
    return _widen(store, pids, orders)


def _joins_across_orders(store: RebuildParts) -> bool:
    """A payments export, a card named on an order, or an access log (joined by account): a
    payload may rest on other orders."""
    return (
        store.scoped.any_record("payments")
        or store.scoped.any_record("orders", "card_fingerprint")
        or store.scoped.any_record("activity")
    )


def _widen(store: RebuildParts, pids: set[str], orders: set[str]) -> Scope | None:
    """Add the disputes naming these orders and the orders they name, until nothing is new."""
    for _ in range(MAX_WIDENING):
        more_pids = pids | store.scoped.keys_where(
            "disputes", "provider_dispute_id", "order_number", orders
        )
        more_orders = orders | store.scoped.keys_where(
            "disputes", "order_number", "provider_dispute_id", more_pids
        )
        if (more_pids, more_orders) == (pids, orders):
            return Scope(frozenset(pids), frozenset(orders))
        pids, orders = more_pids, more_orders
    return None


def scoped_records(store: RebuildParts, scope: Scope) -> dict[str, pd.DataFrame]:
    """The records a build of `scope` reads: its disputes' rows, its orders' lines,
    shipments and refunds (no payments: a state with any is rebuilt whole), the statements
    naming them and every product listing (few: one export's worth)."""
    named = [
        store.scoped.records_where("statements", "provider_dispute_id", scope.disputes),
        store.scoped.records_where("statements", "order_number", scope.orders),
    ]
    statements = pd.concat(named, ignore_index=True).drop_duplicates()
    return {
        "statements": statements.sort_values(["_seq", "_row"], kind="stable"),
        "products": store.records.load_records(["products"])["products"],
        "disputes": store.scoped.records_where("disputes", "provider_dispute_id", scope.disputes),
        "orders": store.scoped.records_where("orders", "order_number", scope.orders),
        "shipments": store.scoped.records_where("shipments", "order_number", scope.orders),
        "payments": store.scoped.records_where("payments", "payment_id", ()),
        "refunds": store.scoped.records_where("refunds", "order_number", scope.orders),
    }


def unclaimed_orders(store: RebuildParts) -> Callable[[], NearNames]:
    """The orders no dispute names, as a full build counts them (read only when a dispute
    without its order asks "did you mean")."""

    def orders() -> NearNames:
        listed = store.records.load_records(["disputes"])["disputes"]
        return NearNames(store.scoped.all_keys("orders", "order_number") - claimed_orders(listed))

    return orders


def keep_build_problems(
    store: RebuildParts, scope: Scope | None, found: list[dict[str, Any]], source: str
) -> list[dict[str, Any]]:
    """The build's problems: `found`, and (for a build of a scope) the last build's about
    orders outside it (each names the order of its row)."""
    if scope is None:
        return found
    kept = [
        p
        for p in store.scoped.open_problems_of(source)
        if str(p.get("value") or "") not in scope.orders
    ]
    return kept + found


def keep_ce3(store: RebuildParts, scope: Scope | None, verdicts: dict[str, Ce3]) -> None:
    """Every fraud dispute's CE 3.0 verdict, kept in the state for the report: this build's,
    and the last build's for the disputes outside `scope`."""
    fresh = {
        pid: KeptVerdict(v.text, v.qualifies, v.with_ip_or_device) for pid, v in verdicts.items()
    }
    store.kept.keep_ce3_verdicts(fresh, within=None if scope is None else scope.disputes)


def source_records(store: RebuildParts, payloads: dict[str, DisputeFacts]) -> dict[str, Any]:
    """The rows the letters' sources name for these disputes' facts (evidence/fact_sources.py), read
    by key."""
    keys = source_keys(payloads)
    return {
        "disputes": store.scoped.records_where("disputes", "provider_dispute_id", keys["dispute"]),
        "orders": store.scoped.records_where(
            "orders", "order_number", keys["order"] | keys["history"]
        ),
        "payments": store.scoped.records_where("payments", "payment_id", keys["payments"]),
        "shipments": store.scoped.records_where("shipments", "tracking_number", keys["shipments"]),
        "refunds": store.scoped.records_where("refunds", "order_number", keys["refunds"]),
    }
