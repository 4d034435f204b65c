"""Full card numbers (PANs) and card security codes in text: found, and covered.

PCI DSS forbids keeping a full card number unprotected, and processors refuse evidence that
shows one (Adyen says so outright). Analysts' exports, file names, documents' metadata and
customers' messages carry them by accident: a full number typed into a `Card Last4` cell, a
customer writing "refund my card 4111 1111 1111 1111, CVV 123" in an e-mail, a receipt saved
as `receipt 4111111111111111.pdf`. What this module finds is never stored, uploaded or
printed: ingest covers or empties the cell, a document showing one is held, a name is covered.

How a number is looked for (the text is never rewritten first: the pattern reads it as it is,
so every position found is a position in the original, and covering it covers what a later
quote could join):
- groups of digits (any script's digits) joined by what people and programs put between
  them: spaces of every kind (no-break U+00A0, thin U+2009, narrow no-break U+202F, figure
  U+2007, ideographic, double spaces, tabs), zero-width characters, dots, dashes of every
  kind, slashes, underscores, `&nbsp;`, and a line break (an e-mail's line wrapped inside the
  number, quote marks `>` after it); a line break may also split one group in two;
- the groups laid out as cards print them: one run of 13 to 19 digits, groups of 4 with a
  last group of 1 to 4 (4-4-4-4, 4-4-4-4-3), or 4-6-5 / 4-6-4 (American Express, Diners);
  a date (4-2-2), a phone number (3-3-4, 2-5-5) or a table of amounts never is;
- a prefix and a length one of the card brands issues (the table below), and a valid Luhn
  check digit.

What is never a card number, so that order, tracking, phone numbers, IMEIs and IBANs are not
held or dropped:
- digits glued to letters (`1Z999AA1…`, `pi_3Nx41…`), or following a code that mixes them
  (`FR76 3000 6000 …`, an IBAN; `JD01 4600 …`, a DHL waybill);
- a number whose nearest label before it on its line names another kind of number (IMEI,
  IBAN, AWB, tracking, waybill, consignment, order, invoice, phone, serial, …), unless a card
  label (card, Visa, PAN, …) stands nearer;
- a number the caller knows to be something else (`known`: a row's own order or tracking
  number).
15 digits are American Express's alone: an IMEI (15 digits, with a Luhn check digit) whose
type code starts 30 or 35 would otherwise read as Diners or JCB. Visa's 13-digit numbers (no
longer issued) are not looked for: a 13-digit tracking number (Delhivery's AWBs are 13 digits)
starting with 4 passes Luhn one time in ten.

A security code is the 3 or 4 digits after CVV, CVC, CVV2, CVC2, CID, CSC or "security code".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

# (prefixes, lengths) per brand; a prefix is matched against the number's first digits
_BRANDS: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = (
    (("4",), (16, 19)),  # Visa
    (("51", "52", "53", "54", "55", *(str(p) for p in range(2221, 2721))), (16,)),  # Mastercard
    (("34", "37"), (15,)),  # American Express
    (("6011", "644", "645", "646", "647", "648", "649", "65"), (16, 17, 18, 19)),  # Discover
    (tuple(str(p) for p in range(3528, 3590)), (16, 17, 18, 19)),  # JCB
    (("300", "301", "302", "303", "304", "305", "36", "38", "39"), (14, 16, 17, 18, 19)),
    (("62",), (16, 17, 18, 19)),  # UnionPay
    (("50", "56", "57", "58", "639", "67"), (16, 17, 18, 19)),  # Maestro
    (("60", "81", "82", "508"), (16,)),  # RuPay
)

# what may stand between two groups on one line: spaces of every kind, zero-width marks,
# dots, dashes, slashes, underscores, an HTML no-break space
_H = (
    r"(?:[ \t\u00a0\u1680\u2000-\u200d\u202f\u205f\u2060\u3000\ufeff\u00ad"
    r".\-\u2010-\u2015\u2212/\\_\u00b7]|&nbsp;|&#160;|&#[xX][aA]0;)"
)
_BREAK = r"(?:\r\n|[\r\n\x0b\x0c\x85\u2028\u2029])"
_SEP = rf"(?:{_H}{{1,4}}|{_H}{{0,3}}{_BREAK}(?:[ \t>]|{_H}){{0,6}})"
# a run of letters and digits holding a digit, not inside a longer word
_TOKEN = r"(?<![^\W_])[^\W_]*?\d[^\W_]*"
_CHAIN = re.compile(rf"{_TOKEN}(?:{_SEP}{_TOKEN})*")
_TOKENS = re.compile(r"&(?:nbsp|#160|#[xX][aA]0);|(?P<token>[^\W_]+)")  # entities skipped
_HAS_BREAK = re.compile(_BREAK)
_ID_PREFIX = re.compile(r"(?i)(?<![^\W_])(?:ch|pi|py|pm|re|dp|cus|in|src|tok|txn|evt|acct)_$")
_CODE = re.compile(r"(?i)\b(CVV2?|CVC2?|CID|CSC|security\s+code)(\s*(?:[:#=]|is)?\s*)(\d{3,4})\b")
_THIRTEEN_DIGITS = re.compile(r"(?:\D*+\d){13}")
# 13 digits one after another with at most a separator's worth of what `_SEP` allows between
# two of them (never a letter: `_SEP` is at most 56 characters of spaces, marks, dashes, line
# breaks, quote marks and `&nbsp;`): a card number printed any way the detector reads holds
# such a run, and a date, an amount or a JSON text's numbers seldom do (issue 47 item 6)
_CARD_RUN = re.compile(r"\d(?:(?:&nbsp;|&#[xX][aA]0;|[\W_]){0,60}+\d){12}")
# the labels read before a number (the nearest one on its line wins)
_LABELS = re.compile(
    r"(?i)(?<![^\W_])(?:(?P<card>cards?|visa|master\s?card|mc|amex|american\s+express|"
    r"discover|jcb|maestro|diners|rupay|union\s?pay|cc|pan|credit|debit)|"
    r"imei2?|meid|iban|bic|swift|awb|air\s?way\s?bill|tracking|track|waybill|consignment|"
    r"shipment|parcel|docket|lr|order|invoice|inv|receipt\s+no|phone|tel|telephone|mobile|"
    r"cell|fax|whatsapp|serial|s/n|sn|sku|ean|upc|gtin|isbn|asin|imsi|iccid|esn|"
    r"reference|ref|booking|ticket|pnr|customer\s+id|member)(?![^\W_])"
)
_LABEL_REACH = 40
_BRAND_FIRST_DIGITS = frozenset("2345689")  # what a number the table above issues begins with
# what may stand between a label and its number: "Order #", "AWB No.", "IMEI: ", "number is"
_LABEL_GAP = re.compile(r"(?i)[\s#:.=\-]*(?:(?:no|nr|num(?:ber)?|id|code|is)\b\.?[\s#:.=\-]*){0,2}")


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


def _ascii(digits: str) -> str:
    return digits if digits.isascii() else "".join(str(int(ch)) for ch in digits)


def _printed_as_a_card(sizes: list[int]) -> bool:
    """Whether groups of these sizes are a way a card number is written."""
    if len(sizes) == 1:
        return True
    if sizes in ([4, 6, 5], [4, 6, 4]):
        return True
    return len(sizes) >= 4 and all(s == 4 for s in sizes[:-1]) and 1 <= sizes[-1] <= 4


def _layouts(sizes: list[int], breaks: list[bool]) -> Iterator[list[int]]:
    """The group sizes, and each way of joining two pieces a line break split."""
    yield sizes
    where = [i for i, b in enumerate(breaks) if b][:3]
    for mask in range(1, 1 << len(where)):
        joined = list(sizes)
        for bit, i in reversed(list(enumerate(where))):
            if mask >> bit & 1:
                joined[i : i + 2] = [joined[i] + joined[i + 1]]
        yield joined


def _labelled_otherwise(text: str, start: int) -> bool:
    """Whether the number at `start` follows a label that names another kind of number
    ("Order #", "AWB No.", "IMEI: "), with nothing else between them."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - _LABEL_REACH)
    labels = list(_LABELS.finditer(text, line_start, start))
    if not labels or labels[-1].group("card") is not None:
        return False
    return _LABEL_GAP.fullmatch(text, labels[-1].end(), start) is not None


