"""Reason-specific checks on a dispute's facts that decide what may be argued (issue 44 items 8
and 9; shared spec rebuttal-by-reason.md): a fraud case whose address check failed or whose
parcel went to a freight forwarder concedes what the network tests; Visa's April 2026 rule
makes a fraud dispute on a fully address-verified domestic transaction invalid; two charges of
one amount that pay one order's total together are a split payment, not a duplicate.

Each check returns facts in words (the case names them as contradictions, the letter states
them); the rule's countries and dates are here, in one place, with where they come from.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.networks import VISA, network_of

# Address checks a card issuer answers (Stripe's words; the canonical layout's too)
PASS, FAIL = "pass", "fail"
CHECKS = (
    ("avs_line1_check", "the billing street address"),
    ("avs_zip_check", "the billing postcode"),
    ("cvc_check", "the card security code (CVC)"),
)

# Visa's April 2026 chargeback guide, as the shared spec's "Rules new in 2026" summarises it
# (confirm against the current Visa Core Rules): a card-absent fraud dispute (10.4) on a
# domestic transaction whose address verification fully matched (street and postcode) is
# invalid, for these countries from this date (Europe, parts of Latin America, Australia, New
# Zealand and Singapore follow from 24 April 2027, not yet in force here).
VISA_AVS_RULE_FROM = {"US": "2026-10-23", "CA": "2026-10-23", "GB": "2026-10-23"}
VISA_AVS_RULE = "Visa's April 2026 rule for reason 10.4"
_COUNTRY_CODES = {"UK": "GB", "USA": "US", "CAN": "CA", "GBR": "GB"}

# Parcel and freight forwarders (reshipping services): a parcel sent to one leaves the country
# or the cardholder's reach, so delivery there proves nothing about the cardholder. Names as
# they appear in a shipping address or company line.
FORWARDERS = (
    "shipito",
    "myus",
    "myus.com",
    "stackry",
    "planet express",
    "borderlinx",
    "comgateway",
    "shop and ship",
    "shop & ship",
    "shopandship",
    "myshopandship",
    "forward2me",
    "viabox",
    "bongo international",
    "usgobuy",
    "ship7",
    "fishisfast",
    "quicship",
    "reship",
    "parcl",
    "buyandship",
    "jet carrier",
    "ohmyzip",
    "eshopworld",
    "package forwarding",
    "parcel forwarding",
    "mail forwarding",
    "freight forwarder",
    "freight forwarding",
    "forwarding address",
    "forwarding service",
)
_FORWARDER = re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(re.escape(f) for f in FORWARDERS) + r")(?![a-z0-9])"
)


def forwarder(address: str) -> str:
    """The freight forwarder a shipping address names ("" when none)."""
    found = _FORWARDER.search(" ".join(str(address or "").lower().split()))
    return found.group(0) if found else ""


@dataclass(frozen=True)
class CheckFailure:
    charge: str  # its id
    what: str  # "the billing street address", ...
    result: str  # as exported: "fail"


def failed_checks(charges: Sequence[Charge]) -> list[CheckFailure]:
    """Each issuer check a charge that took money failed (street, postcode, CVC)."""
    return [
        CheckFailure(c.payment_id, label, value)
        for c in charges
        for key, label in CHECKS
        if (value := str(getattr(c, key)).strip().lower()) == FAIL
    ]


def full_avs_match(charge: Charge) -> bool:
    """Street and postcode both passed the issuer's address verification."""
    return all(
        str(v).strip().lower() == PASS for v in (charge.avs_line1_check, charge.avs_zip_check)
    )


def country_code(value: str) -> str:
    text = str(value or "").strip().upper()
    return _COUNTRY_CODES.get(text, text)


@dataclass(frozen=True)
class AvsRule:
    """Visa's AVS full-match rule, as it applies to one charge: each of its conditions shown."""

    charge: str  # the charge's id
    paid: str  # its day (on or after `since`)
    country: str  # the card's issuing country, the merchant's too (domestic)
    since: str  # the day the rule took effect there

    @property
    def domestic(self) -> str:
        """ "US domestic", "Canadian domestic", "UK domestic"."""
        return f"{COUNTRY_WORDS.get(self.country, (self.country, self.country))[0]} domestic"

    @property
    def where(self) -> str:
        """ "the US", "Canada", "the UK"."""
        return COUNTRY_WORDS.get(self.country, (self.country, self.country))[1]


COUNTRY_WORDS = {"US": ("US", "the US"), "CA": ("Canadian", "Canada"), "GB": ("UK", "the UK")}


def visa_avs_rule(
    charge: Charge | None, merchant_country: str, brand_hint: str = "", code: str = ""
) -> AvsRule | None:
    """Whether Visa's AVS full-match rule makes this fraud dispute invalid (None when it does
    not apply, or when our data cannot show that it does): a Visa card, a domestic transaction
    (the card's issuing country is the merchant's) in a country where the rule is in force on
    the charge's date, street and postcode both verified; reason 10.4 when the dispute names
    its network code (another code, 10.5 say, is not the rule's)."""
    if charge is None or not full_avs_match(charge) or (code and code.strip() != "10.4"):
        return None
    brand = network_of(charge.card_brand or brand_hint)  # Visa Debit, Visa Electron: Visa
    issued, home = country_code(charge.card_country), country_code(merchant_country)
    since = VISA_AVS_RULE_FROM.get(home, "")
    paid = charge.paid_at[:10]
    if brand != VISA.key or not since or issued != home or not paid or paid < since:
        return None
    return AvsRule(charge.payment_id, paid, home, since)


def split_payment(charges: Sequence[Charge], order_total: float | None) -> bool:
    """Two or more charges of one amount that together pay the order's total (a 128.00 order
    paid by two 64.00 charges): one purchase paid in parts, not a duplicate."""
    amounts = [float(c.payment_amount) for c in charges if c.payment_amount is not None]
    if len(amounts) < 2 or not order_total or len(amounts) != len(charges):
        return False
    return abs(sum(amounts) - order_total) < 0.005 * len(amounts) and max(amounts) < order_total
