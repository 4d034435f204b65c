"""What protects each fraud dispute beside CE 3.0 (issue 46 item 7, "coverage tells more";
../shared/spec/rebuttal-by-reason.md "Rules new in 2026"), one row per fraud dispute:

- **Authentication**: whether 3-D Secure or Visa Data Only authenticated the order, from a
  `three_d_secure` column of the payments export where one is given (Stripe's unified export
  has none): an authenticated order's fraud dispute should have been blocked before it reached
  the merchant.
- **The issuer's prior-transaction check** (Visa 10.4, disputes raised from 24 October 2026):
  the issuer itself checks device, login ID and delivery address against prior undisputed
  transactions, the CE 3.0 logic on its side.
- **The AVS-invalidity rule** (Visa 10.4, US, Canada and UK domestic transactions from 23
  October 2026; evidence/reason_checks.py holds the rule, the letter leads with it): a
  card-absent fraud dispute on a domestic transaction whose street and postcode both matched
  is invalid.

Each cell says what applies, or what our exports cannot show. Pure: rows in, rows out."""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd

from dispute_evidence.evidence.dispute_facts import Charge
from dispute_evidence.evidence.reason_checks import (
    PASS,
    VISA_AVS_RULE_FROM,
    country_code,
    visa_avs_rule,
)
from dispute_evidence.networks import ALL, LABELS, VISA
from dispute_evidence.standing.efm import SECURE

FRAUD_CHECKS_CSV = "ce3_fraud_disputes.csv"  # the report's file of these rows
PRIOR_CHECK_FROM = "2026-10-24"  # Visa's April 2026 chargeback guide (rebuttal-by-reason.md)
AUTHENTICATED = SECURE  # one reading of a 3-D Secure flag: Mastercard EFM's too
DATA_ONLY = frozenset({"data_only", "visa_data_only", "dataonly", "data_share_only"})
NOT_AUTHENTICATED = frozenset(
    {
        "",
        "n",
        "no",
        "false",
        "0",
        "failed",
        "fail",
        "not_supported",
        "unavailable",
        "none",
        "not_authenticated",
        "rejected",
    }
)
COLUMNS = [
    "dispute",
    "order",
    "network",
    "opened",
    "ce3",
    "authentication",
    "issuer_prior_check",
    "avs_rule",
]
# what a fraud dispute's row is read from (standing/counts.py's disputes, with their charge)
CHARGE_FIELDS = (
    "payment_id",
    "paid_at",
    "card_brand",
    "card_country",
    "avs_line1_check",
    "avs_zip_check",
    "three_d_secure",
)


