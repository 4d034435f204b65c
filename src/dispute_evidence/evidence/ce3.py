"""Visa Compelling Evidence 3.0 from the order history: for a fraud dispute on a Visa card, two
earlier transactions on the same card that the cardholder did not dispute and that match the
disputed one on who bought and from where.

The rule (Visa, as Stripe publishes it), applied as written here:
- the same card (the card fingerprint), a Visa card, a fraud/unrecognized dispute;
- 2 prior transactions, each paid, never disputed (any reason) nor reported as fraud, not a
  validation charge (amount > 0), made 120 to 365 days (calendar days, UTC) before the disputed
  one ("more than 119 and fewer than 366");
- each matching the disputed transaction on at least 2 of: IP address, device ID, customer
  account ID, shipping address, one of the two being the IP address or the device ID.
Email is not counted as an element (Visa's list does not name it; Stripe accepts it only as a
secondary element): a prior order matching on card and email alone never qualifies.
An identifier only counts when it identifies someone: an empty or placeholder value ("unknown",
"n/a", "-", 0.0.0.0, an all-zero device ID, ...) and an IP address that is not public (RFC 1918
private, loopback, link-local, carrier-grade NAT, reserved, documentation) never match. A prior
order that was fully refunded, or is dated after today, never counts.

History is every order and charge the state has read (not only this drop), one transaction per
order (its charges joined by order number, the same number under a prefix such as "SO-6001" for
order 6001 when exactly one order has it, or payment reference) or per charge no order claims.
The card is the payments export's when it names one (it charged the card); else the orders'.
It is indexed once by (card, day): each dispute's search is two binary searches and a look at
the few transactions in its window, never a scan of the history. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dispute_evidence import clock
from dispute_evidence.evidence.ce3_identifiers import (
    MIN_DEVICE,
    SHARED_CARDS,
    arrow_text,
    device_element,
    identifiers,
    is_placeholder,
    is_public_ip,
    members,
)
from dispute_evidence.evidence.playbooks import FRAUD_REASONS
from dispute_evidence.networks import VISA, network_of

# what identifies a buyer lives in ce3_identifiers.py; these are read from here too
__all__ = ["MIN_DEVICE", "is_placeholder", "is_public_ip", "members"]

ELEMENTS = ("customer_ip", "device_id", "customer_account_id", "shipping_address")
PRIMARY = frozenset({"customer_ip", "device_id"})
LABELS = {
    "customer_ip": "IP address",
    "device_id": "device ID",
    "customer_account_id": "customer account ID",
    "shipping_address": "shipping address",
}
MIN_DAYS, MAX_DAYS = 120, 365
NEEDED = 2
PAID = frozenset({"paid", "partially_refunded", "partially refunded", "succeeded"})
REFUNDED = frozenset({"refunded", "voided", "fully_refunded", "fully refunded"})
# an order number under a short prefix ("SO-6001", "Order #6001", "ORD6001"): its digits
_PREFIXED = r"^[A-Za-z]{0,8}[\s#:_\-]*0*(\d+)$"
NO_IP_OR_DEVICE = "no IP or device ID in your exports: capture it at checkout"
PLACEHOLDER_IP_OR_DEVICE = (
    "its IP address and device ID are placeholders or not public (such as 0.0.0.0, a private "
    'address or "unknown"), a device ID shorter than 15 characters, or used by more than '
    f"{SHARED_CARDS} cards in your history: they identify no one, and Visa withdraws CE 3.0 "
    "from a merchant that sends data that does not qualify; capture the real ones at checkout"
)
_TEXT = ("date", "currency", "brand", "fingerprint", *ELEMENTS)
CHARGE_WINS = frozenset({"card_fingerprint", "brand"})  # the charge knows the card it charged
SHOWN = tuple(f"shown_{c}" for c in ELEMENTS)  # each element's value as exported


@dataclass(frozen=True)
class Prior:
    """One earlier transaction that qualifies, as the evidence cites it."""

    order_number: str
    date: str
    amount: float
    currency: str
    matched: tuple[str, ...]  # element keys, in ELEMENTS order
    # (element key, its value as exported) for each element it has: shown side by side with
    # the disputed order's (the keys are the payload's personal fields: retention clears them)
    values: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Ce3:
    """A fraud dispute's CE 3.0 verdict: the priors to cite, or why there are none."""

    qualifies: bool
    why: str  # "" when it qualifies
    priors: tuple[Prior, ...] = ()
    with_ip_or_device: bool = False  # would qualify had IP or device ID been captured
    disputed: Prior | None = None  # the disputed transaction's own values, when it qualifies

    @property
    def text(self) -> str:
        if self.qualifies:
            return "qualifies: prior orders " + ", ".join(p.order_number for p in self.priors)
        return f"does not qualify: {self.why}"


