"""Digital goods and services (issue 44 item 10): an order whose product is a licence, a
download or an account is delivered by use, not by a carrier. Which orders those are, and
which of an access log's events are deliveries (a download, a licence activated).

An order with a shipment recorded is physical whatever its title says; one without is digital
when a line's title names a licence, a download, a plan or an account. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

DIGITAL = re.compile(
    r"licen[cs]e|download|digital|software|\bsaas\b|subscription|\bplan\b|membership|"
    r"e-?book|\bapp\b|online course|\baccess\b|\baccount\b|\bseats?\b|plug-?in|template|"
    r"gift ?card|\bkey\b|e-?voucher",
    re.I,
)
_DELIVERY = re.compile(r"download|activat|install|redeem|key (?:issued|sent)|access granted", re.I)


def digital_titles(titles: Iterable[str]) -> bool:
    """Whether an order's lines name a licence, a download, a plan or an account."""
    return any(DIGITAL.search(t or "") for t in titles)


def is_digital(titles: Iterable[str], shipped: bool) -> bool:
    """An order delivered by use: nothing shipped, and its lines name digital goods."""
    return not shipped and digital_titles(titles)


def delivers(event: str) -> bool:
    """An access log event that delivers what was bought: a download, an activation."""
    return bool(_DELIVERY.search(event or ""))
