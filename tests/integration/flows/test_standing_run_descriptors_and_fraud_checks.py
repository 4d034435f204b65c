"""A real run's standing (the CLI against the local API) per statement descriptor, and each
fraud dispute's 3-D Secure and Visa 2026 rules, with `[merchant] country` from the settings
(issue 46 items 5 and 7): standing.csv, ce3_fraud_disputes.csv and the page."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dispute_evidence.sandbox import SandboxConfig, run_sandbox_in_thread
from tests.conftest import TOKEN, seed_rows
from tests.support.cli_helpers import run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

PAYMENTS = [
    "payment_id",
    "order_number",
    "paid_at",
    "payment_status",
    "card_brand",
    "card_country",
    "avs_line1_check",
    "avs_zip_check",
    "three_d_secure",
    "dispute_reason",
    "dispute_date",
    "Statement Descriptor",
]

pytestmark = pytest.mark.sandbox_server  # starts the local API itself


def _charge(
    pid: str,
    order: int,
    paid: str,
    descriptor: str,
    country: str = "US",
    secure: str = "",
    opened: str = "",
) -> list[object]:
    """A settled Visa charge, street and postcode checks passed; a fraud dispute when opened."""
    reason = "fraudulent" if opened else ""
    return [
        pid,
        order,
        f"{paid} 12:00:00",
        "Paid",
        "Visa",
        country,
        "pass",
        "pass",
        secure,
        reason,
        opened,
        descriptor,
    ]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """October 2026, Visa: 300 charges under SHOP*ONE, 100 under SHOP*TWO. Two of SHOP*TWO's
    are fraud disputes the disputes list does not name, opened in October (28th and 30th): ch_t1 (US card,
    street and postcode pass, 3-D Secure authenticated, paid 25 October) and ch_t2 (a card
    issued in GB, not authenticated). The merchant is in the US."""
    sb = run_sandbox_in_thread(SandboxConfig(tokens=(TOKEN,)), seed_rows(2))
    root = tmp_path_factory.mktemp("descriptors")
    inbox = root / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    rows = [_charge(f"ch_o{i}", 80000 + i, "2026-10-07", "SHOP*ONE") for i in range(300)]
    rows += [_charge(f"ch_t{i}", 90000 + i, "2026-10-25", "SHOP*TWO") for i in range(3, 101)]
    rows += [
        _charge("ch_t1", 90001, "2026-10-25", "SHOP*TWO", "US", "authenticated", "2026-10-28"),
        _charge("ch_t2", 90002, "2026-10-25", "SHOP*TWO", "GB", "", "2026-10-30"),
    ]
    write_rows(inbox / "payments.csv", PAYMENTS, rows)
    try:
        with pytest.MonkeyPatch.context() as mp:
            use_sandbox(sb, mp)
            mp.setenv("DISPUTE_EVIDENCE_MERCHANT__COUNTRY", "US")
            run_cli("--inbox", str(inbox))
    finally:
        sb.stop()
    return root / "inbox.reports" / "latest"


def test_the_months_figures_are_per_descriptor_and_for_all(report):
    table = pd.read_csv(report / "standing.csv", dtype=str, keep_default_na=False)
    oct_visa = table.loc[(table["month"] == "2026-10") & (table["network"] == "visa")]
    assert dict(zip(oct_visa["descriptor"], oct_visa["transactions"], strict=True)) == {
        "all": "400",
        "SHOP*ONE": "300",
        "SHOP*TWO": "100",
    }
    two = oct_visa.loc[oct_visa["descriptor"] == "SHOP*TWO"].iloc[0]
    assert (two["ratio_percent"], two["acquirer_tier"], two["estimated_fine_usd"]) == (
        "2.0",
        "excessive",
        "16.0",
    )  # 2 fraud disputes / 100 charges; $8 a counted event
    html = (report / "summary.html").read_text()
    assert "Visa · SHOP*TWO" in html[html.index('id="standing"') :]


def test_each_fraud_dispute_says_its_3ds_and_the_avs_rule(report):
    checks = pd.read_csv(report / "ce3_fraud_disputes.csv", dtype=str, keep_default_na=False)
    rows = {r["order"]: r for r in checks.to_dict("records")}
    assert sorted(rows) == ["90001", "90002"]
    assert rows["90001"]["authentication"].startswith("3-D Secure authenticated (authenticated)")
    assert rows["90001"]["avs_rule"].startswith("applies: the dispute is invalid: charge ch_t1")
    assert rows["90002"]["avs_rule"] == (
        "does not apply: not domestic (card issued in GB, you in US)"
    )
    assert rows["90001"]["issuer_prior_check"].startswith("applies: raised 2026-10-28")
