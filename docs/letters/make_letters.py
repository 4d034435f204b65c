"""Regenerate docs/letters/ from a real run: `python docs/letters/make_letters.py`.

An inbox is made in a temporary folder (a disputes list with one dispute per reason, orders,
payments and shipments sheets, and the documents an analyst drops: a carrier's proof of
delivery, the refund policy, the customer's email, each a PDF with a text layer), then
`dispute-evidence run --inbox … --sandbox` runs against the inbox's own local API, and each
dispute's evidence summary PDF, as uploaded, is copied here with a PNG of each page
(`pdftoppm -png`). The facts are invented; the letters are what the pipeline writes.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

HERE = Path(__file__).parent
TRACK = "1Z999AA10123456784"
# reason -> (dispute id, order number, example name)
DISPUTES = {
    "product_not_received": ("dp_1041", "1041", "not_received"),
    "fraudulent": ("dp_1042", "1042", "fraud"),
    "product_unacceptable": ("dp_1043", "1043", "not_as_described"),
    "credit_not_processed": ("dp_1044", "1044", "credit_not_processed"),
    "subscription_canceled": ("dp_1045", "1045", "subscription_canceled"),
    "duplicate": ("dp_1046", "1046", "duplicate"),
    "general": ("dp_1047", "1047", "general"),
}
ACCEPT = ("dp_1048", "1048", "accept_unfulfilled")  # not received, never fulfilled: accept
# issue 36's cases: what proves the cardholder right is conceded (held as accept), a partial
# credit asks only for the rest, an order in two parcels is delivered in part
EXTRA = {
    "accept_defect": ("dp_1049", "1049", "product_unacceptable"),
    "accept_returned": ("dp_1050", "1050", "credit_not_processed"),
    "accept_cancelled": ("dp_1051", "1051", "subscription_canceled"),
    "accept_duplicate": ("dp_1052", "1052", "duplicate"),
    "partial_credit": ("dp_1053", "1053", "product_not_received"),
    "partial_shipment": ("dp_1054", "1054", "product_not_received"),
    "fraud_ce3": ("dp_1055", "1055", "fraudulent"),
}
# Visa CE 3.0 for 1055: two earlier orders on the same card, never disputed, 150 and 210 days
# before it, bought from the same device, shipped to the same address, on the same account
CE3_PRIORS = {"955": "2026-05-05 14:21:09", "956": "2026-03-06 09:12:40"}
DEVICE = "a41f0c9e-77b2-4d3e-9f51-2c8e6b1d0f3a"  # the checkout's device ID (Shopify's export)
ACCOUNT = "cus_QbW8nS2kD7xLmZ"  # the customer's account (Stripe's Customer ID)
CE3_ORDERS = ("1055", *CE3_PRIORS)
# issue 44's cases: order -> (example name, reason, ordered at, dispute opened)
NEW = {
    "1060": ("credit_before_dispute", "credit_not_processed", "2026-10-09 11:20:05", "2026-10-20"),
    "1061": ("retraction", "product_unacceptable", "2026-10-09 11:40:15", "2026-10-25"),
    "1062": ("two_orders_one_day", "duplicate", "2026-10-12 09:02:55", "2026-10-22"),
    "1064": (
        "subscription_6_renewals",
        "subscription_canceled",
        "2026-06-02 18:02:55",
        "2026-11-20",
    ),
    "1065": ("digital_licence", "product_not_received", "2026-11-03 10:14:00", "2026-11-24"),
    "1066": ("visa_avs_invalid", "fraudulent", "2026-11-01 10:00:00", "2026-11-22"),
}
BEN = "ben.jones@example.com"
# the duplicate claim's order on a day of its own: on 2026-10-02 the same card paid 14 other
# orders of 129.00 USD at the same second, which no real customer does (the letter could name
# no other charge, and the analyst was told of 14 equally near)
DUPLICATE_DAY = "2026-09-28"
SECOND = "1063"  # the other order paid on 1062's day, the same amount, shipped too
RENEWALS = ["2026-06-02", "2026-07-02", "2026-08-02", "2026-09-02", "2026-10-02", "2026-11-02"]
# the acquirer reference number and the issuer's authorisation code of a few disputed charges
REFERENCES = {
    "ch_1041A": ("74837716275001234567891", "A1B2C3"),
    "ch_1042A": ("74837716275001234567892", "0K7Q4M"),
    "ch_1066A": ("74837716305001234567893", "831204"),
}
ADDRESS = ("12 Elm Street", "Boston", "MA", "02108", "United States")


def _csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _pdf(path: Path, lines: list[str]) -> None:
    c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    c.setFont("Helvetica", 12)
    for i, line in enumerate(lines):
        c.drawString(60, 780 - 20 * i, line)
    c.save()


def _orders(inbox: Path) -> None:
    header = ["Name", "Email", "Financial Status", "Fulfillment Status", "Created at", "Currency",
              "Subtotal", "Total", "Refunded Amount", "Lineitem quantity", "Lineitem name",
              "Lineitem price", "Billing Name", "Billing Address1", "Billing City",
              "Billing Zip", "Billing Province", "Billing Country", "Shipping Address1",
              "Shipping City", "Shipping Zip", "Shipping Province", "Shipping Country",
              "Shipping Method", "Device ID"]  # fmt: skip
    rows = []
    extra = [(name, (pid, order, name)) for name, (pid, order, _) in EXTRA.items()]
    priors = [("prior", ("", order, "")) for order in CE3_PRIORS]
    new = [(name, ("", order, "")) for order, (name, *_) in NEW.items()]
    for reason, (_, order, _) in [*DISPUTES.items(), ("accept", ACCEPT), *extra, *priors, *new,
                                  ("second", ("", SECOND, ""))]:  # fmt: skip
        refunded = "25.00" if reason in ("credit_not_processed", "partial_credit") else "0.00"
        refunded = "129.00" if reason == "credit_before_dispute" else refunded
        fulfilled = "unfulfilled" if order == ACCEPT[1] else "fulfilled"
        created = CE3_PRIORS.get(order, NEW.get(order, ("", "", "2026-10-02 18:02:55"))[2])
        created = "2026-10-12 09:41:20" if order == SECOND else created
        created = f"{DUPLICATE_DAY} 18:02:55" if order == "1046" else created
        # the licence is bought by another customer: the access log is his account's alone
        email, name = (
            (BEN, "Ben Jones") if order == "1065" else ("ann.smith@example.com", "Ann Smith")
        )
        item = {
            "1045": "Acme Box - monthly subscription",
            "1051": "Acme Box - monthly subscription",
            "1064": "Acme Box - monthly subscription",
            "1065": "Photo editor licence (download)",
        }.get(order, "Skateboard deck - Maple 8.25in")
        # Shopify's own billing lines: the province left empty, the street abbreviated
        rows.append([f"#{order}", email, "paid", fulfilled,
                     f"{created} +0000", "USD", "129.00", "129.00", refunded, 1,
                     item, "129.00", name, "12 Elm St.",
                     "Boston", "02108", "", "US", *ADDRESS[:2], ADDRESS[3], ADDRESS[2],
                     ADDRESS[4], "Standard", DEVICE if order in CE3_ORDERS else ""])  # fmt: skip
    _csv(inbox / "orders_export_1.csv", header, rows)


def _payments(inbox: Path) -> None:
    header = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured",
              "Status", "Description", "Card Brand", "Card Last4", "Card AVS Line1 Status",
              "Card AVS Zip Status", "Card CVC Status", "Customer Email", "order_id (metadata)",
              "Card Fingerprint", "Customer ID"]  # fmt: skip
    rows = _new_payments()
    for _, order, _ in [*DISPUTES.values(), ACCEPT]:
        day = DUPLICATE_DAY if order == "1046" else "2026-10-02"
        rows.append([f"ch_{order}A", f"{day} 18:03:11", "129.00", "0.00", "usd", "true",
                     "Paid", f"Order #{order}", "Visa", "4242", "pass", "pass", "pass",
                     "ann.smith@example.com", order])  # fmt: skip
    rows.append(["ch_1045B", "2026-11-02 18:03:11", "129.00", "0.00", "usd", "true", "Paid",
                 "Monthly box, November 2026", "Visa", "4242", "pass", "pass", "pass",
                 "ann.smith@example.com", "1045"])  # fmt: skip
    for _, order, _ in EXTRA.values():
        rows.append([f"ch_{order}A", "2026-10-02 18:03:11", "129.00", "0.00", "usd", "true",
                     "Paid", f"Order #{order}", "Visa", "4242", "pass", "pass", "pass",
                     "ann.smith@example.com", order])  # fmt: skip
    rows.append(["ch_1052B", "2026-10-02 18:04:02", "129.00", "0.00", "usd", "true", "Paid",
                 "Order #1052", "Visa", "4242", "pass", "pass", "pass",
                 "ann.smith@example.com", "1052"])  # fmt: skip  # charged twice
    rows.append(["ch_1051B", "2026-11-02 18:03:11", "129.00", "0.00", "usd", "true", "Paid",
                 "Monthly box, November 2026", "Visa", "4242", "pass", "pass", "pass",
                 "ann.smith@example.com", "1051"])  # fmt: skip  # the renewal disputed
    for order, created in CE3_PRIORS.items():  # the earlier orders 1055's card paid for
        rows.append([f"ch_{order}A", created, "129.00", "0.00", "usd", "true", "Paid",
                     f"Order #{order}", "Visa", "4242", "pass", "pass", "pass",
                     "ann.smith@example.com", order])  # fmt: skip
    for row in rows:  # the card (its fingerprint) and the account: 1055's and its priors'
        ce3 = row[-1] in CE3_ORDERS
        row += ["fp_Ann4242", ACCOUNT] if ce3 else ["", ""]
    for row in rows:  # the refund's date (1060: refunded in full before the dispute opened)
        row += ["2026-10-17 09:30:00" if row[14] == "1060" else ""]
        row += ["US"]  # the card's issuing country
    for row in rows:  # the network's references, where the processor's export carries them
        row += list(REFERENCES.get(str(row[0]), ("", "")))
    header += ["Refunded date (UTC)", "Card Issue Country", "ARN", "Authorization Code"]
    _csv(inbox / "unified_payments.csv", header, rows)


def _new_payments() -> list[list[object]]:
    """Issue 44's cases' charges: one each, 1064's six renewals, 1063 beside 1062."""
    rows: list[list[object]] = []
    for order, (name, _, created, _) in NEW.items():
        if order == "1064":
            continue
        refunded = "129.00" if name == "credit_before_dispute" else "0.00"
        rows.append([f"ch_{order}A", created, "129.00", refunded, "usd", "true", "Paid",
                     f"Order #{order}", "Visa", "4242", "pass", "pass", "pass",
                     BEN if order == "1065" else "ann.smith@example.com", order])  # fmt: skip
    rows.append([f"ch_{SECOND}A", "2026-10-12 09:41:37", "129.00", "0.00", "usd", "true", "Paid",
                 f"Order #{SECOND}", "Visa", "4242", "pass", "pass", "pass",
                 "ann.smith@example.com", SECOND])  # fmt: skip
    for i, day in enumerate(RENEWALS, 1):
        rows.append([f"ch_1064_{i}", f"{day} 18:03:11", "129.00", "0.00", "usd", "true", "Paid",
                     f"Acme Box, renewal {i}", "Visa", "4242", "pass", "pass", "pass",
                     "ann.smith@example.com", "1064"])  # fmt: skip
    return rows


