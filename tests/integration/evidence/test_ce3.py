"""Visa CE 3.0 from the order history, built from the Shopify and Stripe export layouts: the
evidence cites exactly the two prior orders that qualify, and says why when none do."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from dispute_evidence.engine.prepare.case import case_problems
from dispute_evidence.engine.reporting.report import dispute_table
from dispute_evidence.evidence import build_evidence
from dispute_evidence.evidence.ce3 import NO_IP_OR_DEVICE, History, ce3_summary
from dispute_evidence.ingest import ingest_paths
from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import engine_pass
from tests.support.export_layouts import SHOPIFY_79, STRIPE_PAYMENTS, write_csv

DISPUTED_AT = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
HOME = {"Shipping Address1": "1 Main St", "Shipping City": "Boston", "Shipping Zip": "'02108",
        "Shipping Country": "US"}  # fmt: skip
STRIPE_HOME = {"Shipping Address Line1": "1 MAIN ST", "Shipping Address City": "Boston",
               "Shipping Address Postal Code": "02108", "Shipping Address Country": "US"}  # fmt: skip
ELSEWHERE = {"Shipping Address Line1": "9 Dock Rd", "Shipping Address City": "Miami",
             "Shipping Address Postal Code": "33101", "Shipping Address Country": "US"}  # fmt: skip
# order number -> (days before the disputed order, device, customer id, home?, dispute status)
HISTORY = {
    "2001": (200, "dev-1-4f8a2c7e9", "cus_1", True, ""),  # qualifies: device + account + address
    "2002": (300, "dev-1-4f8a2c7e9", "", True, ""),  # qualifies: device + address
    "2003": (30, "dev-1-4f8a2c7e9", "cus_1", True, ""),  # too recent
    "2004": (400, "dev-1-4f8a2c7e9", "cus_1", True, ""),  # too old
    "2005": (150, "dev-1-4f8a2c7e9", "cus_1", True, "lost"),  # disputed
    "2006": (180, "dev-9-9d41b6e0a", "cus_9", False, ""),  # same card and email only
}


def _order(number: str, when: datetime, device: str, home: bool) -> dict[str, str]:
    return {
        "Name": f"#{number}", "Email": "ann@example.com", "Financial Status": "paid", "Currency": "USD",
        "Total": "80.00", "Created at": when.strftime("%Y-%m-%d %H:%M:%S +0000"),
        "Lineitem quantity": "1", "Lineitem name": "Linen shirt", "Lineitem price": "80.00",
        "Billing Name": "Ann Smith", "Device ID": device, "Payment Reference": f"ch_{number}",
        **(HOME if home else {"Shipping Address1": "9 Dock Rd", "Shipping City": "Miami"}),
    }  # fmt: skip


def _charge(number: str, when: datetime, customer: str, home: bool, status: str) -> dict[str, str]:
    return {
        "id": f"ch_{number}", "Created date (UTC)": when.strftime("%Y-%m-%d %H:%M:%S"), "Amount": "80.00",
        "Currency": "usd", "Captured": "true", "Status": "Paid", "Card Brand": "Visa",
        "Card Fingerprint": "fp_ann", "Card Last4": "4242", "Customer ID": customer,
        "Customer Email": "ann@example.com", "Dispute Status": status,
        "Dispute Reason": "fraudulent" if status else "", "orderId (metadata)": f"#{number}",
        **(STRIPE_HOME if home else ELSEWHERE),
    }  # fmt: skip


def write_scenario(folder: Path, history: dict[str, tuple[int, str, str, bool, str]] = HISTORY,
                   device: str = "dev-1-4f8a2c7e9", pid: str = "dp_ce3_0") -> list[Path]:  # fmt: skip
    """The Shopify orders export, the Stripe payments export and the disputes list."""
    folder.mkdir(parents=True, exist_ok=True)
    orders = [_order("3000", DISPUTED_AT, device, True)]
    charges = [_charge("3000", DISPUTED_AT, "cus_1", True, "needs_response")]
    for number, (days, dev, customer, home, status) in history.items():
        when = DISPUTED_AT - timedelta(days=days)
        orders.append(_order(number, when, dev if device else "", home))
        charges.append(_charge(number, when, customer, home, status))
    return [
        write_csv(folder / "orders_export_1.csv", SHOPIFY_79, orders),
        write_csv(folder / "payments.csv", [*STRIPE_PAYMENTS, "orderId (metadata)"], charges),
        write_csv(folder / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
                  [{"provider_dispute_id": pid, "order_number": "#3000", "reason": "fraudulent"}]),
    ]  # fmt: skip


def _build(tmp_path: Path, **kw):
    files = write_scenario(tmp_path / "inbox", **kw)
    return build_evidence(ingest_paths(files, tmp_path / "inbox").records)


def test_the_evidence_cites_exactly_the_two_prior_orders_that_qualify(tmp_path):
    built = _build(tmp_path)
    (payload,) = built.payloads
    ce3 = orjson.loads(payload.body)["additional_evidence"]["visa_ce3"]
    home = "1 Main St, Boston, 02108, US"
    assert ce3["prior_transactions"] == [
        {"order_number": "2001", "date": "2024-11-13", "amount": 80, "currency": "USD",
         "matched": ["device ID", "customer account ID", "shipping address"],
         "device_id": "dev-1-4f8a2c7e9", "customer_account_id": "cus_1", "shipping_address": home},
        {"order_number": "2002", "date": "2024-08-05", "amount": 80, "currency": "USD",
         "matched": ["device ID", "shipping address"], "device_id": "dev-1-4f8a2c7e9",
         "shipping_address": home},
    ]  # fmt: skip
    # the disputed order's own values, to show beside them (issue 36, finding 9)
    assert ce3["disputed_transaction"] == {
        "order_number": "3000", "date": "2025-06-01", "amount": 80, "currency": "USD",
        "device_id": "dev-1-4f8a2c7e9", "customer_account_id": "cus_1", "shipping_address": home,
    }  # fmt: skip
    # the normal evidence goes too: the fallback if the network refuses CE 3.0
    extra = orjson.loads(payload.body)["additional_evidence"]
    assert extra["payments"][0]["payment_id"] == "ch_3000" and payload.evidence.products
    assert built.ce3["dp_ce3_0"].qualifies
    assert built.ce3["dp_ce3_0"].text == "qualifies: prior orders 2001, 2002"


def test_one_qualifying_order_is_not_enough_and_the_report_says_why(tmp_path):
    history = {k: v for k, v in HISTORY.items() if k != "2002"}
    built = _build(tmp_path, history=history)
    verdict = built.ce3["dp_ce3_0"]
    assert not verdict.qualifies
    assert verdict.why.startswith("only 1 prior order in window")
    assert "visa_ce3" not in orjson.loads(built.payloads[0].body)["additional_evidence"]


def test_without_ip_or_device_it_says_capture_it_and_counts_what_could_have_qualified(tmp_path):
    built = _build(tmp_path, device="")
    verdict = built.ce3["dp_ce3_0"]
    assert (verdict.qualifies, verdict.why) == (False, NO_IP_OR_DEVICE)
    assert verdict.with_ip_or_device  # 2001 and 2002 match on address (and 2001 on account)
    assert ce3_summary(built.ce3) == (
        "Visa CE 3.0: 0 of 1 fraud disputes qualify; 1 more (100% of fraud disputes) could have "
        "qualified had the IP address or device ID been captured at checkout and exported"
    )


def test_history_search_is_indexed_by_card_and_day(tmp_path):
    files = write_scenario(tmp_path / "inbox")
    history = History.from_records(ingest_paths(files, tmp_path / "inbox").records)
    assert len(history.frame) == 7
    assert history.check("2004").why.startswith("no earlier paid, undisputed order")
    # 2006 used another device, account and address: 2002 and 2004 share only card and email
    assert history.check("2006").why == (
        "2 prior orders in window, none matching on IP or device ID plus one more element"
    )
    assert history.check("9999").why == "the disputed order is not in your exports"


def test_the_sandbox_receives_the_two_prior_orders(sandbox_factory, tmp_path):
    """Through the engine against the sandbox: history read on Monday counts on Tuesday."""
    sb = sandbox_factory(rows=seed_rows(1, prefix="dp_ce3_"))
    inbox = tmp_path / "inbox"
    orders, payments, disputes = write_scenario(inbox)
    monday = tmp_path / "later"
    monday.mkdir()
    disputes.rename(monday / disputes.name)  # history first, the dispute a run later
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox)
        (monday / disputes.name).rename(disputes)
        assert not orders.exists() and not payments.exists()  # archived by the first run
        engine_pass(store, sb.base_url, inbox)
        table = dispute_table(store)  # what the report shows
        assert table["visa_ce3"].tolist() == ["qualifies: prior orders 2001, 2002"]
        (line,) = [p.what for p in case_problems(table, store) if p.kind == "case_ce3"]
        assert line == "Visa CE 3.0: 1 of 1 fraud disputes qualify"  # no "0 more (0%)" clause
    sent = sb.snapshot()["dp_ce3_0"]["evidence"]["additional_evidence"]
    assert [p["order_number"] for p in sent["visa_ce3"]["prior_transactions"]] == ["2001", "2002"]
    assert sent["shipping_address"] and sent["payments"]


def test_a_state_from_before_a_new_column_takes_exports_that_have_it(sandbox_factory, tmp_path):
    """A state whose record table lacks a field added since (pandas made those tables, v11)
    is brought to the schema's shape when it opens; the export that has the field is read."""
    import sqlite3

    from tests.support.old_state import as_version

    sb = sandbox_factory(rows=seed_rows(1, prefix="dp_ce3_"))
    inbox = tmp_path / "inbox"
    orders, payments, _ = write_scenario(inbox)
    later = tmp_path / "later"
    later.mkdir()
    for f in (orders, payments):
        f.rename(later / f.name)
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox)  # the disputes list only
    with sqlite3.connect(tmp_path / "state.sqlite3") as c:  # as before network_reason_code
        c.execute("ALTER TABLE rec_disputes DROP COLUMN network_reason_code")
        as_version(c, 11)
    for f in (orders, payments):
        (later / f.name).rename(f)
    write_csv(inbox / "disputes-2.csv", ["provider_dispute_id", "order_number", "reason",
              "network_reason_code"], [{"provider_dispute_id": "dp_ce3_0",
              "order_number": "#3000", "reason": "fraudulent", "network_reason_code": "10.4"}])  # fmt: skip
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox)
    sent = sb.snapshot()["dp_ce3_0"]["evidence"]["additional_evidence"]
    assert sent["dispute"]["network_reason_code"] == "10.4"
    assert [p["order_number"] for p in sent["visa_ce3"]["prior_transactions"]] == ["2001", "2002"]


