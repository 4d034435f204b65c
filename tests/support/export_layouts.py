"""Writers for hand-made files in the real export layouts (shared/spec/export-layouts.md)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

SHOPIFY_79 = ["Name", "Email", "Financial Status", "Paid at", "Fulfillment Status", "Fulfilled at", "Accepts Marketing", "Currency", "Subtotal", "Shipping", "Taxes", "Total", "Discount Code", "Discount Amount", "Shipping Method", "Created at", "Lineitem quantity", "Lineitem name", "Lineitem price", "Lineitem compare at price", "Lineitem sku", "Lineitem requires shipping", "Lineitem taxable", "Lineitem fulfillment status", "Billing Name", "Billing Street", "Billing Address1", "Billing Address2", "Billing Company", "Billing City", "Billing Zip", "Billing Province", "Billing Country", "Billing Phone", "Shipping Name", "Shipping Street", "Shipping Address1", "Shipping Address2", "Shipping Company", "Shipping City", "Shipping Zip", "Shipping Province", "Shipping Country", "Shipping Phone", "Notes", "Note Attributes", "Cancelled at", "Payment Method", "Payment Reference", "Refunded Amount", "Vendor", "Outstanding Balance", "Employee", "Location", "Device ID", "Id", "Tags", "Risk Level", "Source", "Lineitem discount", "Tax 1 Name", "Tax 1 Value", "Tax 2 Name", "Tax 2 Value", "Tax 3 Name", "Tax 3 Value", "Tax 4 Name", "Tax 4 Value", "Tax 5 Name", "Tax 5 Value", "Phone", "Receipt Number", "Duties", "Billing Province Name", "Shipping Province Name", "Payment ID", "Payment Terms Name", "Next Payment Due At", "Payment References"]  # fmt: skip
SHOPIFY_75 = SHOPIFY_79[: SHOPIFY_79.index("Shipping Province Name") + 1]
SHIPSTATION = ["Order #", "Store", "Age", "Order Date", "Item Name", "Recipient", "Ship Date", "Quantity",
               "Item SKU", "Order Total", "Shipping Paid", "Rate", "Service", "Tags"]  # fmt: skip
STRIPE_PAYMENTS = ["id", "Created date (UTC)", "Amount", "Amount Refunded", "Currency", "Captured", "Converted Amount", "Converted Amount Refunded", "Converted Currency", "Description", "Fee", "Is Link", "Mode", "PaymentIntent ID", "Payment Source Type", "Refunded date (UTC)", "Statement Descriptor", "Status", "Seller Message", "Taxes On Fee", "Card ID", "Card Name", "Card Address Line1", "Card Address Line2", "Card Address City", "Card Address State", "Card Address Country", "Card Address Zip", "Card AVS Line1 Status", "Card AVS Zip Status", "Card Brand", "Card CVC Status", "Card Exp Month", "Card Exp Year", "Card Fingerprint", "Card Funding", "Card Issue Country", "Card Last4", "Card Tokenization Method", "Customer ID", "Customer Description", "Customer Email", "Customer Phone", "Shipping Name", "Shipping Address Line1", "Shipping Address Line2", "Shipping Address City", "Shipping Address State", "Shipping Address Country", "Shipping Address Postal Code", "Disputed Amount", "Dispute Date (UTC)", "Dispute Evidence Due (UTC)", "Dispute Reason", "Dispute Status", "Invoice ID", "Invoice Number", "Checkout Session ID", "Checkout Custom Field 1 Key", "Checkout Custom Field 1 Value", "Checkout Custom Field 2 Key", "Checkout Custom Field 2 Value", "Checkout Custom Field 3 Key", "Checkout Custom Field 3 Value", "Checkout Line Item Summary", "Checkout Promotional Consent", "Checkout Terms of Service Consent", "Client Reference ID", "Payment Link ID", "UTM Campaign", "UTM Content", "UTM Medium", "UTM Source", "UTM Term", "Application Fee", "Application ID", "Destination", "Transfer", "Transfer Group"]  # fmt: skip
CHARGE_1001 = {
    "id": "ch_3PxA1", "Created date (UTC)": "2025-05-11 13:55:16", "Amount": "109.00", "Amount Refunded": "0.00",
    "Currency": "usd", "Captured": "true", "PaymentIntent ID": "pi_3PxA1", "Status": "Paid",
    "Card Name": "Ann Smith", "Card AVS Line1 Status": "pass", "Card AVS Zip Status": "pass", "Card Brand": "Visa",
    "Card CVC Status": "pass", "Card Funding": "credit", "Card Issue Country": "US", "Card Last4": "4242",
    "Customer Email": "ann@example.com", "Disputed Amount": "109.00", "Dispute Date (UTC)": "2025-06-01 10:00:00",
    "Dispute Evidence Due (UTC)": "2025-06-20 23:59:59", "Dispute Reason": "fraudulent",
    "Dispute Status": "needs_response", "orderId (metadata)": "#1001",
}  # fmt: skip

ORDER_1001 = {
    "Name": "#1001", "Email": "ann@example.com", "Financial Status": "paid", "Currency": "USD",
    "Total": "109.00", "Created at": "2025-05-11 09:55:16 -0400", "Lineitem quantity": "2",
    "Lineitem name": "Linen shirt", "Lineitem price": "49.50", "Lineitem sku": "LS-1",
    "Billing Name": "Ann Smith", "Billing Address1": "1 Main St", "Billing City": "Boston",
    "Billing Zip": "'02108", "Billing Province": "MA", "Billing Country": "US",
    "Shipping Address1": "1 Main St", "Shipping City": "Boston", "Shipping Zip": "'02108",
    "Shipping Country": "US", "Payment Reference": "c123.1", "Refunded Amount": "0.00",
    "Fulfillment Status": "fulfilled", "Shipping Method": "Standard",
}  # fmt: skip
ORDER_1001_LINE2 = {"Name": "#1001", "Lineitem quantity": "1", "Lineitem name": "Belt, \"leather\"\r\nbrown",
                    "Lineitem price": "10.00", "Lineitem sku": "BL-2"}  # fmt: skip
ORDER_1002 = {**ORDER_1001, "Name": "#1002", "Email": "bo@example.com", "Billing Name": "Bo Lee", "Total": "25",
              "Lineitem name": "Socks", "Lineitem price": "25", "Lineitem quantity": "1", "Currency": "EUR",
              "Payment Reference": "c124.1"}  # fmt: skip


def write_csv(path: Path, header: list[str], rows: list[dict[str, str]], *, encoding: str = "utf-8",
              bom: bool = False, delimiter: str = ",", quote_all: bool = False, crlf: bool = False) -> Path:  # fmt: skip
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL,
                   lineterminator="\r\n" if crlf else "\n")  # fmt: skip
    w.writerow(header)
    for row in rows:
        w.writerow([row.get(h, "") for h in header])
    data = buf.getvalue().encode(encoding)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def write_xlsx(
    path: Path, sheets: dict[str, list[list[object]]], date_cols: dict[str, set[int]] | None = None
) -> Path:
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path))
    datefmt = wb.add_format({"num_format": "yyyy-mm-dd"})
    for name, rows in sheets.items():
        ws = wb.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if isinstance(value, str) and value.startswith("="):
                    ws.write_formula(
                        r, c, value, None, 99
                    )  # stored value differs from =10*2.5 on purpose
                elif (
                    date_cols
                    and c in date_cols.get(name, set())
                    and r > 0
                    and hasattr(value, "year")
                ):
                    ws.write_datetime(r, c, value, datefmt)
                else:
                    ws.write(r, c, value)
    wb.close()
    return path