def _shipments(inbox: Path) -> None:
    header = ["order_number", "tracking_number", "carrier", "shipped_at", "delivered_at",
              "delivery_status"]  # fmt: skip
    rows: list[list[object]] = []
    for reason, (_, order, _) in DISPUTES.items():
        track = f"{TRACK[:-2]}{order[-2:]}"
        if reason == "product_not_received":  # the carrier's feed never caught up
            rows.append([order, track, "UPS", "2026-10-03", "", "In transit"])
        elif reason not in ("duplicate", "subscription_canceled"):
            rows.append([order, track, "UPS", "2026-10-03", "2026-10-06", "Delivered"])
    for name, (_, order, _) in EXTRA.items():
        track = f"{TRACK[:-2]}{order[-2:]}"
        if name in (
            "accept_defect",
            "accept_returned",
            "partial_credit",
            "partial_shipment",
            "fraud_ce3",
        ):
            rows.append([order, track, "UPS", "2026-10-03", "2026-10-06", "Delivered"])
        if name == "partial_shipment":  # the second parcel of the order, still on its way
            rows.append([order, f"{TRACK[:-3]}954", "UPS", "2026-10-04", "", "In transit"])
    for order in ("1060", "1061", "1062", SECOND, "1066"):
        rows.append([order, f"{TRACK[:-2]}{order[-2:]}", "UPS", "2026-10-13" if order < "1066"
                     else "2026-11-02", "2026-10-16" if order < "1066" else "2026-11-04",
                     "Delivered"])  # fmt: skip
    _csv(inbox / "shipments.csv", header, rows)