def test_the_letter_shows_the_disputed_order_and_the_two_priors_side_by_side(tmp_path):
    """Issue 36, finding 9: the values that match (device, address, account) are on the
    reviewer's page, in one table, not only named."""
    import io

    from pypdf import PdfReader

    from dispute_evidence.evidence.summary_pdf import summary_pdf

    (payload,) = _build(tmp_path).payloads
    from dispute_evidence.evidence.dispute_facts import load_facts

    facts = load_facts(payload.facts_json)
    page = PdfReader(io.BytesIO(summary_pdf("dp_ce3_0", facts, []))).pages[0]
    text = " ".join((page.extract_text() or "").split())
    assert "The disputed order and the two earlier orders, side by side:" in text, text
    table = text.split("The disputed order and the two earlier orders, side by side:", 1)[1]
    for row in (
        "Order 3000 (disputed) Earlier order 2001 Earlier order 2002",
        "Date 2025-06-01 2024-11-13 2024-08-05",
        "Amount 80.00 USD 80.00 USD 80.00 USD",
        "Device ID dev-1-4f8a2c7e9 dev-1-4f8a2c7e9 dev-1-4f8a2c7e9",
        "Customer account ID cus_1 cus_1 —",
        "Matches the disputed order on — device ID, customer account ID, shipping address "
        "device ID, shipping address",
    ):
        assert row in table, (row, table)
    assert table.count("1 Main St, Boston, 02108, US") == 3, table
    assert "IP address" not in table  # no export gives one: no row of dashes
    # right under the point it shows, before the next point
    assert table.index("Matches the disputed order on") < table.index("The order was placed")
