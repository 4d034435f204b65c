"""What identifies a buyer for Visa CE 3.0 (evidence/ce3.py applies the rule): an element
matches only when it is the same value, so a value that names no one is never used. Empty
values and placeholders ("unknown", "n/a", "-", 0.0.0.0, an all-zero device ID), IP
addresses that are not public (private, loopback, link-local, carrier-grade NAT, reserved),
device IDs shorter than Visa's 15 characters, and an IP address or device ID that more than
SHARED_CARDS cards used in the history (a proxy, a kiosk, a carrier's gateway) are blanked.
Addresses are compared normalised (case and punctuation aside), never fuzzily: Visa's Fraud
Dispute Monitoring Program withdraws CE 3.0 from a merchant that sends qualification data that
does not hold. Pure: no I/O.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# values that name nobody, compared with everything but letters and digits removed
PLACEHOLDERS = frozenset(
    {
        "",
        "unknown",
        "unk",
        "na",
        "none",
        "null",
        "nil",
        "undefined",
        "notavailable",
        "notprovided",
        "notapplicable",
        "notset",
        "guest",
        "anonymous",
        "redacted",
        "tbd",
        "test",
        "default",
        "nan",
    }
)
MIN_DEVICE = 15  # Stripe asks for a device ID of at least 15 characters...
MIN_FINGERPRINT = 20  # ... or a device fingerprint of at least 20
# an IP address or device ID seen with more cards than this in the history identifies no one
# buyer (a shared proxy, a kiosk, a carrier's gateway): flagged and never matched
SHARED_CARDS = 10


def members(values: pd.Series, pool: Iterable[str]) -> np.ndarray:
    """values.isin(pool) for text (missing counts as ""), in Arrow: pandas' isin on Arrow
    strings makes a Python scalar of every value of the pool first (13 s of 28 on a million
    orders)."""
    found = pc.is_in(arrow_text(values), value_set=arrow_text(pool))
    flags: np.ndarray = found.to_numpy(zero_copy_only=False).astype(bool)
    return flags


def arrow_text(values: Iterable[str]) -> pa.Array:
    if not isinstance(values, pd.Series | pd.Index | np.ndarray):
        values = list(values)
    text = pd.Series(values, dtype=object if not len(values) else None).fillna("").astype(str)
    arrow = pa.array(text, from_pandas=True)
    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks()
    return arrow.cast(pa.large_string())


def norm_address(s: pd.Series) -> pd.Series:
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


def device_element(device_id: pd.Series, fingerprint: pd.Series) -> pd.Series:
    """The device element of each transaction: its device ID when it has Visa's 15
    characters, else its device fingerprint when that has 20, else the device ID as given (a
    short one is blanked by identifiers(): not used). A fingerprint under 20 is never used."""
    device = device_id.fillna("").astype(str)
    printed = fingerprint.fillna("").astype(str)
    if not (printed != "").any():
        return device
    long_enough = device.str.strip().str.len() >= MIN_DEVICE
    fingerprint_used = ~long_enough & (printed.str.strip().str.len() >= MIN_FINGERPRINT)
    return device.where(~fingerprint_used, printed)


def usable_identifiers(s: pd.Series, element: str) -> pd.Series:
    """The column with every value that identifies no one blanked (never a match)."""
    values = s.unique()
    if element == "customer_ip":
        bad = [v for v in values if v and not is_public_ip(v)]
    else:
        bad = [v for v in values if v and is_placeholder(v)]
    return s.where(~members(s, bad), "") if bad else s


def identifiers(
    values: pd.Series, element: str, shown: bool, card: np.ndarray | None = None
) -> tuple[pd.Series, pd.Series | None]:
    """The column with every value that identifies no one blanked (an address normalised),
    and (`shown`) each usable value as exported (stripped; "" for one that identifies no one).
    With `card` (each row's card as an integer code, -1 none), a value more than SHARED_CARDS
    cards used is blanked too. Worked out once per distinct value, then spread by the values'
    integer codes: a regex and a Python check per transaction cost seconds on a million."""
    codes, distinct = pd.factorize(values.fillna(""))
    at = pa.array(codes, type=pa.int64())
    text = pd.Series(distinct, dtype=object).astype(str)
    usable = usable_identifiers(text, element)
    if element == "device_id":  # shorter than Visa's minimum: not used at all
        usable = usable.where(usable.str.strip().str.len() >= MIN_DEVICE, "")
    if card is not None:  # many buyers behind one value: it identifies none of them
        usable = usable.where(~shared_by_cards(codes, card, len(text)), "")
    exported = text.str.strip().where(usable != "", "") if shown else None
    if element == "shipping_address":
        usable = norm_address(usable)

    def spread(per_value: pd.Series) -> pd.Series:
        arrow = pa.array(per_value.to_numpy(dtype=object), type=pa.large_string())
        return pd.Series(arrow.take(at).to_pandas(), index=values.index)

    return spread(usable), None if exported is None else spread(exported)


def shared_by_cards(
    codes: np.ndarray, card: np.ndarray, distinct: int, most: int = SHARED_CARDS
) -> np.ndarray:
    """Per distinct value (`codes`: each row's value as an integer code), whether more than
    `most` distinct cards (`card`: each row's card code, -1 none) used it: integer pairs made
    unique, then counted per value."""
    codes = np.asarray(codes, dtype="int64")
    known = (codes >= 0) & (card >= 0)
    if not known.any():
        return np.zeros(distinct, dtype=bool)
    width = int(card.max()) + 1
    pairs = pd.unique(codes[known] * width + card[known])  # hashed: no sort of a million
    shared: np.ndarray = np.bincount(pairs // width, minlength=distinct) > most
    return shared
