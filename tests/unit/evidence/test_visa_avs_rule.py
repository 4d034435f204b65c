"""Visa's April 2026 AVS full-match rule (issue 44 finding 9; rebuttal-by-reason.md "Rules new
in 2026"): each condition checked, and the words the letter's thesis uses for the country."""

from __future__ import annotations

import pytest

from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.reason_checks import visa_avs_rule


def _charge(**kw: str) -> Charge:
    base = {
        "payment_id": "ch_1",
        "paid_at": "2026-11-01 10:00",
        "card_brand": "Visa",
        "card_country": "GB",
        "avs_line1_check": "pass",
        "avs_zip_check": "pass",
    }
    return Charge(**{**base, **kw})


def test_the_rule_applies_to_a_fully_matched_domestic_visa_charge_from_its_date():
    rule = visa_avs_rule(_charge(), "UK", code="10.4")
    assert rule is not None
    assert (rule.charge, rule.paid, rule.domestic, rule.where) == (
        "ch_1",
        "2026-11-01",
        "UK domestic",
        "the UK",
    )


@pytest.mark.parametrize(
    ("change", "country", "code"),
    [
        ({}, "GB", "10.5"),  # another Visa fraud condition: not the rule's
        ({"avs_zip_check": "unavailable"}, "GB", ""),  # street alone is no full match
        ({"paid_at": "2026-10-22 23:59"}, "GB", ""),  # the day before it took effect
        ({"card_country": "FR"}, "GB", ""),  # a foreign card: not domestic
        ({"card_brand": "Mastercard"}, "GB", ""),
        ({"card_country": "DE"}, "DE", ""),  # Europe: from 24 April 2027, not yet in force here
        ({}, "", ""),  # the merchant's country unknown: never claimed
    ],
)
def test_the_rule_is_never_claimed_when_a_condition_is_missing(change, country, code):
    assert visa_avs_rule(_charge(**change), country, code=code) is None