def _documents(inbox: Path) -> None:
    _pdf(inbox / "1041 proof of delivery.pdf", [
        "UPS Proof of Delivery", f"Tracking number: {TRACK[:-2]}41",
        "Delivered on 2026-10-06 at 16:40", "Signed by: A. Smith",
        "Delivered to: 12 Elm Street, Boston, MA 02108"])  # fmt: skip
    policy = ["Acme Outfitters refund policy",
              "Returns are accepted within 30 days of delivery for unused items in their "
              "original packaging."]  # fmt: skip
    _pdf(inbox / "1043 refund policy.pdf", policy)
    _pdf(inbox / "1044 refund policy.pdf", policy)
    _pdf(inbox / "1045 cancellation policy.pdf", [
        "Acme Box subscription terms",
        "Cancel any time before the 1st of the month; the month already begun is not refunded."])  # fmt: skip
    _pdf(inbox / "1043 email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-09", "Subject: my order 1043",
        "The board is fine, I just changed my mind. Can I send it back?"])  # fmt: skip
    _pdf(inbox / "1049 email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-07", "Subject: my order 1049",
        "The deck arrived cracked down the middle. I want my money back."])  # fmt: skip
    _pdf(inbox / "1050 email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-12", "Subject: my order 1050",
        "I sent the deck back on October 10. When will I get my refund?"])  # fmt: skip
    _pdf(inbox / "1051 email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-20", "Subject: my subscription",
        "Please cancel my subscription before the next box."])  # fmt: skip
    _pdf(inbox / "1051 cancellation policy.pdf", [
        "Acme Box subscription terms",
        "Cancel any time before the 1st of the month; the month already begun is not refunded."])  # fmt: skip
    _pdf(inbox / "1046 explanation.pdf", [
        f"Order 1046 was charged once: ch_1046A, 129.00 USD on {DUPLICATE_DAY}.",
        "No second charge exists for this order."])  # fmt: skip


