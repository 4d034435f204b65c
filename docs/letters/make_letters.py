"""Render one example evidence summary (letter, data sheet, sources) per reason family into
docs/letters/: `python docs/letters/make_letters.py` (needs pdftoppm for the PNGs of page 1).

The payloads are what evidence/builder.py makes from the Shopify, Stripe and shipments layouts
(the same keys); the facts are invented."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from dispute_evidence.evidence.summary_pdf import summary_pdf

HERE = Path(__file__).parent
MERCHANT = {"merchant_id": "acct_1Acme", "merchant_name": "Acme Outfitters",
            "merchant_website": "https://acme-outfitters.example"}  # fmt: skip
ORDER = {
    "order_number": "1041", "order_date": "2026-10-02T18:02:55Z", "order_total": 129,
    "order_currency": "USD", "customer_name": "Ann Smith", "customer_email": "ann.smith@example.com",
    "billing_address": "12 Elm St, Boston, MA, 02108, US",
    "shipping_address": "12 Elm St, Boston, MA, 02108, US", "financial_status": "paid",
    "fulfillment_status": "fulfilled", "shipping_method": "Standard",
}  # fmt: skip
PRODUCTS = [
    {"product_title": "Linen shirt - Blue / M", "price": 49.5, "quantity": 2, "currency_code": "USD"},
    {"product_title": "Leather belt - Brown", "price": 25, "quantity": 1, "currency_code": "USD"},
]  # fmt: skip
CHARGE = {"payment_id": "ch_3Q1aB2LkdIwHu7ix", "paid_at": "2026-10-02T18:03:11Z", "payment_amount": 129,
          "currency": "USD", "payment_status": "Paid", "card_brand": "Visa", "card_last4": "4242",
          "avs_line1_check": "pass", "avs_zip_check": "pass", "cvc_check": "pass",
          "customer_email": "ann.smith@example.com", "description": "Order #1041"}  # fmt: skip
SHIPPED = {
    "tracking_number": "1Z999AA10123456784",
    "carrier": "UPS",
    "shipped_at": "2026-10-03T13:12:40Z",
}
DELIVERED = {**SHIPPED, "delivered_at": "2026-10-06T16:40:00Z", "delivery_status": "Delivered"}
CE3 = {"program": "Visa Compelling Evidence 3.0", "prior_transactions": [
    {"order_number": "0977", "date": "2026-05-20", "amount": 64, "currency": "USD",
     "matched": ["device ID", "customer account ID", "shipping address"]},
    {"order_number": "0902", "date": "2026-02-11", "amount": 89, "currency": "USD",
     "matched": ["device ID", "shipping address"]}]}  # fmt: skip


def _payload(reason: str, code: str = "", **extra: object) -> dict[str, object]:
    dispute = {"reason": reason, "amount": 129, "currency": "USD"}
    if code:
        dispute["network_reason_code"] = code
    return {"products": PRODUCTS, "merchant_profile": MERCHANT,
            "shipping_tracking_numbers": [SHIPPED["tracking_number"]],
            "additional_evidence": {**ORDER, "dispute": dispute, **extra}}  # fmt: skip


SOURCES = {
    "dispute": "disputes.xlsx, sheet Disputes, row 4",
    "order": "orders_export_1.csv, row 2",
    "payments": "unified_payments.csv, row 7",
    "shipments": "shipments.xlsx, sheet Sheet1, row 3",
    "history": "orders_export_1.csv rows 88 and 131; unified_payments.csv rows 40 and 61",
    "files": "files attached to this dispute: 1041 delivery-proof.pdf",
}
EXAMPLES = {
    "fraud": (_payload("fraudulent", "10.4", payments=[CHARGE], shipments=[DELIVERED], visa_ce3=CE3),
              ["1041 delivery-proof.pdf"]),
    "not_received": (_payload("product_not_received", "13.1", shipments=[DELIVERED]), ["1041 delivery-proof.pdf"]),
    "not_as_described": (_payload("product_unacceptable", shipments=[DELIVERED], refunded_amount=0),
                         ["1041 returns-policy.pdf"]),
    "credit_not_processed": (_payload("credit_not_processed", "13.6", payments=[CHARGE],
                                      refunded_amount=25, shipments=[DELIVERED]), []),
    "subscription_canceled": (_payload("subscription_canceled", payments=[{**CHARGE, "description": "Monthly box, October 2026"}]),
                              ["1041 cancellation-policy.pdf"]),
    "duplicate": (_payload("duplicate", "12.6.1", payments=[CHARGE]), []),
    "general": (_payload("general", shipments=[{**SHIPPED, "delivery_status": "In transit"}]), []),
    "no_claims": (_payload("product_not_received"), []),
}  # fmt: skip


def main() -> None:
    for family, (payload, attached) in EXAMPLES.items():
        pdf = HERE / f"{family}.pdf"
        pdf.write_bytes(summary_pdf(f"dp_example_{family}", payload, attached, SOURCES))
        if shutil.which("pdftoppm"):
            subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile",
                            str(pdf), str(HERE / family)], check=True)  # fmt: skip


if __name__ == "__main__":
    main()
