"""Whether an order's lines can go as they are: every line has a price (the API takes no line
without one), and the lines add up to what the order says it came to. Pure: no I/O."""

from __future__ import annotations

from typing import Any

# Lines that add up within this much of the order's subtotal (per line: each price is rounded)
CENTS = 0.011


def waits(
    lines: list[int],
    oc: dict[str, list[Any]],
    facts: dict[str, Any],
    held: str | None,
    send_partial: bool,
) -> tuple[str, bool]:
    """Why the order's dispute is not sent yet ('' when it may go), and whether it is held
    (a person decides: `send_partial` sends it) or waits for data (a line without a price:
    the API takes none)."""
    if unpriced := _unpriced(lines, oc):
        return unpriced, False
    return held or ("" if send_partial else _lines_mismatch(lines, oc, facts)), True


def _unpriced(lines: list[int], oc: dict[str, list[Any]]) -> str:
    """Why an order's lines cannot go yet: some have no price (an orders export without its
    price columns: ingest says which); '' when every line has one."""
    if not oc["_unpriced"]:  # every line of every order has a price: nothing to look at
        return ""
    missing = [i for i in lines if oc["price"][i] is None]
    if not missing:
        return ""
    why: list[str] = oc.get("_price_missing") or []  # what the products export lacks
    titles = "; ".join(
        f"'{oc['product_title'][i]}'" + (f": {why[i]}" if why and why[i] else "")
        for i in missing[:3]
    )
    source = oc["_file"][oc["_file_code"][missing[0]]]
    return (
        f"waiting for prices: {source} gives no price for {len(missing)} of the order's "
        f"{len(lines)} line(s) ({titles}{' …' if len(missing) > 3 else ''}); export the orders "
        "again with all their columns (prices included), or Shopify's products export (its "
        "Variant Price by Variant SKU), and drop the file into the inbox"
    )


def _lines_mismatch(lines: list[int], oc: dict[str, list[Any]], facts: dict[str, Any]) -> str:
    """Why an order's lines cannot be the whole order ('' when they add up, or nothing says).

    Shopify's Subtotal is the lines less the order's discount; without a subtotal, the total is
    checked when the export also gives shipping and tax (refunds never change Total)."""
    if "order_subtotal" not in facts and "order_total" not in facts:
        return ""  # nothing to check against (most exports): no sum made
    summed = sum(oc["price"][i] * oc["quantity"][i] for i in lines)
    discount = facts.get("discount_amount", 0)
    tolerance = CENTS * len(lines)
    if (subtotal := facts.get("order_subtotal")) is not None:
        expected, what = [subtotal, subtotal + discount], "subtotal"
    elif "order_total" in facts and {"shipping_amount", "tax_amount"} <= facts.keys():
        extra = facts["shipping_amount"] + facts["tax_amount"] - discount
        expected, what = [facts["order_total"] - extra], "total less shipping, tax and discount"
    else:
        return ""
    if any(abs(summed - e) <= tolerance for e in expected):
        return ""
    currency, source = oc["currency_code"][lines[0]], oc["_file"][oc["_file_code"][lines[0]]]
    return (
        f"held: the order's {len(lines)} line(s) add up to {summed:,.2f} {currency} but its "
        f"{what} is {expected[0]:,.2f} {currency} ({source}): a line is missing or was not "
        "read; drop a corrected export of the order (or set [evidence] send_partial_orders = "
        "true to send it as it is)"
    )
