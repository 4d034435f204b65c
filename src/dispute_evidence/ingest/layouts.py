"""Table kinds, their canonical columns, and the column mappings (presets and custom) that
recognise them from headers — never from file names or column positions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal[
    "disputes",
    "orders",
    "shipments",
    "payments",
    "refunds",
    "approvals",
    "fraud_warnings",
    "statements",
    "products",
    "activity",
]

# canonical field -> required?
FIELDS: dict[str, dict[str, bool]] = {
    "disputes": {
        "provider_dispute_id": True,
        "order_number": True,
        "amount": False,
        "currency": False,
        "reason": False,
        "response_due_by": False,
        "network_reason_code": False,
        "dispute_date": False,  # when it opened (`initiated_at` too): the standing's month
        # what the merchant wants the reviewer to read, in their own words (`Merchant
        # statement` too); a notes column is internal and never read
        "statement": False,
    },
    "orders": {
        "order_number": True,
        "product_title": True,
        "price": True,
        "quantity": True,
        "currency_code": True,
        "order_date": False,
        "customer_name": False,
        "customer_email": False,
        "billing_address": False,
        "shipping_address": False,
        "sku": False,
        "payment_reference": False,
        "order_total": False,
        "refunded_amount": False,
        "financial_status": False,
        "fulfillment_status": False,
        "shipping_method": False,
        "order_subtotal": False,
        "shipping_amount": False,
        "tax_amount": False,
        "discount_amount": False,
        "cancelled_at": False,
        # Visa CE 3.0 elements (evidence/ce3.py): who bought, from where, with which card
        "customer_ip": False,
        "device_id": False,
        "customer_account_id": False,
        "card_fingerprint": False,
        "device_fingerprint": False,  # CE 3.0: used from 20 characters (a device ID: 15)
    },
    "shipments": {
        "order_number": True,
        "tracking_number": True,
        "carrier": False,
        "service": False,
        "shipped_at": False,
        "delivered_at": False,
        "delivery_status": False,
    },
    # One row per charge: the card checks and payment facts a fraud-dispute reviewer looks for.
    "payments": {
        "payment_id": True,
        "order_number": True,
        "payment_intent": False,
        "paid_at": False,
        "payment_amount": False,
        "amount_refunded": False,
        "currency": False,
        "payment_status": False,
        "customer_email": False,
        "card_name": False,
        "card_brand": False,
        "card_last4": False,
        "card_funding": False,
        "card_country": False,
        "avs_line1_check": False,
        "avs_zip_check": False,
        "cvc_check": False,
        "description": False,
        "dispute_reason": False,
        "dispute_status": False,
        "dispute_evidence_due": False,
        "shipping_address": False,
        "customer_ip": False,
        "device_id": False,
        "customer_account_id": False,
        "card_fingerprint": False,
        # the standing (standing/counts.py): when the dispute opened; "false": never settled
        "dispute_date": False,
        "captured": False,
        "refunded_at": False,  # when it was refunded: a credit stated with its date
        # the name on the cardholder's statement: Visa identifies a merchant per descriptor
        "statement_descriptor": False,
        "device_fingerprint": False,
        "three_d_secure": False,  # authenticated, data_only, ...: the standing's fraud checks
        # the network's references a reviewer finds the charge by (the letter's header)
        "arn": False,
        "authorization_code": False,
    },
    # One row per refund (a refunds log): what was credited back, when, and its reference, so
    # a credit is stated with its date and reference. `refund_amount`, not `amount`: a sheet
    # of order numbers and amounts is not taken for refunds unless it says so.
    "refunds": {
        "order_number": True,
        "refund_amount": True,
        "refunded_at": False,
        "refund_reference": False,
        "currency": False,
    },
    # A person's approvals to send held evidence: the report's disputes.xlsx with its Approve
    # column filled in (engine/review/approval.py). Approve may be blank: that row approves nothing.
    "approvals": {"provider_dispute_id": True, "approve": False, "evidence_version": False},
    # Early fraud warnings (Visa TC40, Mastercard SAFE) the issuer reported: counted in the
    # merchant's standing (standing/counts.py), never sent. A charge or an order, a date.
    "fraud_warnings": {
        "payment_id": False,
        "order_number": False,
        "reported_at": True,
        "fraud_type": False,
    },
    # A merchant's statement for one dispute or order: `<order or dispute id> statement.txt`
    # (or .md) dropped into the inbox (ingest/statements.py); no sheet is taken for one
    # unless a mapping says so.
    "statements": {"provider_dispute_id": False, "order_number": False, "statement": True},
    # The product as sold: its listing's description and images, keyed by SKU (the orders'
    # `Lineitem sku`) or else title. Shopify's products export, or a sheet of its own. Its
    # price: an order line's when the orders export gives none (evidence/line_prices.py).
    "products": {
        "handle": False,
        "sku": False,
        "product_title": False,
        "description": True,
        "image_url": False,
        "vendor": False,
        "product_type": False,
        "price": False,
    },
}
# An access or activity log (issue 44 item 10): one row per login, download, licence activation
# or session of a customer's account, as a SaaS or licence server exports it; joined to an order
# by its account (the order's email or customer account id, evidence/activity.py). Headers:
# time, account, event, IP, device (ACTIVITY_ALIASES: the names such exports use).
FIELDS["activity"] = {
    "activity_at": True,
    "account": True,
    "event": True,
    "ip": False,
    "device": False,
}
ACTIVITY_ALIASES: dict[str, tuple[str, ...]] = {
    "activity_at": (
        "activity_at",
        "time",
        "timestamp",
        "event_time",
        "occurred_at",
        "datetime",
        "date_time",
        "logged_at",
        "time_utc",
    ),
    "account": (
        "account",
        "account_email",
        "user",
        "user_email",
        "account_id",
        "login",
        "username",
    ),
    "event": ("event", "action", "activity", "event_type"),
    "ip": ("ip", "ip_address", "client_ip", "remote_ip"),
    "device": ("device", "device_id", "user_agent", "client"),
}
# Fields that hold prose, not a value: a cell may be as long as a spreadsheet allows (32,767
# characters; other fields stop at 2,000). A product description is HTML as exported.
LONG_TEXT_FIELDS = frozenset({"statement", "description"})
DATE_FIELDS = frozenset(
    {
        "response_due_by",
        "order_date",
        "shipped_at",
        "delivered_at",
        "paid_at",
        "dispute_evidence_due",
        "cancelled_at",
        "dispute_date",
        "reported_at",
        "refunded_at",
        "activity_at",
    }
)
NUMBER_FIELDS = frozenset(
    {
        "amount",
        "price",
        "quantity",
        "order_total",
        "refunded_amount",
        "payment_amount",
        "amount_refunded",
        "order_subtotal",
        "shipping_amount",
        "tax_amount",
        "discount_amount",
        "refund_amount",
    }
)
CURRENCY_FIELDS = frozenset({"currency", "currency_code"})
# Order-level fields that Shopify fills only on an order's first row.
ORDER_LEVEL = (
    "currency_code",
    "order_date",
    "customer_name",
    "customer_email",
    "billing_address",
    "shipping_address",
    "payment_reference",
    "order_total",
    "refunded_amount",
    "financial_status",
    "fulfillment_status",
    "shipping_method",
    "order_subtotal",
    "shipping_amount",
    "tax_amount",
    "discount_amount",
    "cancelled_at",
    "customer_ip",
    "device_id",
    "customer_account_id",
    "card_fingerprint",
    "device_fingerprint",
)


def norm_header(text: object) -> str:
    """`Provider Dispute ID` == `provider_dispute_id`: case, spaces, underscores, punctuation ignored."""
    return re.sub(r"[^0-9a-z]", "", str(text).lower())


@dataclass(frozen=True)
class Mapping:
    """How one layout's headers map to a kind's canonical fields.

    `columns` maps a canonical field to one header, or to several joined with ", " (addresses).
    `defaults` fills a canonical field the sheet lacks (e.g. a currency for a one-currency shop).
    `forward_fill` lists fields that only the first row of each order carries.
    `required_override` lets a preset drop a canonical requirement the real export cannot meet.
    `alternatives` lists fields whose headers are alternatives (the first present is used), not
    parts to join. `signature` holds headers that must all be present for the mapping to apply,
    so a preset with generic headers is picked only for its own export.
    """

    name: str
    kind: Kind
    columns: dict[str, tuple[str, ...]]
    defaults: dict[str, str] = field(default_factory=dict)
    forward_fill: tuple[str, ...] = ()
    required_override: frozenset[str] | None = None
    alternatives: frozenset[str] = frozenset()
    signature: frozenset[str] = frozenset()
    dayfirst: bool | None = None  # numeric dates: 01/12 is 1 December (None: decide per column)
    fill_by: str = "order_number"  # the field whose rows `forward_fill` carries values down
    any_of: frozenset[str] = frozenset()  # fields of which one at least must be found
    # fields the export has when exported whole: a sheet without them is read for what it has,
    # with one line naming what it lacks (Shopify's orders export without its price columns)
    wanted: frozenset[str] = frozenset()

    def required(self) -> set[str]:
        if self.required_override is not None:
            return set(self.required_override)
        return {f for f, req in FIELDS[self.kind].items() if req}

    def resolve(self, headers: dict[str, int]) -> dict[str, tuple[int, ...]] | None:
        """Column positions for each mapped field present, or None if a required field is missing."""
        if not self.signature <= headers.keys():
            return None
        found: dict[str, tuple[int, ...]] = {}
        for fld, names in self.columns.items():
            idx = tuple(headers[n] for n in map(norm_header, names) if n in headers)
            if idx:
                found[fld] = idx[:1] if fld in self.alternatives else idx
        missing = self.required() - set(found) - set(self.defaults)
        if self.any_of and not self.any_of & found.keys():
            return None
        return None if missing else found

    def missing_required(self, headers: dict[str, int]) -> list[str]:
        present = {
            f for f, names in self.columns.items() if any(norm_header(n) in headers for n in names)
        }
        return sorted(self.required() - present - set(self.defaults))


# Canonical fields a second header also names (the API's own word, Stripe's): the first present
CANONICAL_ALIASES: dict[tuple[Kind, str], tuple[str, ...]] = {
    ("disputes", "dispute_date"): ("dispute_date", "initiated_at"),
    ("disputes", "statement"): ("statement", "merchant_statement"),
    ("products", "product_title"): ("product_title", "title"),
    ("products", "image_url"): ("image_url", "image"),
    ("fraud_warnings", "payment_id"): ("payment_id", "charge"),
    # a refunds log's own words for when and under what (`Refunded On`, `Refund ID`)
    ("refunds", "refunded_at"): ("refunded_at", "refunded_on", "refund_date", "refunded_date"),
    ("refunds", "refund_reference"): ("refund_reference", "refund_id"),
    # a payments sheet's refund amount is its charge's refunded amount (a charge amount beside
    # it makes the sheet a payments export: ingest/choice.py)
    ("payments", "amount_refunded"): ("amount_refunded", "refund_amount", "refunded_amount"),
    # whether 3-D Secure (or Visa Data Only) authenticated the charge, as sheets name it
    ("payments", "three_d_secure"): ("three_d_secure", "3d_secure", "3ds", "3ds_result"),
    # the acquirer reference number and the issuer's authorisation code, as processors name them
    ("payments", "arn"): ("arn", "acquirer_reference_number", "acquirer_reference"),
    ("payments", "authorization_code"): (
        "authorization_code",
        "authorisation_code",
        "auth_code",
        "approval_code",
    ),
    **{("activity", f): names for f, names in ACTIVITY_ALIASES.items()},
}


# A canonical table that names its rows by one of several fields: a products sheet gives a
# SKU or a title (a sheet with a Description column alone is no products sheet)
CANONICAL_ANY_OF: dict[Kind, frozenset[str]] = {"products": frozenset({"sku", "product_title"})}


def _canonical(kind: Kind) -> Mapping:
    columns = {f: CANONICAL_ALIASES.get((kind, f), (f,)) for f in FIELDS[kind]}
    aliased = frozenset(f for k, f in CANONICAL_ALIASES if k == kind)
    any_of = CANONICAL_ANY_OF.get(kind, frozenset())
    return Mapping(f"canonical {kind}", kind, columns, alternatives=aliased, any_of=any_of)


def _addr(prefix: str) -> tuple[str, ...]:
    return tuple(
        f"{prefix} {p}" for p in ("Address1", "Address2", "City", "Province", "Zip", "Country")
    )


SHOPIFY_ORDERS = Mapping(
    "Shopify orders export",
    "orders",
    {
        "order_number": ("Name",),
        "product_title": ("Lineitem name",),
        "price": ("Lineitem price",),
        "quantity": ("Lineitem quantity",),
        "currency_code": ("Currency",),
        "order_date": ("Created at",),
        "customer_name": ("Billing Name",),
        "customer_email": ("Email",),
        "billing_address": _addr("Billing"),
        "shipping_address": _addr("Shipping"),
        "sku": ("Lineitem sku",),
        "payment_reference": ("Payment Reference",),
        "order_total": ("Total",),
        "refunded_amount": ("Refunded Amount",),
        "financial_status": ("Financial Status",),
        "fulfillment_status": ("Fulfillment Status",),
        "shipping_method": ("Shipping Method",),
        "order_subtotal": ("Subtotal",),
        "shipping_amount": ("Shipping",),
        "tax_amount": ("Taxes",),
        "discount_amount": ("Discount Amount",),
        "cancelled_at": ("Cancelled at",),
        "device_id": ("Device ID",),  # no IP column in the export: `customer_ip` via a mapping
    },
    forward_fill=ORDER_LEVEL,
    # Shopify's own columns: the export is read even without its price columns (a 34-column
    # export from a real store has none), for its items, quantities, shipping and customer
    signature=frozenset(map(norm_header, ("Name", "Lineitem name", "Lineitem quantity"))),
    required_override=frozenset({"order_number", "product_title", "quantity", "currency_code"}),
    wanted=frozenset({"price", "order_total"}),
)

# The ShipStation orders grid has no tracking column (its shipment exports add one), so the
# preset takes tracking as optional: a row still proves what shipped, when and how.
SHIPSTATION_ORDERS = Mapping(
    "ShipStation orders export",
    "shipments",
    {
        "order_number": ("Order #",),
        "tracking_number": ("Tracking Number", "Tracking #"),
        "carrier": ("Carrier", "Provider"),
        "service": ("Service",),
        "shipped_at": ("Ship Date",),
        "delivered_at": ("Delivery Date",),
        "delivery_status": ("Delivery Status",),
    },
    required_override=frozenset({"order_number", "shipped_at"}),
    # Headers only ShipStation's grid has, so the preset is not picked for any sheet with `Order #`.
    signature=frozenset(
        map(norm_header, ("Order #", "Store", "Item Name", "Recipient", "Ship Date"))
    ),
    alternatives=frozenset({"tracking_number", "carrier"}),
    dayfirst=False,  # the grid writes US dates (5/12/2025 is May 12) whatever the shop's locale
)

# Stripe's payments export has no order-number column of its own: shops put it in metadata,
# which the export writes as `<key> (metadata)` columns. Without one, a charge still joins an
# order through the order's payment reference (charge or PaymentIntent id). The first present
# is used: a key named for the order number before one named for an id, since a shop that sets
# both puts its database id under `orderId` (Shopify's real export), which joins no order.
STRIPE_ORDER_KEYS = (
    "orderNumber (metadata)",
    "order_number (metadata)",
    "Order # (metadata)",
    "order (metadata)",
    "orderId (metadata)",
    "order_id (metadata)",
)
STRIPE_PAYMENTS = Mapping(
    "Stripe payments export",
    "payments",
    {
        "payment_id": ("id",),
        "order_number": STRIPE_ORDER_KEYS,
        "payment_intent": ("PaymentIntent ID",),
        "paid_at": ("Created date (UTC)",),
        "payment_amount": ("Amount",),
        "amount_refunded": ("Amount Refunded",),
        "currency": ("Currency",),
        "payment_status": ("Status",),
        "customer_email": ("Customer Email",),
        "card_name": ("Card Name",),
        "card_brand": ("Card Brand",),
        "card_last4": ("Card Last4",),
        "card_funding": ("Card Funding",),
        "card_country": ("Card Issue Country",),
        "avs_line1_check": ("Card AVS Line1 Status",),
        "avs_zip_check": ("Card AVS Zip Status",),
        "cvc_check": ("Card CVC Status",),
        "description": ("Description",),
        "dispute_reason": ("Dispute Reason",),
        "dispute_status": ("Dispute Status",),
        "dispute_evidence_due": ("Dispute Evidence Due (UTC)",),
        "dispute_date": ("Dispute Date (UTC)",),
        "captured": ("Captured",),
        "card_fingerprint": ("Card Fingerprint",),
        "customer_account_id": ("Customer ID",),
        "refunded_at": ("Refunded date (UTC)",),
        "statement_descriptor": ("Statement Descriptor",),
        # the network's references, when the export was given such columns (the header's line)
        "arn": ("ARN", "Acquirer Reference Number", "Acquirer Reference"),
        "authorization_code": (
            "Authorization Code",
            "Authorisation Code",
            "Auth Code",
            "Approval Code",
        ),
        "shipping_address": (
            "Shipping Address Line1",
            "Shipping Address Line2",
            "Shipping Address City",
            "Shipping Address State",
            "Shipping Address Postal Code",
            "Shipping Address Country",
        ),
    },
    required_override=frozenset({"payment_id"}),
    signature=frozenset(
        map(norm_header, ("id", "Created date (UTC)", "Amount", "Currency", "Captured"))
    ),
    alternatives=frozenset({"order_number"}),
)

# The report's disputes.xlsx (its "Dispute" column) or any sheet with a dispute id column and
# an `Approve` column. The Approve header is the signature: a disputes list is never taken for
# approvals unless it carries one.
APPROVALS = Mapping(
    "Approvals (disputes.xlsx)",
    "approvals",
    {
        "provider_dispute_id": ("provider_dispute_id", "Dispute", "Dispute ID"),
        "approve": ("Approve",),
        "evidence_version": ("Evidence version",),
    },
    signature=frozenset({norm_header("Approve")}),
    alternatives=frozenset({"provider_dispute_id"}),
)

# Stripe's early fraud warnings (radar.early_fraud_warning: id, charge, created, fraud_type),
# as a Sigma or API export writes them. `fraud_type` is the signature: no other sheet has it.
STRIPE_FRAUD_WARNINGS = Mapping(
    "Stripe early fraud warnings",
    "fraud_warnings",
    {
        "payment_id": ("charge", "Charge ID", "charge_id"),
        "reported_at": ("created", "Created (UTC)", "Created date (UTC)"),
        "fraud_type": ("fraud_type",),
        "order_number": STRIPE_ORDER_KEYS,
    },
    signature=frozenset({norm_header("fraud_type")}),
    alternatives=frozenset({"payment_id", "reported_at", "order_number"}),
)

# Shopify's products export (Admin > Products > Export), unedited: one row per variant and
# per extra image; the product's own fields (title, description, vendor, type) only on the
# first row of its handle, carried down. An image-only row is kept for its image.
SHOPIFY_PRODUCTS = Mapping(
    "Shopify products export",
    "products",
    {
        "handle": ("Handle",),
        "sku": ("Variant SKU",),
        "product_title": ("Title",),
        "description": ("Body (HTML)",),
        "image_url": ("Image Src",),
        "vendor": ("Vendor",),
        "product_type": ("Type",),
        "price": ("Variant Price",),
    },
    forward_fill=("product_title", "description", "vendor", "product_type"),
    fill_by="handle",
    required_override=frozenset({"handle"}),
    signature=frozenset(map(norm_header, ("Handle", "Title", "Body (HTML)", "Variant SKU"))),
)

PRESETS: tuple[Mapping, ...] = (
    SHOPIFY_ORDERS,
    SHIPSTATION_ORDERS,
    STRIPE_PAYMENTS,
    APPROVALS,
    STRIPE_FRAUD_WARNINGS,
    SHOPIFY_PRODUCTS,
)
CANONICAL: tuple[Mapping, ...] = (
    _canonical("disputes"),
    _canonical("orders"),
    _canonical("shipments"),
    _canonical("payments"),
    _canonical("fraud_warnings"),
    _canonical("refunds"),
    _canonical("products"),
    _canonical("activity"),
)
