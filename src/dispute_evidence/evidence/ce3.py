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

import ipaddress
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from dispute_evidence import clock

FRAUD_REASONS = frozenset({"fraudulent", "unrecognized"})
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
# values that name nobody, compared with everything but letters and digits removed
PLACEHOLDERS = frozenset({
    "", "unknown", "unk", "na", "none", "null", "nil", "undefined", "notavailable", "notprovided",
    "notapplicable", "notset", "guest", "anonymous", "redacted", "tbd", "test", "default", "nan",
})  # fmt: skip
# an order number under a short prefix ("SO-6001", "Order #6001", "ORD6001"): its digits
_PREFIXED = r"^[A-Za-z]{0,8}[\s#:_\-]*0*(\d+)$"
NO_IP_OR_DEVICE = "no IP or device ID in your exports: capture it at checkout"
PLACEHOLDER_IP_OR_DEVICE = (
    "its IP address and device ID are placeholders or not public (such as 0.0.0.0, a private "
    'address or "unknown"): they identify no one; capture the real ones at checkout'
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

    def as_evidence(self, matched: bool = True) -> dict[str, Any]:
        entry: dict[str, Any] = {"order_number": self.order_number, "date": self.date}
        if self.amount == self.amount:  # (not NaN: an amount is known)
            amount = int(self.amount) if float(self.amount).is_integer() else round(self.amount, 2)
            entry.update({"amount": amount, "currency": self.currency} if self.currency
                         else {"amount": amount})  # fmt: skip
        if matched:
            entry["matched"] = [LABELS[m] for m in self.matched]
        entry.update((key, value) for key, value in self.values if value)
        return entry


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

    def evidence(self) -> dict[str, Any]:
        """additional_evidence["visa_ce3"]: only for a dispute that qualifies."""
        out: dict[str, Any] = {"program": "Visa Compelling Evidence 3.0"}
        if self.disputed is not None:
            out["disputed_transaction"] = self.disputed.as_evidence(matched=False)
        out["prior_transactions"] = [p.as_evidence() for p in self.priors]
        return out


def is_fraud(reason: object) -> bool:
    return str(reason or "").strip().lower() in FRAUD_REASONS


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    """A text column ("" where absent: a state written before the column existed)."""
    if name in frame:
        return frame[name].fillna("").astype(str).str.strip()
    return pd.Series("", index=frame.index, dtype=object)


def _norm_address(s: pd.Series) -> pd.Series:
    return s.str.lower().str.replace(r"[^0-9a-z]", "", regex=True)


def is_placeholder(value: str) -> bool:
    """Whether an identifier names nobody: empty, a placeholder word, or one repeated
    character once separators are removed ("0", "00000000-0000-...", "--", "xxxx")."""
    bare = re.sub(r"[^0-9a-z]", "", value.lower())
    return bare in PLACEHOLDERS or len(set(bare)) == 1


def is_public_ip(value: str) -> bool:
    """A public (globally routable, unicast) IP address; anything else identifies no one."""
    try:
        ip = ipaddress.ip_address(value.strip().strip("[]"))
    except ValueError:
        return False
    return ip.is_global and not ip.is_multicast


def usable_identifiers(s: pd.Series, element: str) -> pd.Series:
    """The column with every value that identifies no one blanked (never a match)."""
    values = s.unique()
    if element == "customer_ip":
        bad = [v for v in values if v and not is_public_ip(v)]
    else:
        bad = [v for v in values if v and is_placeholder(v)]
    return s.where(~s.isin(bad), "") if bad else s


def _latest_first_lines(orders: pd.DataFrame) -> pd.DataFrame:
    """One row per order: its first line in the latest file that lists it."""
    if orders.empty:
        return orders
    if "_seq" in orders:
        version = orders["_seq"].to_numpy(dtype="int64")
    else:
        version = pd.factorize(orders["_file"])[0]
    codes, uniques = pd.factorize(orders["order_number"])
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
            "email": _col(o, "customer_email").str.lower(),
            **{c: _col(o, c) for c in ("card_fingerprint", *ELEMENTS)},
        }
    )


def _refunded(
    frame: pd.DataFrame, status: str, refunded: str, amount: pd.Series | None
) -> pd.Series:
    """Fully refunded: its status says so, or the refunded amount covers the whole amount."""
    said = _col(frame, status).str.lower().isin(REFUNDED)
    if refunded not in frame or amount is None:
        return said
    back = pd.to_numeric(frame[refunded], errors="coerce")
    return said | ((amount > 0) & (back >= amount)).fillna(False).astype(bool)


def _order_of_charge(named: pd.Series, orders: pd.Series) -> pd.Series:
    """The order each charge names: as written, or the one order with the same number under a
    prefix ("SO-6001" is order 6001, and order "SO-6001" is charge "6001"); "" if none."""
    known = set(orders)
    digits = orders.str.extract(_PREFIXED, expand=False)
    unique = digits.dropna().drop_duplicates(keep=False)
    by_digits = pd.Series(orders[unique.index].to_numpy(), index=unique.to_numpy())
    alias = named.str.extract(_PREFIXED, expand=False).map(by_digits).fillna("")
    return named.where(named.isin(known), alias)