def fraud_checks(disputes: pd.DataFrame, merchant_country: str, has_3ds: bool) -> pd.DataFrame:
    """One row per fraud dispute of `disputes` (standing/counts.py's dispute events, with the
    disputed charge's CHARGE_FIELDS): COLUMNS, every cell in words."""
    fraud = disputes.loc[disputes["fraud"].astype(bool)] if not disputes.empty else disputes
    read = ["network", "order_number", "ce3", "dispute", "opened", *CHARGE_FIELDS]
    picked = fraud.reindex(columns=read, fill_value="")
    columns = [picked[c].tolist() for c in read]  # plain lists: no frame row per dispute
    rows = [
        _row(dict(zip(read, values, strict=True)), merchant_country, has_3ds)
        for values in zip(*columns, strict=True)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(d: dict[str, Any], country: str, has_3ds: bool) -> list[str]:
    text = {k: str(d.get(k, "") or "").strip() for k in (*CHARGE_FIELDS, "dispute", "opened")}
    network = str(d.get("network", "") or "")
    return [
        text["dispute"]
        or f"order {d.get('order_number', '')} (charge {text['payment_id']}, "
        "not in your disputes list)",
        str(d.get("order_number", "") or ""),
        LABELS.get(network, network) or "unknown",
        text["opened"][:10],
        "qualifies" if d.get("ce3") else "does not qualify",
        authentication(text["three_d_secure"], has_3ds, bool(text["payment_id"])),
        prior_check(network, text["opened"][:10]),
        avs_rule(text, network, country),
    ]


@functools.cache
def authentication(value: str, has_3ds: bool, has_charge: bool) -> str:
    """Whether 3-D Secure or Visa Data Only authenticated the order, as the export says."""
    if not has_3ds:
        return "not in your exports (no 3-D Secure column in the payments export)"
    if not has_charge:
        return "not in your exports (the disputed charge is not in the payments export)"
    said = value.strip().lower().replace(" ", "_").replace("-", "_")
    if said in AUTHENTICATED:
        return (
            f"3-D Secure authenticated ({value}): the dispute should have been blocked "
            "before it reached you: ask your acquirer"
        )
    if said in DATA_ONLY:
        return (
            f"Visa Data Only ({value}): the dispute should have been blocked before it "
            "reached you: ask your acquirer"
        )
    if said in NOT_AUTHENTICATED:
        return f"not authenticated ({value or 'empty'})"
    return f"{value!r} as exported: not a value read here; check it"


@functools.cache
def prior_check(network: str, opened: str) -> str:
    """Whether the issuer's own prior-transaction check applies (Visa, from 24 October 2026)."""
    if network not in (VISA.key, ALL):
        return "does not apply: not a Visa dispute"
    on_visa = "" if network == VISA.key else " if on a Visa card"
    if not opened:
        return "cannot tell: no opening date in your exports"
    if opened < PRIOR_CHECK_FROM:
        return f"not in force: raised {opened}, before 24 Oct 2026"
    return (
        f"applies{on_visa}: raised {opened}; the issuer checks device, login ID and delivery "
        "address against prior undisputed transactions itself"
    )


def avs_rule(charge: dict[str, str], network: str, merchant_country: str) -> str:
    """Whether Visa's AVS-invalidity rule makes the fraud dispute invalid, or why not."""
    if network not in (VISA.key, ALL):
        return "does not apply: not a Visa dispute"
    if not charge["payment_id"]:
        return "cannot tell: the disputed charge is not in your payments export"
    facts = Charge(
        payment_id=charge["payment_id"],
        paid_at=charge["paid_at"],
        card_brand=charge["card_brand"],
        card_country=charge["card_country"],
        avs_line1_check=charge["avs_line1_check"],
        avs_zip_check=charge["avs_zip_check"],
    )
    if rule := visa_avs_rule(facts, merchant_country, VISA.key if network == VISA.key else ""):
        return (
            f"applies: the dispute is invalid: charge {rule.charge} of {rule.paid} is a "
            f"card-absent {rule.domestic} Visa transaction whose street and postcode checks "
            f"both passed (in force there since {rule.since})"
        )
    home, issued = country_code(merchant_country), country_code(charge["card_country"])
    checks = (charge["avs_line1_check"].lower(), charge["avs_zip_check"].lower())
    if checks != (PASS, PASS):
        shown = [c or "not in your exports" for c in checks]
        return f"does not apply: street check {shown[0]}, postcode check {shown[1]}: not both pass"
    if not home:
        return "cannot tell: set [merchant] country (the rule is for US, CA and UK domestic sales)"
    if home not in VISA_AVS_RULE_FROM:
        return f"does not apply: in force for US, CA and UK domestic sales (you: {home})"
    if not issued:
        return "cannot tell: no card issuing country in your exports"
    if issued != home:
        return f"does not apply: not domestic (card issued in {issued}, you in {home})"
    since = VISA_AVS_RULE_FROM[home]
    return f"does not apply: charged {charge['paid_at'][:10] or 'on no date'}, before {since}"


def summary_lines(checks: pd.DataFrame) -> list[str]:
    """The page's lines: how many fraud disputes each rule and authentication concern."""
    if checks.empty:
        return []
    n = len(checks)
    auth = checks["authentication"]
    lines = [
        f"fraud disputes: {n:,}; CE 3.0 qualifies {int((checks['ce3'] == 'qualifies').sum()):,}"
    ]
    if auth.str.startswith("not in your exports (no 3-D Secure").all():
        lines.append("3-D Secure and Visa Data Only: not in your exports (no 3-D Secure column)")
    else:
        blocked = auth.str.startswith(("3-D Secure authenticated", "Visa Data Only"))
        lines.append(
            f"authenticated by 3-D Secure or Visa Data Only: {int(blocked.sum()):,} "
            "(each should have been blocked before it reached you)"
        )
    prior = int(checks["issuer_prior_check"].str.startswith("applies").sum())
    lines.append(
        f"the issuer's own prior-transaction check (from 24 Oct 2026) applies to {prior:,}"
    )
    invalid = checks.loc[checks["avs_rule"].str.startswith("applies"), "dispute"]
    named = ", ".join(invalid.head(5)) + (" …" if len(invalid) > 5 else "")
    lines.append(
        f"Visa's AVS rule (US, CA, UK domestic from 23 Oct 2026) makes {len(invalid):,} "
        f"invalid{': ' + named if named else ''}; per dispute: {FRAUD_CHECKS_CSV}"
    )
    return lines
