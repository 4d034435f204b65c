"""Full card numbers (PANs) and card security codes in text: found, and covered.

PCI DSS forbids keeping a full card number unprotected, and processors refuse evidence that
shows one (Adyen says so outright). Analysts' exports and customers' messages carry them by
accident: a full number typed into a `Card Last4` cell, a customer writing "refund my card 4111
1111 1111 1111, CVV 123" in an e-mail or a chat screenshot. What this module finds is never
stored, uploaded or printed: ingest refuses the cell, a document showing one is held.

What counts as a card number, so that order, tracking and phone numbers never do:
- 13 to 19 digits in a row, or in groups separated by single spaces or dashes as cards print
  them (4-4-4-4, 4-4-4-4-3, 4-6-5 and 4-6-4);
- a prefix and a length one of the card brands issues (the table below);
- a valid Luhn check digit.
Visa's 13-digit numbers (no longer issued) are not looked for: a 13-digit tracking number
(Delhivery's AWBs are 13 digits) starting with 4 passes Luhn one time in ten.

A security code is the 3 or 4 digits after CVV, CVC, CVV2, CVC2, CID, CSC or "security code".
"""

from __future__ import annotations

import re

# (prefixes, lengths) per brand; a prefix is matched against the number's first digits
_BRANDS: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = (
    (("4",), (16, 19)),  # Visa
    (("51", "52", "53", "54", "55", *(str(p) for p in range(2221, 2721))), (16,)),  # Mastercard
    (("34", "37"), (15,)),  # American Express
    (("6011", "644", "645", "646", "647", "648", "649", "65"), (16, 17, 18, 19)),  # Discover
    (tuple(str(p) for p in range(3528, 3590)), (16, 17, 18, 19)),  # JCB
    (("300", "301", "302", "303", "304", "305", "36", "38", "39"), (14, 15, 16, 17, 18, 19)),
    (("62",), (16, 17, 18, 19)),  # UnionPay
    (("50", "56", "57", "58", "639", "67"), (16, 17, 18, 19)),  # Maestro
    (("60", "81", "82", "508"), (16,)),  # RuPay
)

_SEP = r"[ \-]"
_CANDIDATE = re.compile(
    r"(?<![\w.,/\-])(?:"
    r"\d{13,19}"  # printed without spaces
    rf"|\d{{4}}(?:{_SEP}\d{{4}}){{2,3}}(?:{_SEP}\d{{1,4}})?"  # 4-4-4-4, 4-4-4-4-3
    rf"|\d{{4}}{_SEP}\d{{6}}{_SEP}\d{{4,5}}"  # American Express 4-6-5, Diners 4-6-4
    r")(?![\w]|[.,/\-]\d)"
)
_CODE = re.compile(r"(?i)\b(CVV2?|CVC2?|CID|CSC|security\s+code)(\s*(?:[:#=]|is)?\s*)(\d{3,4})\b")
_DIGITS_ANYWHERE = re.compile(r"\d")


def luhn_ok(digits: str) -> bool:
    """Whether `digits` ends in a valid Luhn check digit."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def is_card_number(digits: str) -> bool:
    """Whether a string of digits is a number a card brand issues (prefix, length, Luhn)."""
    n = len(digits)
    return any(
        n in lengths and digits.startswith(prefixes) for prefixes, lengths in _BRANDS
    ) and luhn_ok(digits)


def _numbers(text: str) -> list[tuple[int, int]]:
    """(start, end) of each card number in `text`. A grouped number followed by one more
    group ("4111 1111 1111 1111 123", a security code written after it) counts without it."""
    found = []
    for m in _CANDIDATE.finditer(text):
        number = m.group()
        if is_card_number(re.sub(r"\D", "", number)):
            found.append((m.start(), m.end()))
            continue
        head = number[: max(number.rfind(" "), number.rfind("-"))]
        if head.count(" ") + head.count("-") >= 3 and is_card_number(re.sub(r"\D", "", head)):
            found.append((m.start(), m.start() + len(head)))
    return found


def may_hold_one(text: str) -> bool:
    """A cheap first look: fewer than 13 digits in all cannot hold a card number."""
    return len(text) >= 13 and len(_DIGITS_ANYWHERE.findall(text)) >= 13


def has_card_number(text: str) -> bool:
    return may_hold_one(text) and bool(_numbers(text))


def masked(digits: str) -> str:
    """How a card number is written in anything we keep or show: its last 4 digits only."""
    last4 = re.sub(r"\D", "", digits)[-4:]
    return f"[card number ending {last4}]"


def cover(text: str) -> str:
    """`text` with every card number reduced to its last 4 digits and every security code
    replaced by bullets; text without them is returned as it is."""
    if may_hold_one(text):
        for start, end in reversed(_numbers(text)):
            text = text[:start] + masked(text[start:end]) + text[end:]
    return _CODE.sub(lambda m: m.group(1) + m.group(2) + "•" * len(m.group(3)), text)