def _new_documents(inbox: Path) -> None:
    policy = ["Acme Outfitters refund policy",
              "Returns are accepted within 30 days of delivery for unused items in their "
              "original packaging."]  # fmt: skip
    _pdf(inbox / "1060 refund policy.pdf", policy)
    _pdf(inbox / "1061 refund policy.pdf", policy)
    _pdf(inbox / "1062 explanation.pdf", [
        "Two orders were placed on 2026-10-12, each paid once:",
        "order 1062 (ch_1062A, 129.00 USD, 09:02) and order 1063 (ch_1063A, 129.00 USD, 09:41).",
        "Each shipped in its own parcel: 1Z999AA10123456762 and 1Z999AA10123456763."])  # fmt: skip
    _pdf(inbox / "1061 email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-18", "Subject: my order 1061",
        "The deck wobbles and one truck seems loose, this is not what I paid for.",
        "Update: never mind, it works fine now, I had not tightened the truck. Thanks!"])  # fmt: skip
    _pdf(inbox / "1064 cancellation policy.pdf", [
        "Acme Box subscription terms",
        "Cancel any time before the 1st of the month; the month already begun is not refunded."])  # fmt: skip
    with (inbox / "licence_activity_log.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Time", "Account", "Event", "IP", "Device"])
        w.writerows([
            ["2026-11-03 10:15:02", BEN, "download", "203.0.113.7", "ANN-MBP-7F3A9C2"],
            ["2026-11-03 10:21:40", BEN, "licence activated", "203.0.113.7", "ANN-MBP-7F3A9C2"],
            ["2026-11-09 19:02:11", BEN, "login", "203.0.113.7", "ANN-MBP-7F3A9C2"],
            ["2026-11-18 08:44:57", BEN, "export project", "203.0.113.7", "ANN-MBP-7F3A9C2"],
        ])  # fmt: skip


