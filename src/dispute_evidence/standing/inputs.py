"""What the standing reads: the state's records (StandingInputs), the settled transactions
counted before (Counted), and their columns read as months and card networks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dispute_evidence.networks import code_network_of, network_of

_MONTH = re.compile(r"^\d{4}-\d{2}")


@dataclass(frozen=True)
class StandingInputs:
    """What the state holds, as records: None for an export never given."""

    disputes: pd.DataFrame
    payments: pd.DataFrame | None = None
    orders: pd.DataFrame | None = None
    fraud: pd.DataFrame | None = None  # None: no fraud-warnings sheet; empty: one listing none
    opened: Mapping[str, str] = field(default_factory=dict)  # pid -> the API's initiated_at
    ce3_qualified: frozenset[str] = frozenset()  # fraud disputes CE 3.0 covers (VAMP omits)
    api_status: Mapping[str, str] = field(default_factory=dict)  # pid -> the API's status
    # settled transactions already counted (the engine keeps them night to night); then
    # `payments` need hold only the charges disputes and fraud reports name
    counted: Counted | None = None


@dataclass(frozen=True)
class Counted:
    """Settled transactions per (month, network) ('' where unknown), counted before: from the
    payments export by card brand (`by_brand`), else from the orders export as `all`."""

    by_brand: bool
    counts: pd.DataFrame  # month, network, transactions


def card_network(brand: pd.Series) -> pd.Series:
    """The network of each card brand as exports write it (networks.py; '' for none known)."""
    codes, brands = pd.factorize(brand.astype(str))  # a handful of brands: work on those
    networks = np.array([*(network_of(b) for b in brands), ""], dtype=object)
    return pd.Series(networks[codes], index=brand.index, dtype=object).astype(str)


def code_network(code: pd.Series) -> pd.Series:
    """The network a reason code belongs to (Visa 10.4, Mastercard 4853, Amex F29, Discover
    UA02), '' when it names none."""
    codes, distinct = pd.factorize(code.astype(str))
    networks = np.array([*(code_network_of(c) for c in distinct), ""], dtype=object)
    return pd.Series(networks[codes], index=code.index, dtype=object).astype(str)


def month_of(when: pd.Series) -> pd.Series:
    """YYYY-MM of ISO dates as the ingest writes them ('' when not a date)."""
    text = when.astype(str)
    return text.str.slice(0, 7).where(text.str.match(_MONTH), "")


def col(frame: pd.DataFrame, name: str) -> pd.Series:
    if name in frame:
        return frame[name].fillna("").astype(str)
    return pd.Series("", index=frame.index, dtype=object)
