"""The inboxes whose wire payloads were recorded before the typed facts (issue 36): the sample
data, a CE 3.0 scenario, and a canonical inbox that fills every fact the builder carries
(refunds, a statement, products as sold, a network reason code, cancellations, discounts)."""

from __future__ import annotations

from pathlib import Path

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.evidence import BuildResult, build_evidence
from dispute_evidence.ingest import ingest_paths
from tests.integration.evidence.test_ce3 import write_scenario
from tests.support.engine_helpers import write_rows

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
MERCHANT = MerchantProfile(
    merchant_id="m_1", merchant_name="Acme", merchant_website="https://acme.test"
)
ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "sku",
          "order_date", "customer_name", "customer_email", "billing_address", "shipping_address",
          "payment_reference", "order_total", "refunded_amount", "financial_status",
          "fulfillment_status", "shipping_method", "order_subtotal", "shipping_amount",
          "tax_amount", "discount_amount", "cancelled_at"]  # fmt: skip
PAYMENTS = ["payment_id", "order_number", "payment_intent", "paid_at", "payment_amount",
            "amount_refunded", "currency", "payment_status", "customer_email", "card_name",
            "card_brand", "card_last4", "card_funding", "card_country", "avs_line1_check",
            "avs_zip_check", "cvc_check", "description", "dispute_reason", "dispute_status",
            "dispute_evidence_due", "refunded_at"]  # fmt: skip


def _rich(inbox: Path) -> list[Path]:
    inbox.mkdir(parents=True, exist_ok=True)
    write_rows(inbox / "disputes.csv",
               ["provider_dispute_id", "order_number", "reason", "amount", "currency",
                "network_reason_code", "statement", "response_due_by"],
               [["dp_r0", "#700", "credit_not_processed", "129.5", "USD", "13.6", "", ""],
                ["dp_r1", "701", "product_unacceptable", "60", "EUR", "",
                 "The deck was sold as it is described.", "2026-12-01"],
                ["dp_r2", "702", "duplicate", "", "", "4834", "", "2026-12-02"],
                ["dp_r3", "703", "", "12", "USD", "", "", ""]])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        ["700", "Deck", "129.5", "1", "USD", "SKB-1", "2026-10-01 10:00", "Ann Smith",
         "ann@example.com", "1 Main St, Boston", "1 Main St, Boston", "ch_700", "139.5", "20",
         "partially_refunded", "fulfilled", "UPS Ground", "129.5", "5", "5", "0", ""],
        ["701", "Wheels - Red", "30", "2", "EUR", "", "2026-10-02", "Bo", "", "", "",
         "", "", "", "paid", "unfulfilled", "", "", "", "", "", ""],
        ["701", "Bearings", "0.5", "3", "EUR", "B-9", "2026-10-02", "Bo", "", "", "", "", "",
         "", "", "", "", "", "", "", "", ""],
        ["702", "Griptape", "12.25", "1", "USD", "", "2026-10-03", "", "cy@example.com", "",
         "", "", "14", "", "", "", "", "", "", "", "1.75", "2026-10-04"],
        ["703", "Sticker", "1", "1", "USD", "", "", "", "", "", "", "", "", "", "", "", "",
         "", "", "", "", ""],
    ])  # fmt: skip
    write_rows(inbox / "shipments.csv",
               ["order_number", "tracking_number", "carrier", "service", "shipped_at",
                "delivered_at", "delivery_status"],
               [["700", "1ZA", "UPS", "Ground", "2026-10-02", "2026-10-05", "Delivered"],
                ["701", "1ZB", "DHL", "", "2026-10-03", "", "in transit"],
                ["701", "1ZC", "DHL", "", "2026-10-03", "2026-10-06", ""],
                ["702", "", "USPS", "", "2026-10-04", "", ""]])  # fmt: skip
    write_rows(inbox / "payments.csv", PAYMENTS, [
        ["ch_700", "700", "pi_700", "2026-10-01 10:01", "139.5", "20", "usd", "Paid",
         "ann@example.com", "Ann Smith", "Visa", "4242", "credit", "US", "pass", "pass", "pass",
         "Order 700", "credit_not_processed", "needs_response", "2026-11-20", "2026-10-09"],
        ["ch_702a", "702", "", "2026-10-03 09:00", "14", "0", "usd", "Paid", "", "", "Amex",
         "0005", "", "", "", "", "", "", "", "", "", ""],
        ["ch_702b", "702", "", "2026-10-03 09:00", "14", "", "usd", "Failed", "", "", "Amex",
         "0005", "", "", "", "", "", "", "", "", "", ""],
    ])  # fmt: skip
    write_rows(
        inbox / "refunds.csv",
        ["order_number", "refund_amount", "refunded_at", "refund_reference", "currency"],
        [["700", "20", "2026-10-09", "re_1", "USD"], ["700", "5.5", "", "", ""]],
    )
    write_rows(inbox / "products.csv",
               ["handle", "sku", "product_title", "description", "image_url", "vendor",
                "product_type"],
               [["deck", "SKB-1", "Maple deck", "<p>Seven-ply <b>maple</b>.</p>",
                 "https://cdn.test/d.jpg", "Acme Boards", "Decks"],
                ["wheels", "", "Wheels", "Urethane wheels, 52mm.", "", "", ""]])  # fmt: skip
    (inbox / "701 statement.txt").write_text("We shipped both parcels on time.\n")
    return sorted(p for p in inbox.iterdir() if p.is_file())


def built(tmp: Path) -> dict[str, BuildResult]:
    """Each sample inbox's build (the sample data with a merchant profile)."""
    sample = sorted(p for p in SAMPLE.iterdir() if p.is_file())
    ce3 = write_scenario(tmp / "ce3")
    rich = _rich(tmp / "rich")
    return {
        "sample_data": build_evidence(ingest_paths(sample, SAMPLE).records, MERCHANT),
        "ce3": build_evidence(ingest_paths(ce3, tmp / "ce3").records),
        "rich": build_evidence(ingest_paths(rich, tmp / "rich").records, MERCHANT),
    }


def wire_bodies(tmp: Path) -> dict[str, dict[str, str]]:
    """{inbox: {dispute: its wire payload, as the canonical JSON text}}."""
    return {
        name: {p.provider_dispute_id: p.body.decode() for p in result.payloads}
        for name, result in built(tmp).items()
    }