def make_inbox(inbox: Path) -> None:
    inbox.mkdir(parents=True)
    rows = [[pid, f"#{order}", reason, "129.00", "USD"]
            for reason, (pid, order, _) in DISPUTES.items()]  # fmt: skip
    rows.append([ACCEPT[0], f"#{ACCEPT[1]}", "product_not_received", "129.00", "USD"])
    rows += [[pid, f"#{order}", reason, "129.00", "USD"] for pid, order, reason in EXTRA.values()]
    for row in rows:  # no opening date given, as the exports say; 1044's is 45 days after
        row.append("2026-11-20" if row[0] == "dp_1044" else "")  # its delivery
    rows += [[f"dp_{order}", f"#{order}", reason, "129.00", "USD", opened]
             for order, (_, reason, _, opened) in NEW.items()]  # fmt: skip
    _csv(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "amount",
                                  "currency", "dispute_date"], rows)  # fmt: skip
    _orders(inbox)
    _payments(inbox)
    _shipments(inbox)
    _documents(inbox)
    _new_documents(inbox)


def summaries(inbox: Path) -> dict[str, Path]:
    """Each dispute's current summary PDF, as the run registered it."""
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateStore

    table = StateStore(default_state(inbox)).reports.file_table()
    rows = table.loc[table["file_name"].str.contains("-evidence-summary")]
    return {str(r.provider_dispute_id): Path(str(r.path)) for r in rows.itertuples(index=False)}


def run_sandbox(inbox: Path, **env: str) -> None:
    """`dispute-evidence run --sandbox` on `inbox` as Acme Outfitters (extra settings in env)."""
    cli = [sys.executable, "-m", "dispute_evidence", "run", "--inbox", str(inbox), "--sandbox"]
    subprocess.run(cli, check=False, env={
        **os.environ,
        "DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS": "0",
        "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_ID": "acct_1Acme",
        "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME": "Acme Outfitters",
        "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_WEBSITE": "https://acme-outfitters.example",
        "DISPUTE_EVIDENCE_MERCHANT__MERCHANT_CONTACT": "disputes@acme-outfitters.example",
        "DISPUTE_EVIDENCE_MERCHANT__COUNTRY": "US",  # Visa's AVS rule: a US domestic charge
        **env,
    })  # fmt: skip


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inbox = Path(tmp) / "inbox"
        make_inbox(inbox)
        run_sandbox(inbox)
        made = summaries(inbox)
        extra = [(pid, order, name) for name, (pid, order, _) in EXTRA.items()]
        new = [(f"dp_{order}", order, name) for order, (name, *_) in NEW.items()]
        for pid, _, name in [*DISPUTES.values(), ACCEPT, *extra, *new]:
            if pid not in made:
                print(f"{name}: no evidence summary for {pid}", file=sys.stderr)
                continue
            for old in HERE.glob(f"{name}*.png"):
                old.unlink()
            pdf = HERE / f"{name}.pdf"
            shutil.copyfile(made[pid], pdf)
            subprocess.run(["pdftoppm", "-png", "-r", "70", str(pdf), str(HERE / name)],
                           check=True)  # fmt: skip


if __name__ == "__main__":
    main()
