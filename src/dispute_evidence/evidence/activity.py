"""The merchant's access or activity log (issue 44 item 10; ingest/layouts.py kind "activity":
time, account, event, IP, device): for a licence, a download or a SaaS account, what was
delivered is use. Each dispute's facts get the events of its customer's account (the order's
email or customer account id) from the order's day on, oldest first, that belong to it: the
log is the digital order's (evidence/digital.py: nothing shipped, a licence, a download, a plan),
never an order of physical goods, and of a customer's digital orders each event belongs to the
latest bought before it (a licence's log is not argued for another order). An order the orders
export gives no IP or device for takes the ones its account was seen with at checkout (an event
on the order's day, at or before its time), so the log feeds Visa CE 3.0 too.

A CE 3.0 value must be the purchase's own (shared spec: never fuzzy): only an event at or
before the order's time on its day counts; an order stamped with a day alone counts only an
event named for the purchase (checkout, purchase, order, payment, subscribe). Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dispute_evidence.evidence.digital import DIGITAL
from dispute_evidence.evidence.dispute_facts import Activity

MAX_KEPT = 12  # events kept per dispute: the first two and the latest ten (all are counted)
FIRST = 2
_PURCHASE = re.compile(r"checkout|purchase|order|payment|subscri|sign.?up|paid", re.I)
_COLUMNS = ("activity_at", "account", "event", "ip", "device")


def _time(value: Any) -> str:
    """ "2026-11-03T10:14:00+00:00" as "2026-11-03 10:14:00" (comparable with the log's)."""
    return str(value or "").strip().replace("T", " ")[:19]


def _key(value: Any) -> str:
    return " ".join(str(value or "").split()).lower()


@dataclass
class ActivityLog:
    """The log's events by account (lower case), oldest first; read when first asked."""

    records: dict[str, pd.DataFrame]
    _by_account: dict[str, list[Activity]] | None = field(default=None, init=False)
    _accounts: dict[str, tuple[str, ...]] | None = field(default=None, init=False)
    # account -> its digital orders as (ordered at, order number), oldest first
    _owners: dict[str, list[tuple[str, str]]] | None = field(default=None, init=False)

    @property
    def given(self) -> bool:
        log = self.records.get("activity")
        return log is not None and not log.empty

    def _index(self) -> dict[str, list[Activity]]:
        if self._by_account is None:
            self._by_account = {}
            log = self.records.get("activity")
            if log is not None and not log.empty:
                rows = log.drop_duplicates(list(_COLUMNS), keep="last")
                rows = rows.sort_values("activity_at", kind="stable")
                cols = [rows[c].fillna("").astype(str).tolist() for c in _COLUMNS]
                for at, account, event, ip, device in zip(*cols, strict=True):
                    if at and _key(account):
                        self._by_account.setdefault(_key(account), []).append(
                            Activity(at, event, account, ip, device)
                        )
        return self._by_account

    def accounts(self, order_number: str, email: str = "") -> tuple[str, ...]:
        """The keys an order's account is logged under: its email, its customer account id."""
        if self._accounts is None:
            self._accounts = {}
            orders = self.records.get("orders")
            if orders is not None and "customer_account_id" in orders:
                ids = orders.loc[orders["customer_account_id"].fillna("").astype(str) != ""]
                for n, a in zip(
                    ids["order_number"].astype(str), ids["customer_account_id"], strict=True
                ):
                    self._accounts[n] = (*self._accounts.get(n, ()), _key(a))
        keys = (_key(email), *self._accounts.get(order_number, ()))
        return tuple(dict.fromkeys(k for k in keys if k))

    def _digital_orders(self) -> dict[str, list[tuple[str, str]]]:
        """Each account's digital orders (nothing shipped, lines naming digital goods)."""
        if self._owners is None:
            self._owners = {}
            orders, ships = self.records.get("orders"), self.records.get("shipments")
            if orders is None or orders.empty:
                return self._owners
            shipped = set()
            if ships is not None and not ships.empty:
                shipped = set(ships["order_number"].astype(str))
            titles = orders.get("product_title", pd.Series("", index=orders.index))
            named = titles.fillna("").astype(str).str.contains(DIGITAL)  # vectorised: one pass
            digital = named.groupby(orders["order_number"].astype(str)).any()
            for row in orders.drop_duplicates("order_number").to_dict("records"):
                number = str(row["order_number"])
                if number in shipped or not digital.get(number, False):
                    continue
                at = _time(row.get("order_date"))
                for k in self.accounts(number, str(row.get("customer_email") or "")):
                    self._owners.setdefault(k, []).append((at, number))
            for owned in self._owners.values():
                owned.sort()
        return self._owners

    def _owner(self, account: str, at: str) -> str:
        """The account's digital order an event belongs to: the latest bought before it (one
        bought later that day, when none was before)."""
        owned, when = self._digital_orders().get(account, []), _time(at)
        before = [n for t, n in owned if t <= when] or [n for t, n in owned if t[:10] == when[:10]]
        return before[-1] if before else ""

    def events(self, order_number: str, email: str, since: str) -> tuple[tuple[Activity, ...], int]:
        """The account's events from `since` (YYYY-MM-DD) on that belong to this order (a
        digital order's: none for physical goods), the first and latest kept, and how many
        there are in all."""
        index = self._index()
        found = sorted(
            (
                a
                for k in self.accounts(order_number, email)
                for a in index.get(k, ())
                if a.at[:10] >= since[:10] and self._owner(k, a.at) == order_number
            ),
            key=lambda a: a.at,
        )
        found = list(dict.fromkeys(found))
        kept = found if len(found) <= MAX_KEPT else found[:FIRST] + found[FIRST - MAX_KEPT :]
        return tuple(kept), len(found)

    def at_checkout(self, order_number: str, email: str, ordered: str) -> Activity | None:
        """The event its account was seen with at checkout: on the order's day, at or before
        its time (a day alone: an event named for the purchase), the latest such."""
        if not ordered:
            return None
        index, day = self._index(), ordered[:10]
        timed = ordered[11:19] not in ("", "00:00:00")
        seen = [
            a
            for k in self.accounts(order_number, email)
            for a in index.get(k, ())
            if a.at[:10] == day
            and (a.at <= ordered if timed else _PURCHASE.search(a.event))
            and (a.ip or a.device)
        ]
        return max(seen, key=lambda a: a.at) if seen else None

    def observed_orders(self, orders: pd.DataFrame) -> pd.DataFrame:
        """The orders export with each order's missing IP and device taken from its account's
        event at checkout (the CE 3.0 history reads these)."""
        if not self.given or orders.empty:
            return orders
        out = orders.copy()
        firsts = out.drop_duplicates("order_number")
        for _, row in firsts.iterrows():
            if str(row.get("customer_ip") or "") and str(row.get("device_id") or ""):
                continue
            seen = self.at_checkout(
                str(row["order_number"]),
                str(row.get("customer_email") or ""),
                str(row.get("order_date") or ""),
            )
            if seen is None:
                continue
            same = out["order_number"] == row["order_number"]
            for column, value in (("customer_ip", seen.ip), ("device_id", seen.device)):
                if value and column in out and not str(row.get(column) or ""):
                    out.loc[same, column] = value
        return out