def is_fraud(reason: object) -> bool:
    return str(reason or "").strip().lower() in FRAUD_REASONS


def _elements(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """The card and the CE 3.0 elements of each row; the device: its ID (15+ characters), else
    its fingerprint (20+ characters: a shorter one is not used)."""
    out = {c: _col(frame, c) for c in ("card_fingerprint", *ELEMENTS)}
    if "device_fingerprint" in frame:  # else nothing to fall back on (a million orders)
        out["device_id"] = device_element(out["device_id"], _col(frame, "device_fingerprint"))
    return out


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    """A text column ("" where absent: a state written before the column existed)."""
    if name in frame:
        return frame[name].fillna("").astype(str).str.strip()
    return pd.Series("", index=frame.index, dtype=object)


def _latest_first_lines(orders: pd.DataFrame) -> pd.DataFrame:
    """One row per order: its first line in the latest file that lists it."""
    if orders.empty:
        return orders
    if "_seq" in orders:
        version = orders["_seq"].to_numpy(dtype="int64")
    else:
        version = pd.factorize(orders["_file"])[0]
    codes, uniques = pd.factorize(orders["order_number"])
    if len(uniques) == len(orders):  # one line per order already: no copy of a million rows
        return orders.reset_index(drop=True)
    latest = np.full(len(uniques), -1, dtype="int64")
    np.maximum.at(latest, codes, version)  # NumPy on integer codes: no string groupby
    keep = np.flatnonzero(version == latest[codes])
    _, first = np.unique(codes[keep], return_index=True)
    return orders.iloc[np.sort(keep[first])].reset_index(drop=True)


def _order_transactions(orders: pd.DataFrame) -> pd.DataFrame:
    o = _latest_first_lines(orders)
    total = pd.to_numeric(o["order_total"], errors="coerce") if "order_total" in o else None
    lines = pd.to_numeric(o["price"], errors="coerce") * pd.to_numeric(
        o["quantity"], errors="coerce"
    )
    amount = (total if total is not None else lines).fillna(lines)
    return pd.DataFrame(
        {
            "key": o["order_number"].astype(str),
            "date": _col(o, "order_date"),
            "amount": amount,
            "currency": _col(o, "currency_code"),
            "paid": _col(o, "financial_status").str.lower().isin(PAID),
            "refunded": _refunded(o, "financial_status", "refunded_amount", amount),
            "ref": _col(o, "payment_reference"),
            **_elements(o),
        }
    )


def _refunded(
    frame: pd.DataFrame, status: str, refunded: str, amount: pd.Series | None
) -> pd.Series:
    """Fully refunded: its status says so, or the refunded amount covers the whole amount."""
    said = _col(frame, status).str.lower().isin(REFUNDED)
    if refunded not in frame or amount is None:
        return said
    back = frame[refunded]
    if not back.fillna("").ne("").any():  # nothing written in it: nothing to parse
        return said
    back = pd.to_numeric(back, errors="coerce")
    return said | ((amount > 0) & (back >= amount)).fillna(False).astype(bool)


def _order_of_charge(named: pd.Series, orders: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """The order each charge names: as written, or the one order with the same number under a
    prefix ("SO-6001" is order 6001, and order "SO-6001" is charge "6001"); "" if none. And
    the position in `orders` of the one named as written (-1: none)."""
    found = pc.index_in(arrow_text(named), value_set=arrow_text(orders))
    at = found.fill_null(-1).to_numpy(zero_copy_only=False).astype("int64")
    known = at >= 0
    if known.all():  # the usual export: every charge names its order as written
        return named, at
    digits = orders.str.extract(_PREFIXED, expand=False)
    unique = digits.dropna().drop_duplicates(keep=False)
    by_digits = pd.Series(orders[unique.index].to_numpy(), index=unique.to_numpy())
    unknown = named[~known]  # only these need an alias: the regex on a million costs seconds
    alias = unknown.str.extract(_PREFIXED, expand=False).map(by_digits).fillna("")
    return named.where(known, alias.reindex(named.index)), at


def _charge_transactions(
    payments: pd.DataFrame | None, refs: pd.Series, orders: pd.Series
) -> pd.DataFrame:
    """One row per order (or per charge no order claims): its charges' facts, first non-empty."""
    if payments is None or payments.empty:
        return pd.DataFrame(columns=["key"])
    p = payments.drop_duplicates("payment_id", keep="last").reset_index(drop=True)
    named = _col(p, "order_number")
    key, at = _order_of_charge(named, orders)
    for col in ("payment_id", "payment_intent"):  # join through the order's payment reference
        if not refs.empty:
            key = key.where(key != "", _col(p, col).map(refs).fillna(""))
    key = key.where(key != "", named)  # an order the orders export does not list
    key = key.where(key != "", "charge " + _col(p, "payment_id"))
    amount = pd.to_numeric(p["payment_amount"], errors="coerce")
    frame = pd.DataFrame(
        {
            "key": key,
            "date": _col(p, "paid_at"),
            "amount": amount,
            "currency": _col(p, "currency").str.upper(),
            "paid": _col(p, "payment_status").str.lower().isin(PAID),
            "refunded": _refunded(p, "payment_status", "amount_refunded", amount),
            "disputed": (_col(p, "dispute_status") != "") | (_col(p, "dispute_reason") != ""),
            "brand": _col(p, "card_brand").str.lower(),
            **_elements(p),
        }
    )
    as_written = bool(((at >= 0) & (key == named).to_numpy()).all())
    if _unique_keys(frame["key"], at if as_written else None):  # the usual case: one charge
        if as_written:  # per order, each naming it as written: where it is, for the join
            frame["_order"] = at  # (no second search)
        return frame
    by = frame.replace("", np.nan).groupby("key", sort=False)
    out = by.first()
    out["paid"] = by["paid"].any()
    out["disputed"] = by["disputed"].any()
    out["refunded"] = by["refunded"].all()  # every charge of the order given back
    return out.reset_index()


def _unique_keys(key: pd.Series, at: np.ndarray | None) -> bool:
    """Whether no two charges share a key; where each names its order as written (`at`: the
    order's position), counted on those integers, not by hashing the text again."""
    if at is None:
        return bool(key.is_unique)
    return not len(at) or int(np.bincount(at).max()) <= 1


_JOINED = ("date", "currency", "brand", "card_fingerprint", *ELEMENTS)


def _joined(orders: pd.DataFrame, charges: pd.DataFrame) -> pd.DataFrame:
    """Each order beside its charge's facts, then each charge no order claims (keys unique on
    each side), by positions: an outer merge sorted a million keys and moved every column
    twice. Text: the order's first, the charge's where empty (the charge's first for the card
    it charged); flags: either side's."""
    mine = pa.Table.from_pandas(_joinable(orders), preserve_index=False).combine_chunks()
    theirs = pa.Table.from_pandas(_joinable(charges), preserve_index=False).combine_chunks()
    if "_order" in charges:  # each charge's order, found as it was read
        order_of = charges["_order"].to_numpy(dtype="int64")
    else:
        found = pc.index_in(theirs["key"], value_set=mine["key"]).fill_null(-1)
        order_of = found.to_numpy(zero_copy_only=False).astype("int64")
    pair = _Pairing(order_of, len(orders))
    out = {c: _either_text(mine[c], theirs[c], pair, c in CHARGE_WINS) for c in ("key", *_JOINED)}
    amount = mine["amount"].to_numpy(zero_copy_only=False)  # NaN where none
    theirs_amount = theirs["amount"].to_numpy(zero_copy_only=False)
    beside = pair.beside(theirs_amount, np.nan)
    out["amount"] = np.concatenate(
        [np.where(np.isnan(amount), beside, amount), theirs_amount[pair.unclaimed]]
    )
    for c in _FLAGS:
        flag, theirs_flag = _bools(mine[c]), _bools(theirs[c])
        out[c] = np.concatenate(
            [flag | pair.beside(theirs_flag, False), theirs_flag[pair.unclaimed]]
        )
    joined: pd.DataFrame = pa.table(out).to_pandas()
    return joined


def _either_text(
    mine: pa.ChunkedArray, theirs: pa.ChunkedArray, pair: _Pairing, charge_first: bool
) -> pa.ChunkedArray:
    """One text column of the join: per order its own value or its charge's (see _joined),
    then the unclaimed charges'. The orders' column is kept as it is (no copy) unless some
    order takes its charge's value: then only those values are taken and put in place."""
    mine, theirs = (
        side.cast(pa.large_string()).fill_null("").combine_chunks() for side in (mine, theirs)
    )
    mine_empty = _bools(pc.equal(mine, ""))
    theirs_given = ~_bools(pc.equal(theirs, ""))
    from_charge = pair.beside(theirs_given, False)
    if not charge_first:
        from_charge &= mine_empty
    if from_charge.any():  # else the orders' column as it is
        taken = theirs.take(pa.array(pair.charge_of[from_charge], type=pa.int64()))
        mine = pc.replace_with_mask(mine, pa.array(from_charge), taken)
    unclaimed = theirs.take(pa.array(pair.unclaimed, type=pa.int64()))
    return pa.chunked_array([mine, unclaimed])  # two chunks: no copy to put them end to end


class _Pairing:
    """Which charge each order has (charge_of, -1: none) and the charges no order claims."""

    def __init__(self, order_of: np.ndarray, n_orders: int) -> None:
        claimed = order_of >= 0  # keys unique on each side: no two charges claim one order
        self.charge_of = np.full(n_orders, -1, dtype="int64")
        self.charge_of[order_of[claimed]] = np.flatnonzero(claimed)
        self.has = self.charge_of >= 0
        self.at = self.charge_of[self.has]
        self.unclaimed = np.flatnonzero(~claimed)

    def beside(self, values: np.ndarray, none: object) -> np.ndarray:
        """Each order's charge's value (`none` for an order without a charge)."""
        out = np.full(len(self.has), none, dtype=values.dtype)
        out[self.has] = values[self.at]
        return out


def _bools(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A true/false Arrow column as a NumPy array, null as false."""
    flags: np.ndarray = values.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    return flags


_FLAGS = ("paid", "refunded", "disputed")


def _joinable(frame: pd.DataFrame) -> pd.DataFrame:
    """The columns the join reads, every one of them ("" text, no amount, false flags where
    the frame lacks one, or a group of charges had none)."""

    def text(c: str) -> pd.Series:
        return frame[c].fillna("").astype(str) if c in frame else pd.Series("", index=frame.index)

    amount = pd.to_numeric(frame["amount"], errors="coerce") if "amount" in frame else np.nan
    return pd.DataFrame(
        {
            **{c: text(c) for c in ("key", *_JOINED)},
            "amount": pd.Series(amount, index=frame.index, dtype="float64"),
            **{c: frame[c].eq(True) if c in frame else False for c in _FLAGS},
        },
        index=frame.index,
    )


def transactions(records: dict[str, pd.DataFrame], shown: bool = True) -> pd.DataFrame:
    """Every transaction the records know, one per order (or per unclaimed charge), orders in
    their order, then unclaimed charges (History sorts what it needs sorted). `shown`: with
    each element's value as exported (SHOWN: what the letter cites; the coverage needs none)."""
    orders = _order_transactions(records["orders"])
    ref_counts = orders.loc[orders["ref"] != "", "ref"].value_counts()
    unique_refs = orders.loc[members(orders["ref"], ref_counts[ref_counts == 1].index)]
    refs = pd.Series(unique_refs["key"].to_numpy(), index=unique_refs["ref"].to_numpy())
    charges = _charge_transactions(records.get("payments"), refs, orders["key"])
    both = _joined(orders, charges)
    given = (both["customer_ip"] != "") | (both["device_id"] != "")
    card = pd.factorize(both["card_fingerprint"].where(both["card_fingerprint"] != ""))[0]
    for c in ELEMENTS:  # an IP or device many cards share identifies no one buyer
        both[c], exported = identifiers(both[c], c, shown, card if c in PRIMARY else None)
        if exported is not None:
            both[f"shown_{c}"] = exported
    both["placeholder_only"] = given & (both["customer_ip"] == "") & (both["device_id"] == "")
    listed = records["disputes"]["order_number"].dropna().astype(str)
    both["disputed"] = both["disputed"] | members(both["key"], listed)
    both["fingerprint"] = both["card_fingerprint"]
    day = pd.to_datetime(
        both["date"].where(both["date"] != ""), utc=True, errors="coerce", format="ISO8601"
    )
    both["day"] = (day.dt.floor("D") - pd.Timestamp("1970-01-01", tz="UTC")).dt.days
    flags = ["paid", "refunded", "disputed", "placeholder_only"]
    both["card"] = card  # the card as an integer code (-1: none), for the coverage
    return both[["key", *_TEXT, "amount", *flags, "day", "card", *(SHOWN if shown else ())]]


class History:
    """The transactions, indexed by (card, day) for the CE 3.0 search."""

    def __init__(self, frame: pd.DataFrame, now: datetime | None = None) -> None:
        self.frame = frame.reset_index(drop=True)
        today = ((now or clock.now()).astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)).days
        # plain lists and a dict: a dispute reads a handful of scalars, far cheaper than .iloc
        self.keys = self.frame["key"].astype(str).tolist()
        self.position = dict(zip(self.keys, range(len(self.keys)), strict=True))
        self.fingerprints = self.frame["fingerprint"].tolist()
        self.brands = self.frame["brand"].tolist()
        self.dates = self.frame["date"].astype(str).str.slice(0, 10).tolist()
        self.amounts = pd.to_numeric(self.frame["amount"], errors="coerce").tolist()
        self.currencies = self.frame["currency"].tolist()
        self.shown = {
            c: self.frame[f"shown_{c}"].tolist()
            if f"shown_{c}" in self.frame
            else [""] * len(self.keys)
            for c in ELEMENTS
        }
        fp_codes, _ = pd.factorize(self.frame["fingerprint"].where(self.frame["fingerprint"] != ""))
        day = self.frame["day"].fillna(-1).astype("int64").to_numpy()
        self.fp = fp_codes.astype("int64")
        usable = (self.fp >= 0) & (day >= 0)
        keys = np.where(usable, self.fp * 1_000_000 + day, -1)
        # by card and day, then by order number as text: which of two same-day priors is cited
        # must not hang on the order the exports listed them in
        by_key = np.empty(len(keys), dtype="int64")
        by_key[pc.sort_indices(arrow_text(self.frame["key"])).to_numpy()] = np.arange(len(keys))
        self.order = np.lexsort((by_key, keys))
        self.sorted_keys = keys[self.order]
        self.day = day
        self.codes = {
            c: pd.factorize(self.frame[c].where(self.frame[c] != ""))[0] for c in ELEMENTS
        }
        self.placeholder_only = self._flag("placeholder_only").tolist()
        self.eligible = (
            self._flag("paid")
            & ~self._flag("disputed")
            & ~self._flag("refunded")
            & (day <= today)  # an order dated in the future is a typo or a test, not history
            & (pd.to_numeric(self.frame["amount"], errors="coerce").fillna(0).to_numpy() > 0)
        )

    def _flag(self, name: str) -> np.ndarray:
        """A true/false column as an array (all false when the frame lacks it)."""
        if name not in self.frame:
            return np.zeros(len(self.frame), dtype=bool)
        flags: np.ndarray = self.frame[name].to_numpy(dtype=bool)
        return flags

    @classmethod
    def from_records(cls, records: dict[str, pd.DataFrame], now: datetime | None = None) -> History:
        if not _has_fingerprints(records):  # no card anywhere: nothing to search (and no cost)
            return NoCards()
        return cls(transactions(records), now)

    def check(self, order_number: str) -> Ce3:
        """The CE 3.0 verdict for the fraud dispute on this order."""
        at = self.position.get(order_number, -1)
        if at < 0:
            return Ce3(False, "the disputed order is not in your exports")
        brand = self.brands[at]
        if not self.fingerprints[at]:
            return Ce3(
                False,
                "no card fingerprint for this order: drop the Stripe payments export (Card Fingerprint)",
            )
        if not brand:
            return Ce3(False, "card brand unknown: drop the Stripe payments export (Card Brand)")
        if network_of(brand) != VISA.key:
            return Ce3(False, f"not a Visa card ({brand.title()}): CE 3.0 is Visa only")
        if self.day[at] < 0:
            return Ce3(False, "no date for the disputed order")
        window = self._window(at)
        matches = {
            c: self.codes[c][window] == self.codes[c][at]
            if self.codes[c][at] >= 0
            else np.zeros(len(window), dtype=bool)
            for c in ELEMENTS
        }
        could = self._could(matches, len(window))
        if not any(self.codes[c][at] >= 0 for c in PRIMARY):
            why = PLACEHOLDER_IP_OR_DEVICE if self.placeholder_only[at] else NO_IP_OR_DEVICE
            return Ce3(False, why, with_ip_or_device=could)
        count = sum(m.astype(int) for m in matches.values()) if window.size else np.zeros(0, int)
        primary = matches["customer_ip"] | matches["device_id"]
        good = window[(count >= NEEDED) & primary]
        if len(good) >= NEEDED:
            chosen = good[np.argsort(-self.day[good], kind="stable")][:NEEDED]
            priors = tuple(self._prior(i, at) for i in chosen)
            return Ce3(True, "", priors, disputed=self._transaction(at, ()))
        return Ce3(False, self._why_not(len(window), len(good)), with_ip_or_device=could)

    def _window(self, at: int) -> np.ndarray:
        """Eligible transactions on the same card 120 to 365 days before `at` (positions)."""
        base = self.fp[at] * 1_000_000 + self.day[at]
        lo = np.searchsorted(self.sorted_keys, base - MAX_DAYS, side="left")
        hi = np.searchsorted(self.sorted_keys, base - MIN_DAYS, side="right")
        found: np.ndarray = self.order[lo:hi]
        eligible: np.ndarray = found[self.eligible[found]]
        return eligible

    def _could(self, matches: dict[str, np.ndarray], n: int) -> bool:
        """Had IP or device ID been captured (and matched), would 2 priors qualify?"""
        other = matches["customer_account_id"] | matches["shipping_address"]
        return n >= NEEDED and int(other.sum()) >= NEEDED

    def _prior(self, i: int, at: int) -> Prior:
        matched = tuple(
            c for c in ELEMENTS if self.codes[c][i] >= 0 and self.codes[c][i] == self.codes[c][at]
        )
        return self._transaction(i, matched)

    def _transaction(self, i: int, matched: tuple[str, ...]) -> Prior:
        """Transaction `i` as the evidence cites it, with its values as exported."""
        values = tuple((c, v) for c in ELEMENTS if (v := str(self.shown[c][i])))  # given ones
        return Prior(
            self.keys[i], self.dates[i], self.amounts[i], self.currencies[i], matched, values
        )

    @staticmethod
    def _why_not(in_window: int, matching: int) -> str:
        if in_window == 0:
            return "no earlier paid, undisputed order on this card 120-365 days before"
        if matching == 1:
            return f"only 1 prior order in window matches ({in_window} in window; 2 needed)"
        if in_window == 1:
            return "only 1 prior order in window"
        return (
            f"{in_window} prior orders in window, none matching on IP or device ID "
            "plus one more element"
        )


def ce3_summary(verdicts: dict[str, Ce3]) -> str:
    """One line: how many fraud disputes qualify, and how many more could have (when any)."""
    n = len(verdicts)
    if not n:
        return ""
    ok = sum(v.qualifies for v in verdicts.values())
    could = sum(v.with_ip_or_device and not v.qualifies for v in verdicts.values())
    line = f"Visa CE 3.0: {ok} of {n} fraud disputes qualify"
    if not could:  # "0 more (0%) could have qualified" says nothing
        return line
    return (
        f"{line}; {could} more ({could / n:.0%} of fraud disputes) could have qualified had the "
        "IP address or device ID been captured at checkout and exported"
    )


def _has_fingerprints(records: dict[str, pd.DataFrame]) -> bool:
    """Whether any order or charge names its card (without one, CE 3.0 cannot apply)."""
    for kind in ("orders", "payments"):
        frame = records.get(kind)
        named = frame is not None and "card_fingerprint" in frame
        if named and (frame["card_fingerprint"].astype(str) != "").any():  # type: ignore[index]
            return True
    return False


class NoCards(History):
    """The history when no export names a card: every fraud dispute is told what to drop."""

    def __init__(self) -> None:  # noqa: D107 - nothing to index
        pass

    def check(self, order_number: str) -> Ce3:
        return Ce3(
            False,
            "no card fingerprint for this order: drop the Stripe payments export (Card Fingerprint)",
        )
