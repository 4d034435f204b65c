"""The card-number corpus (issue 39, item 7): every brand's lengths, spaced and dashed, found
and covered; near-misses that fail Luhn, order, tracking and phone numbers left alone."""

from __future__ import annotations

import pytest

from dispute_evidence.cardnumbers import cover, has_card_number, is_card_number, luhn_ok


def _with_check_digit(body: str) -> str:
    """`body` completed with the digit that makes it pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


# (brand, prefix, length): each length each brand issues
BRANDS = [
    ("visa", "4", 16), ("visa", "4", 19), ("mastercard", "51", 16), ("mastercard", "55", 16),
    ("mastercard", "2221", 16), ("mastercard", "2720", 16), ("amex", "34", 15), ("amex", "37", 15),
    ("discover", "6011", 16), ("discover", "65", 19), ("discover", "644", 16),
    ("jcb", "3528", 16), ("jcb", "3589", 19), ("diners", "36", 14), ("diners", "300", 16),
    ("unionpay", "62", 16), ("unionpay", "62", 19), ("maestro", "50", 16), ("maestro", "67", 19),
    ("rupay", "60", 16), ("rupay", "508", 16),
]  # fmt: skip


def _number(prefix: str, length: int, seed: int) -> str:
    filler = "".join(str((seed * 7 + i * 3) % 10) for i in range(length - len(prefix) - 1))
    return _with_check_digit(prefix + filler)


def _spaced(digits: str, sep: str) -> str:
    if len(digits) == 15:  # American Express prints 4-6-5
        return sep.join((digits[:4], digits[4:10], digits[10:]))
    return sep.join(digits[i : i + 4] for i in range(0, len(digits), 4))


@pytest.mark.parametrize(("brand", "prefix", "length"), BRANDS)
@pytest.mark.parametrize("sep", ["", " ", "-"])
def test_every_brand_and_length_is_found_and_covered(brand, prefix, length, sep):
    digits = _number(prefix, length, length)
    assert is_card_number(digits), (brand, digits)
    shown = _spaced(digits, sep) if sep else digits
    text = f"Please refund my card {shown} (exp 12/28, CVV 123). Thanks"
    assert has_card_number(text), text
    covered = cover(text)
    assert digits[:-4] not in covered.replace(" ", "").replace("-", ""), covered
    assert f"[card number ending {digits[-4:]}]" in covered, covered
    assert "123" not in covered and "CVV •••" in covered, covered


@pytest.mark.parametrize("brand_prefix", [b[1] for b in BRANDS])
def test_a_near_miss_that_fails_luhn_is_not_a_card_number(brand_prefix):
    good = _number(brand_prefix, 16, 3)
    wrong = good[:-1] + str((int(good[-1]) + 1) % 10)
    assert not has_card_number(f"ref {wrong}") and cover(f"ref {wrong}") == f"ref {wrong}"


@pytest.mark.parametrize(
    "text",
    [
        "Order #1001", "order 100045678", "AWB / Waybill No. 1490811234567",
        "UPS 1Z999AA10123456784", "USPS 9400 1118 9922 3100 0000 00", "9400111899223100000000",
        "FedEx 772898765432", "FedEx Ground 961234567890123", "Call +91 98765 43210",
        "(555) 123-4567 ext 12", "+1 555 123 4567", "IMEI 356938035643809",
        "Invoice 2026-10-01 total 1,299.00 INR", "Delhivery consignment 28176510004536",
        "pi_3Nx4111111111111111abc", "ch_4111111111111111",
    ],
)  # fmt: skip
def test_order_tracking_and_phone_numbers_are_never_card_numbers(text):
    assert not has_card_number(text), text
    assert cover(text) == text


def test_a_security_code_after_the_number_is_not_taken_for_part_of_it():
    text = "card 4111 1111 1111 1111 123"
    assert cover(text) == "card [card number ending 1111] 123"


def test_a_card_number_in_any_cell_of_an_export_is_never_shown_or_kept(tmp_path):
    """A text cell is emptied (the rest of the row used); a number or date cell refuses the
    row as any bad value does, its value covered on the line."""
    from dispute_evidence.ingest import ingest_paths

    path = tmp_path / "o.csv"
    path.write_text(
        "order_number,product_title,price,quantity,currency_code,customer_name,order_date\n"
        "1001,Shirt,10,1,USD,Ann 4111 1111 1111 1111,2026-10-01\n"
        "1002,Hat,5555555555554444,1,USD,Bob,2026-10-01\n"
        "1003,Cap,9,1,USD,Cy,4242-4242-4242-4242\n",
        encoding="utf-8",
    )
    res = ingest_paths([path], tmp_path)
    lines = [r.line() for r in res.rejects]
    assert not any(d in line for line in lines for d in ("1111 1111", "55555555", "4242-4242")), (
        lines
    )
    assert any("customer_name" in x and "[card number ending 1111]" in x for x in lines), lines
    assert any("price" in x and "[card number ending 4444]" in x for x in lines), lines
    assert any("order_date" in x and "[card number ending 4242]" in x for x in lines), lines
    orders = res.records["orders"]
    assert orders["order_number"].tolist() == ["1001"]  # the rest of row 2 used
    assert orders["customer_name"].tolist() == [""]
