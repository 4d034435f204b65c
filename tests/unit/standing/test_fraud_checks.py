"""What protects each fraud dispute beside CE 3.0 (issue 46 item 7, "coverage tells more"): per
fraud dispute, whether 3-D Secure or Visa Data Only authenticated the order (where the export
has the flag), whether the issuer's own prior-transaction check (from 24 October 2026) and
Visa's AVS-invalidity rule (US, CA, UK domestic from 23 October 2026) apply; in the report's
ce3_fraud_disputes.csv, standing.xlsx and the page's CE 3.0 lines. Known answers."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pandas as pd

from dispute_evidence.ingest import ingest_paths
from dispute_evidence.policies import StandingPolicy
from dispute_evidence.reports.standing_files import write_standing
from dispute_evidence.standing.counts import StandingInputs, standing
from tests.support.export_layouts import write_csv
from tests.unit.evidence.test_standing import frame

NOW = datetime(2026, 11, 20, tzinfo=UTC)
US = replace(StandingPolicy(), merchant_country="US")


def _charge(
    pid: str,
    paid: str,
    brand: str,
    country: str,
    avs: tuple[str, str],
    secure: str,
    opened: str,
    reason: str = "fraudulent",
) -> dict[str, str]:
    return {
        "payment_id": pid,
        "order_number": pid.removeprefix("ch_"),
        "paid_at": paid,
        "payment_status": "Paid",
        "captured": "true",
        "card_brand": brand,
        "card_country": country,
        "avs_line1_check": avs[0],
        "avs_zip_check": avs[1],
        "three_d_secure": secure,
        "dispute_reason": reason,
        "dispute_date": opened,
    }


PASS2 = ("pass", "pass")
CHARGES = [
    _charge("ch_a", "2026-10-25T10:00:00Z", "Visa", "US", PASS2, "authenticated", "2026-11-02"),
    _charge("ch_b", "2026-10-01T10:00:00Z", "Visa", "US", PASS2, "data_only", "2026-10-20"),
    _charge("ch_c", "2026-10-26T10:00:00Z", "Visa Debit", "GB", PASS2, "", "2026-11-05"),
    _charge("ch_d", "2026-10-26T10:00:00Z", "Mastercard", "US", PASS2, "Y", "2026-11-06"),
    _charge("ch_e", "2026-10-27T10:00:00Z", "Visa", "US", ("fail", "pass"), "no", "2026-11-07"),
    _charge(
        "ch_f",
        "2026-10-27T10:00:00Z",
        "Visa",
        "US",
        PASS2,
        "",
        "2026-11-08",
        reason="product_not_received",
    ),
]


def _inputs(charges: list[dict[str, str]]) -> StandingInputs:
    listed = [
        {"provider_dispute_id": f"dp_{c['order_number']}", "order_number": c["order_number"]}
        for c in charges
    ]
    return StandingInputs(disputes=frame(listed), payments=frame(charges))


def _by_dispute(checks: pd.DataFrame) -> dict[str, dict[str, str]]:
    return {r["dispute"]: r for r in checks.to_dict("records")}


def test_each_fraud_dispute_says_its_authentication_and_which_2026_rules_apply():
    checks = _by_dispute(standing(_inputs(CHARGES), US, NOW).fraud_checks)
    assert sorted(checks) == ["dp_a", "dp_b", "dp_c", "dp_d", "dp_e"]  # dp_f: not fraud
    a, b, c, d, e = (checks[f"dp_{k}"] for k in "abcde")
    assert a["authentication"].startswith(
        "3-D Secure authenticated (authenticated): the dispute "
        "should have been blocked before it reached you"
    )
    assert b["authentication"].startswith("Visa Data Only (data_only): the dispute should have")
    assert c["authentication"] == "not authenticated (empty)"
    assert e["authentication"] == "not authenticated (no)"
    assert a["issuer_prior_check"].startswith("applies: raised 2026-11-02; the issuer checks")
    assert b["issuer_prior_check"] == "not in force: raised 2026-10-20, before 24 Oct 2026"
    assert d["issuer_prior_check"] == d["avs_rule"] == "does not apply: not a Visa dispute"
    assert a["avs_rule"].startswith(
        "applies: the dispute is invalid: charge ch_a of 2026-10-25 "
        "is a card-absent US domestic Visa transaction whose street and postcode checks both passed"
    )
    assert b["avs_rule"] == "does not apply: charged 2026-10-01, before 2026-10-23"
    assert c["avs_rule"] == "does not apply: not domestic (card issued in GB, you in US)"
    assert e["avs_rule"] == "does not apply: street check fail, postcode check pass: not both pass"


def test_without_the_flag_or_the_merchants_country_it_says_what_is_missing():
    bare = [{k: v for k, v in c.items() if k != "three_d_secure"} for c in CHARGES[:1]]
    (a,) = standing(_inputs(bare), StandingPolicy(), NOW).fraud_checks.to_dict("records")
    assert (
        a["authentication"] == "not in your exports (no 3-D Secure column in the payments export)"
    )
    assert a["avs_rule"] == (
        "cannot tell: set [merchant] country (the rule is for US, CA and UK domestic sales)"
    )


def test_the_report_writes_each_fraud_dispute_and_the_page_counts_them(tmp_path):
    result = standing(_inputs(CHARGES), US, NOW)
    section = write_standing(result, tmp_path, NOW)
    csv = pd.read_csv(tmp_path / "ce3_fraud_disputes.csv", dtype=str, keep_default_na=False)
    assert list(csv["dispute"]) == ["dp_a", "dp_b", "dp_c", "dp_d", "dp_e"]
    assert list(csv.columns) == [
        "dispute",
        "order",
        "network",
        "opened",
        "ce3",
        "authentication",
        "issuer_prior_check",
        "avs_rule",
    ]
    assert (
        "authenticated by 3-D Secure or Visa Data Only: 3 (each should have been blocked "
        "before it reached you)" in section.coverage
    )
    assert "the issuer's own prior-transaction check (from 24 Oct 2026) applies to 3" in (
        section.coverage
    )
    assert any(
        line.startswith(
            "Visa's AVS rule (US, CA, UK domestic from 23 Oct 2026) makes 1 invalid: dp_a"
        )
        for line in section.coverage
    )


def test_a_sheets_3ds_column_is_read_as_the_charges_3_d_secure(tmp_path):
    header = ["payment_id", "order_number", "paid_at", "card_brand", "3DS"]
    f = write_csv(
        tmp_path / "payments.csv",
        header,
        [dict(zip(header, ["ch_1", "1001", "2026-11-01", "Visa", "authenticated"], strict=True))],
    )
    charge = ingest_paths([f], tmp_path).records["payments"].iloc[0]
    assert charge["three_d_secure"] == "authenticated"