def _charge_transactions(
    payments: pd.DataFrame | None, refs: pd.Series, orders: pd.Series
) -> pd.DataFrame:
    """One row per order (or per charge no order claims): its charges' facts, first non-empty."""
    if payments is None or payments.empty:
        return pd.DataFrame(columns=["key"])
    p = payments.drop_duplicates("payment_id", keep="last").reset_index(drop=True)
    named = _col(p, "order_number")
    key = _order_of_charge(named, orders)
    for col in ("payment_id", "payment_intent"):  # join through the order's payment reference
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
            "email": _col(p, "customer_email").str.lower(),
            **{c: _col(p, c) for c in ("card_fingerprint", *ELEMENTS)},
        }
    )
    if frame["key"].is_unique:  # one charge per order, the usual case: nothing to combine
        return frame
    by = frame.replace("", np.nan).groupby("key", sort=False)
    out = by.first()
    out["paid"] = by["paid"].any()
    out["disputed"] = by["disputed"].any()
    out["refunded"] = by["refunded"].all()  # every charge of the order given back
    return out.reset_index()


def transactions(records: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every transaction the records know, one per order (or per unclaimed charge)."""
    orders = _order_transactions(records["orders"])
    ref_counts = orders.loc[orders["ref"] != "", "ref"].value_counts()
    unique_refs = orders.loc[orders["ref"].isin(ref_counts[ref_counts == 1].index)]
    refs = pd.Series(unique_refs["key"].to_numpy(), index=unique_refs["ref"].to_numpy())
    charges = _charge_transactions(records.get("payments"), refs, orders["key"])
    both = orders.merge(charges, on="key", how="outer", suffixes=("", "_c"))
    empty = pd.Series("", index=both.index, dtype=object)
    for c in ("date", "currency", "email", "brand", "card_fingerprint", *ELEMENTS):
        own = both[c].fillna("").astype(str) if c in both else empty
        other = both[f"{c}_c"].fillna("").astype(str) if f"{c}_c" in both else empty
        first, then = (other, own) if c in CHARGE_WINS else (own, other)
        both[c] = first.where(first != "", then)
    if "amount_c" in both:
        both["amount"] = both["amount"].fillna(both["amount_c"])
    paid_c = both.get("paid_c", empty)
    both["paid"] = _flag(both["paid"]) | _flag(paid_c)
    both["refunded"] = _flag(both["refunded"]) | _flag(both.get("refunded_c", empty))
    given = (both["customer_ip"] != "") | (both["device_id"] != "")
    for c in ELEMENTS:
        raw = both[c].str.strip()
        both[c] = usable_identifiers(both[c], c)
        both[f"shown_{c}"] = raw.where(both[c] != "", "")  # as exported; a placeholder: none
    both["placeholder_only"] = given & (both["customer_ip"] == "") & (both["device_id"] == "")
    listed = set(records["disputes"]["order_number"].astype(str))
    disputed = both.get("disputed", empty)
    both["disputed"] = _flag(disputed) | both["key"].isin(listed)
    both["fingerprint"] = both["card_fingerprint"]
    both["shipping_address"] = _norm_address(both["shipping_address"])
    day = pd.to_datetime(
        both["date"].where(both["date"] != ""), utc=True, errors="coerce", format="ISO8601"
    )
    both["day"] = (day.dt.floor("D") - pd.Timestamp("1970-01-01", tz="UTC")).dt.days
    flags = ["paid", "refunded", "disputed", "placeholder_only"]
    return both[["key", *_TEXT, "amount", *flags, "day", *SHOWN]]


def _flag(s: pd.Series) -> pd.Series:
    return s.eq(True)  # True/False/NaN/"" after an outer merge: only True is true


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
        self.shown = {c: self.frame[f"shown_{c}"].tolist() if f"shown_{c}" in self.frame
                      else [""] * len(self.keys) for c in ELEMENTS}  # fmt: skip
        fp_codes, _ = pd.factorize(self.frame["fingerprint"].where(self.frame["fingerprint"] != ""))
        day = self.frame["day"].fillna(-1).astype("int64").to_numpy()
        self.fp = fp_codes.astype("int64")
        usable = (self.fp >= 0) & (day >= 0)
        keys = np.where(usable, self.fp * 1_000_000 + day, -1)
        self.order = np.argsort(keys, kind="stable")
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
        if brand != "visa":
            return Ce3(False, f"not a Visa card ({brand.title()}): CE 3.0 is Visa only")
        if self.day[at] < 0:
            return Ce3(False, "no date for the disputed order")
        window = self._window(at)
        matches = {c: self.codes[c][window] == self.codes[c][at] if self.codes[c][at] >= 0 else
                   np.zeros(len(window), dtype=bool) for c in ELEMENTS}  # fmt: skip
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
        values = tuple((c, str(self.shown[c][i])) for c in ELEMENTS)
        return Prior(self.keys[i], self.dates[i], self.amounts[i], self.currencies[i], matched,
                     values)  # fmt: skip

    @staticmethod
    def _why_not(in_window: int, matching: int) -> str:
        if in_window == 0:
            return "no earlier paid, undisputed order on this card 120-365 days before"
        if matching == 1:
            return f"only 1 prior order in window matches ({in_window} in window; 2 needed)"
        if in_window == 1:
            return "only 1 prior order in window"
        return (f"{in_window} prior orders in window, none matching on IP or device ID "
                "plus one more element")  # fmt: skip


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
