"""What the standing counts against the transactions: each dispute (its month, network, and
whether it counts: a chargeback, a fraud dispute, CE 3.0-covered) and each fraud report.
Pure: records in, a frame of events out."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from dispute_evidence.evidence.ce3 import is_fraud, members
from dispute_evidence.networks import is_fraud_code
from dispute_evidence.standing.descriptors import descriptor_of
from dispute_evidence.standing.efm import usd_amounts
from dispute_evidence.standing.fraud_checks import CHARGE_FIELDS
from dispute_evidence.standing.inputs import (
    StandingInputs,
    card_network,
    code_network,
    col,
    month_of,
)

# what the disputes' side takes of each order's disputed charge
CHARGE = ["network", "date", "status", "reason", "amount", "currency", "descriptor", *CHARGE_FIELDS]


# a dispute resolved before it became a chargeback: an inquiry or retrieval (Stripe's
# `warning_*`: it becomes needs_response if it escalates) or one a prevention program such as
# RDR resolved (`prevented`). The programs count chargebacks: these are left out.
EARLY = re.compile(r"^(warning_\w*|prevented|inquiry\w*|retrieval\w*|rdr\w*)$")


# ... of which a prevention program resolved these: since April 2025 VAMP still counts a
# fraud dispute's TC40 fraud report when RDR resolved it (its TC15 only is left out)
PREVENTED = re.compile(r"^(prevented|rdr\w*)$")


def _disputed_charges(charges: pd.DataFrame | None) -> pd.DataFrame:
    """Per order number: the disputed charge's brand network, dispute date and dispute status
    (the charge with a dispute, else the order's last charge), from charge_disputes."""
    if charges is None or charges.empty:
        return pd.DataFrame(columns=CHARGE, index=pd.Index([], name="order_number"))
    p = charges.sort_values("disputed", kind="stable").drop_duplicates("order_number", keep="last")
    return p.set_index(p["order_number"].astype(str))[CHARGE]


def _named_or_disputed(payments: pd.DataFrame, orders: pd.Series) -> pd.DataFrame:
    """Every row of the charges that name one of `orders` or say they were disputed in one of
    their rows: all the disputes' side reads (a year of charges is large)."""
    said = (col(payments, "dispute_reason") != "") | (col(payments, "dispute_date") != "")
    said |= col(payments, "dispute_status") != ""
    said |= members(col(payments, "order_number"), orders.loc[orders != ""])
    if "payment_id" not in payments:
        return payments.loc[said]
    return payments.loc[members(payments["payment_id"], payments.loc[said, "payment_id"])]


def charge_disputes(payments: pd.DataFrame) -> pd.DataFrame:
    """Each charge (its latest row) with its network and what the export says of a dispute."""
    p = (
        payments.drop_duplicates("payment_id", keep="last")
        if "payment_id" in payments
        else payments
    )
    status = col(p, "dispute_status").str.strip().str.lower()
    return pd.DataFrame(
        {
            "payment_id": col(p, "payment_id"),
            "order_number": col(p, "order_number"),
            "network": card_network(col(p, "card_brand")),
            "date": col(p, "dispute_date"),
            "status": status,
            "reason": col(p, "dispute_reason"),
            "amount": col(p, "payment_amount"),
            "currency": col(p, "currency"),
            "descriptor": descriptor_of(col(p, "statement_descriptor")),
            **{f: col(p, f) for f in CHARGE_FIELDS if f != "payment_id"},
            "disputed": (col(p, "dispute_reason") != "")
            | (col(p, "dispute_date") != "")
            | (status != ""),
        }
    )


def dispute_events(inputs: StandingInputs, by_brand: bool) -> pd.DataFrame:
    """One row per dispute: its month ('' unknown), network ('' unknown), its order, whether
    CE 3.0 covers it, whether it was resolved before a chargeback (`early`), by a prevention
    program (`prevented`), whether it is a fraud dispute (its reason or reason code), and
    whether only the payments export knows it (`unlisted`)."""
    d = inputs.disputes.drop_duplicates("provider_dispute_id", keep="last")
    pids = d["provider_dispute_id"].astype(str)
    orders = col(d, "order_number")
    charges = None
    if inputs.payments is not None and not inputs.payments.empty:
        charges = charge_disputes(_named_or_disputed(inputs.payments, orders))
    charge = _disputed_charges(charges).reindex(orders.to_numpy())
    charge.index = d.index
    opened = pids.map(inputs.opened).fillna("").astype(str)
    when = opened.where(opened != "", charge["date"].fillna("").astype(str))
    when = when.where(when != "", col(d, "dispute_date"))
    if by_brand:
        network = charge["network"].fillna("").astype(str)
        network = network.where(network != "", code_network(col(d, "network_reason_code")))
    else:
        network = pd.Series("all", index=d.index)
    status = pids.map(inputs.api_status).fillna("").astype(str).str.strip().str.lower()
    status = status.where(status != "", charge["status"].fillna("").astype(str))
    code = col(d, "network_reason_code")
    fraud = _fraud(col(d, "reason"), code) | _fraud(charge["reason"].fillna("").astype(str))
    amount_usd = usd_amounts(col(d, "amount"), col(d, "currency")).fillna(
        usd_amounts(charge["amount"], charge["currency"].fillna(""))
    )
    listed = pd.DataFrame(
        {
            "month": month_of(when),
            "network": network,
            "order_number": orders,
            "ce3": pids.isin(inputs.ce3_qualified),
            "early": is_early(status),
            "prevented": is_prevented(status),
            "fraud": fraud,
            "amount_usd": amount_usd,
            "unlisted": False,
            "descriptor": charge["descriptor"].fillna("").astype(str),
            "dispute": pids,
            "opened": when,
            **{f: charge[f].fillna("").astype(str) for f in CHARGE_FIELDS},
        }
    )
    return pd.concat([listed, _unlisted(charges, set(orders))], ignore_index=True)


def _fraud(reason: pd.Series, code: pd.Series | None = None) -> pd.Series:
    """Whether each dispute is a fraud dispute: its reason (fraudulent, unrecognized) or its
    network reason code (Visa 10.x, Mastercard 4837...: networks.py)."""
    codes, distinct = pd.factorize(reason.astype(str))
    said = np.array([*(is_fraud(r) for r in distinct), False])[codes]
    if code is not None:
        codes, distinct = pd.factorize(code.astype(str))
        said = said | np.array([*(is_fraud_code(c) for c in distinct), False])[codes]
    return pd.Series(said, index=reason.index, dtype=bool)


def is_prevented(status: pd.Series) -> pd.Series:
    """Whether each status says a prevention program (RDR) resolved the dispute."""
    return status.fillna("").astype(str).str.strip().str.lower().str.match(PREVENTED)


def is_early(status: pd.Series) -> pd.Series:
    """Whether each status says the dispute was resolved before it became a chargeback."""
    return status.fillna("").astype(str).str.strip().str.lower().str.match(EARLY)


def _unlisted(charges: pd.DataFrame | None, listed_orders: set[str]) -> pd.DataFrame:
    """Disputes the payments export shows on a charge (Dispute Date, Reason or Status) whose
    order the disputes list does not name: in the month of the charge's dispute date."""
    if charges is None or charges.empty:
        columns = ["month", "network", "order_number", "ce3", "early", "prevented", "fraud"]
        return pd.DataFrame(columns=[*columns, "unlisted", "descriptor"])
    c = charges
    c = c.loc[c["disputed"] & ~(c["order_number"].isin(listed_orders) & (c["order_number"] != ""))]
    return pd.DataFrame(
        {
            "month": month_of(c["date"]),
            "network": c["network"],
            "order_number": c["order_number"],
            "ce3": False,
            "early": is_early(c["status"]),
            "prevented": is_prevented(c["status"]),
            "fraud": _fraud(c["reason"]),
            "amount_usd": usd_amounts(c["amount"], c["currency"]),
            "unlisted": True,
            "descriptor": c["descriptor"],
            "dispute": "",
            "opened": c["date"],
            **{f: c[f] for f in CHARGE_FIELDS},
        }
    )


def fraud_events(inputs: StandingInputs, by_brand: bool, ce3_orders: set[str]) -> pd.DataFrame:
    """One row per fraud report: its month, network, and whether CE 3.0 covers its dispute."""
    f = inputs.fraud if inputs.fraud is not None else pd.DataFrame()
    if f.empty:
        columns = ["month", "network", "ce3", "order_number", "raised", "descriptor"]
        return pd.DataFrame(columns=columns)
    order = col(f, "order_number")
    network = pd.Series("all", index=f.index)
    descriptor = pd.Series("", index=f.index)
    if by_brand and inputs.payments is not None:
        p = inputs.payments  # the reported charges only: a year of charges is large
        p = p.loc[members(p["payment_id"], col(f, "payment_id"))]
        p = p.drop_duplicates("payment_id", keep="last")
        brands = pd.Series(card_network(col(p, "card_brand")).to_numpy(), index=p["payment_id"])
        orders = pd.Series(col(p, "order_number").to_numpy(), index=p["payment_id"])
        named = descriptor_of(col(p, "statement_descriptor"))
        charge = col(f, "payment_id")
        network = charge.map(brands).fillna("").astype(str)
        descriptor = charge.map(pd.Series(named.to_numpy(), index=p["payment_id"]))
        descriptor = descriptor.fillna("").astype(str)
        order = order.where(order != "", charge.map(orders).fillna("").astype(str))
    return pd.DataFrame(
        {
            "month": month_of(col(f, "reported_at")),
            "network": network,
            "ce3": order.isin(ce3_orders) & (order != ""),
            "order_number": order,
            "raised": False,
            "descriptor": descriptor,
        }
    )