def _spans(text: str, known: Collection[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each card number in `text`, in order."""
    for chain in _CHAIN.finditer(text):
        found = _TOKENS.finditer(text, chain.start(), chain.end())
        tokens = [t for t in found if t.group("token") is not None]
        if len(tokens) == 1 and not 13 <= len(tokens[0].group()) <= 19:
            continue
        yield from _in_chain(text, tokens, known)


def _in_chain(
    text: str, tokens: list[re.Match[str]], known: Collection[str]
) -> Iterator[tuple[int, int]]:
    """The card numbers among a chain's tokens: from each start, the longest run of digit
    groups printed as a card that passes its brand's checks. Groups after a 4-character
    group mixing letters and digits (`FR76`, an IBAN's first group) are that code's."""
    groups: list[tuple[int, int, str]] = []
    for t in tokens:
        if not t.group().isdecimal():
            if len(t.group()) == 4:
                break
            groups.append((t.start(), t.end(), ""))  # a code: no number spans it
            continue
        groups.append((t.start(), t.end(), t.group()))
    i = fresh = 0  # fresh: the first group after a card found (no longer number goes on)
    while i < len(groups):
        end = None
        if (
            groups[i][2]
            and not _glued_to_an_id(text, groups[i][0])
            and (i == fresh or not _inside(text, groups, i))
        ):
            end = _card_from(text, groups, i, known)
        if end is None:
            i += 1
            continue
        yield groups[i][0], groups[end][1]
        i = fresh = end + 1


def _inside(text: str, groups: list[tuple[int, int, str]], i: int) -> bool:
    """Whether group `i` continues a longer number printed in groups of 4 (a 22-digit USPS
    number, 9400 1118 9922 3100 0000 00): the group before it has 4 digits and the same
    separator stands before and after it."""
    if i == 0 or i + 1 >= len(groups) or len(groups[i - 1][2]) != 4:
        return False
    before = text[groups[i - 1][1] : groups[i][0]]
    return before == text[groups[i][1] : groups[i + 1][0]] and "\n" not in before


def _glued_to_an_id(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] == "_" and bool(_ID_PREFIX.search(text, 0, start))


def _card_from(
    text: str, groups: list[tuple[int, int, str]], i: int, known: Collection[str]
) -> int | None:
    """The last group of the card number starting at group `i` (the longest that fits), or
    None. Cheap on a page of numbers: a start no brand uses, or groups no card is printed as
    (unless up to 3 line breaks could join them into such groups) end the look."""
    if groups[i][2][0] not in _BRAND_FIRST_DIGITS:
        return None
    sizes: list[int] = []
    breaks: list[bool] = []
    best, total = None, 0
    for j in range(i, min(len(groups), i + 19)):
        if not groups[j][2]:
            break
        if j > i:
            breaks.append(bool(_HAS_BREAK.search(text, groups[j - 1][1], groups[j][0])))
            if not _may_go_on(sizes) and (not any(breaks) or sum(breaks) > 3):
                break
        sizes.append(len(groups[j][2]))
        total += sizes[-1]
        if total > 19:
            break
        if total < 13:
            continue
        printed = (
            _printed_as_a_card(sizes)
            if not any(breaks)
            else any(map(_printed_as_a_card, _layouts(sizes, breaks)))
        )
        if not printed:
            continue
        digits = _ascii("".join(g[2] for g in groups[i : j + 1]))
        if is_card_number(digits) and digits not in known:
            best = j
    if best is None or _labelled_otherwise(text, groups[i][0]):
        return None
    return best


def _may_go_on(sizes: list[int]) -> bool:
    """Whether groups of these sizes (none split by a line break) can begin a card number
    printed in groups: 4-4-4…, or 4-6-…"""
    return all(s == 4 for s in sizes) or sizes == [4, 6]


def may_hold_one(text: str) -> bool:
    """A cheap first look: fewer than 13 digits in all, or no run of 13 digits joined only
    by what may stand between a card's digits, cannot hold a card number."""
    return (
        len(text) >= 13
        and _THIRTEEN_DIGITS.match(text) is not None
        and _CARD_RUN.search(text) is not None
    )


def card_spans(text: str, known: Collection[str] = ()) -> list[tuple[int, int]]:
    """(start, end) of each card number in `text` (positions in `text` as it is)."""
    return list(_spans(text, known)) if may_hold_one(text) else []


def has_card_number(text: str, known: Collection[str] = ()) -> bool:
    return may_hold_one(text) and next(_spans(text, known), None) is not None


def masked(digits: str) -> str:
    """How a card number is written in anything we keep or show: its last 4 digits only."""
    last4 = _ascii("".join(ch for ch in digits if ch.isdigit()))[-4:]
    return f"[card number ending {last4}]"


def cover(text: str, known: Collection[str] = ()) -> str:
    """`text` with every card number reduced to its last 4 digits and every security code
    replaced by bullets; text without them is returned as it is. `known`: digit strings that
    are something else here (a row's own order or tracking number)."""
    if may_hold_one(text):
        for start, end in reversed(list(_spans(text, known))):
            text = text[:start] + masked(text[start:end]) + text[end:]
    if "C" not in text.upper() or not _CODE.search(text):  # most text: no security code
        return text
    return _CODE.sub(lambda m: m.group(1) + m.group(2) + "•" * len(m.group(3)), text)


def cover_text(text: str) -> str:
    """`text` covered as a door covers it: a text that is only digits is an identifier its
    field names (an order's own 16-digit number), looked at by ingest with its column, and
    is left as it is; any other text is covered (cover)."""
    return cover(text) if may_hold_one(text) and not text.isdigit() else text


def covered(value: object) -> object:
    """`value` (JSON-like: text, mappings, lists) with a card number covered in every text it
    holds, a bare number aside: a value that is only digits is an identifier its field names
    (an order's own number), never a card typed into prose (ingest looked at it with its
    column). What is unchanged is returned as it is (the same object)."""
    if isinstance(value, str):
        return cover_text(value)
    if isinstance(value, dict):
        out = {k: covered(v) for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if isinstance(value, list | tuple):
        items = [covered(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value
