"""The card-number corpus (issue 45, items 5, 6 and 10): every brand and length written every
way people and programs write them (spaces, no-break, thin, narrow and figure spaces, dots,
dashes, slashes, tabs, double spaces, zero-width marks, `&nbsp;`, broken over lines between
groups or inside one, an e-mail's quoted wrap), in text, in file names, in a PDF's metadata
and in a photo's EXIF; and at least 200 real-looking numbers that are not cards (tracking and
AWB numbers of many carriers, 16-digit tracking and order numbers that pass Luhn, IMEIs,
IBANs, phone numbers, dates). It prints two rates and asserts them: PANs caught 100%, false
holds 0."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path

from PIL import Image
from pypdf import PdfWriter

from dispute_evidence import names
from dispute_evidence.cardnumbers import cover, has_card_number, is_card_number, luhn_ok
from dispute_evidence.documents._read_worker import metadata
from tests.unit.test_cardnumbers import BRANDS, _number

SEPARATORS = {
    "space": " ",
    "no-break space": "\u00a0",
    "thin space": "\u2009",
    "narrow no-break space": "\u202f",
    "figure space": "\u2007",
    "dot": ".",
    "dash": "-",
    "en dash": "\u2013",
    "slash": "/",
    "tab": "\t",
    "double space": "  ",
    "spaced dash": " - ",
    "zero-width space": "\u200b",
    "html nbsp": "&nbsp;",
    "underscore": "_",
    "line break": "\n",
    "crlf and e-mail quote": "\r\n> ",
    "line break and indent": " \n   ",
}


def _groups(digits: str) -> list[str]:
    if len(digits) == 15:  # American Express prints 4-6-5
        return [digits[:4], digits[4:10], digits[10:]]
    return [digits[i : i + 4] for i in range(0, len(digits), 4)]


def _written(digits: str) -> dict[str, str]:
    """Each way of writing `digits` (the corpus's PAN forms)."""
    out = {"run": digits, "run broken over a line": digits[:7] + "\n" + digits[7:]}
    groups = _groups(digits)
    for what, sep in SEPARATORS.items():
        out[what] = sep.join(groups)
    joined = " ".join(groups)  # a statement's line broken inside a group: "4539 1488 03\n43 …"
    out["broken inside a group"] = joined[:12] + "\n" + joined[12:]
    return out


def _pans() -> list[tuple[str, str]]:
    """(digits, text) for each brand and length in each written form and each surrounding."""
    out = []
    for seed, (_brand, prefix, length) in enumerate(BRANDS):
        digits = _number(prefix, length, seed + 11)
        assert is_card_number(digits)
        for form in _written(digits).values():
            out += [
                (digits, f"Please refund my card {form} (exp 12/28, CVV 123). Thanks"),
                (digits, f"{form}"),
                (digits, f"Order #1041 — paid with {form}"),  # a card label nearer than order
            ]
    return out


def _luhn(body: str) -> str:
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


def _iban(country: str, bban: str) -> str:
    """A valid IBAN (its check digits computed), printed in groups of 4."""
    moved = bban + country + "00"
    number = int("".join(str(int(c, 36)) for c in moved))
    plain = f"{country}{98 - number % 97:02d}{bban}"
    return " ".join(plain[i : i + 4] for i in range(0, len(plain), 4))


def _not_cards() -> list[tuple[str, str, frozenset[str]]]:
    """(kind, text, numbers the document's own fields know) for real-looking non-cards."""
    rng = random.Random(45)

    def digits(n: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(n))

    out: list[tuple[str, str, frozenset[str]]] = []
    add: Callable[[str, str], None] = lambda kind, text: out.append((kind, text, frozenset()))  # noqa: E731
    for _ in range(12):  # UPS
        add("UPS", f"UPS 1Z{digits(3)}AA{digits(10)}")
        add("FedEx 12", f"FedEx tracking {digits(12)}")
        add("FedEx Ground 15", f"FedEx Ground 96{digits(13)}")
        add("USPS 22", " ".join(_groups("9400" + digits(18))) + " (USPS)")
        add("USPS IMpb 20", f"92055{digits(15)}")
        add("DHL Express 10", f"DHL Waybill {digits(10)}")
        add(
            "Royal Mail", f"Royal Mail {rng.choice('ABCDEFGHJK')}{rng.choice('ABCDE')}{digits(9)}GB"
        )
        add("Delhivery 13", f"Delhivery AWB {digits(13)}")
        add("Delhivery 14", f"Delhivery consignment {digits(14)}")
        add("Blue Dart 11", f"Blue Dart AWB No. {digits(11)}")
        add("DTDC", f"DTDC D{digits(8)}")
        add("Aramex", f"Aramex {digits(11)}")
        add("Canada Post 16", f"Canada Post {' '.join(_groups('7' + digits(15)))}")
    for prefix in ("4", "51", "6011", "3530", "4", "55", "4", "62"):  # pass Luhn, a prefix
        body = prefix + digits(15 - len(prefix))
        n = _luhn(body)
        assert is_card_number(n)
        add("16-digit tracking passing Luhn", f"Tracking number: {n}")
        add("16-digit AWB passing Luhn", f"AWB {' '.join(_groups(n))}")
        add("16-digit waybill passing Luhn", f"Waybill No.{n} / delivered")
        add("16-digit order number passing Luhn", f"Order #{n}")
        add("16-digit order number passing Luhn", f"Your order number {' '.join(_groups(n))}")
        out.append(
            ("16-digit number the document names as its own", f"Ref {n} delivered", frozenset({n}))
        )
    for tac in (
        "30023401",
        "30023406",
        "35332510",
        "35875010",
        "86144203",
        "01326300",
        "99001234",
        "35290611",
        "30002505",
        "35425309",
    ):
        imei = _luhn(tac + digits(6))
        add("IMEI", f"IMEI: {imei}")
        add("IMEI", f"Iridium 9555 satellite phone, serial {imei}")
        add("IMEI (unlabelled)", f"{imei}")
    for country, length in (
        ("FR", 23),
        ("DE", 18),
        ("GB", 18),
        ("ES", 20),
        ("IT", 23),
        ("NL", 14),
        ("BE", 12),
        ("PT", 21),
    ):
        for _ in range(4):
            bban = digits(length) if country not in ("GB", "NL") else "NWBK" + digits(length - 4)
            iban = _iban(country, bban)
            add("IBAN", f"IBAN {iban}")
            add("IBAN (unlabelled)", f"Please wire it to {iban} BIC AGRIFRPP")
    for _ in range(10):
        add(
            "phone",
            f"Call +1 ({digits(3)}) {digits(3)}-{digits(4)} or +44 20 {digits(4)} {digits(4)}",
        )
        add("phone", f"+91 {digits(5)} {digits(5)} / +91 {digits(5)} {digits(5)}")
        add("phone", f"Tel. +33 6 {digits(2)} {digits(2)} {digits(2)} {digits(2)}")
    for day in range(1, 11):
        add("dates", f"Shipped 2026-10-{day:02d} 12:30:45, delivered 2026-10-{day + 3:02d}")
        add("dates", f"{day:02d}/10/2026 - {day + 1:02d}/10/2026 - {day + 2:02d}/10/2026")
        add("dates", f"2026.10.{day:02d} 2026.11.{day:02d}")
    for _ in range(6):
        add("amounts", f"Total 1,{digits(3)}.00 INR; tax {digits(3)}.50; items 2 3 4")
        add("ids", f"pi_3Nx{digits(16)}abc ch_{_luhn('4' + digits(14))}")
    return out


def _pdf_with_title(title: str, tmp_path: Path) -> Path:
    writer = PdfWriter()
    writer.add_blank_page(100, 100)
    writer.add_metadata({"/Title": title, "/Subject": "receipt"})
    path = tmp_path / f"m{abs(hash(title))}.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def _jpeg_with_comment(comment: str, tmp_path: Path) -> Path:
    image = Image.new("RGB", (8, 8), "white")
    exif = image.getexif()
    exif.get_ifd(0x8769)[0x9286] = b"UNICODE\x00" + comment.encode("utf-16-be")  # UserComment
    path = tmp_path / f"e{abs(hash(comment))}.jpg"
    buf = io.BytesIO()
    image.save(buf, "JPEG", exif=exif)
    path.write_bytes(buf.getvalue())
    return path


def _caught(digits: str, text: str) -> bool:
    covered = cover(text)
    plain = "".join(ch for ch in covered if ch.isdigit())
    return has_card_number(text) and digits not in plain and digits[-4:] in covered


def test_the_corpus_rates(tmp_path, capsys):
    pans = _pans()
    caught = sum(_caught(d, t) for d, t in pans)
    # names: a file's label and its upload name
    named = [(d, f"proofs/dp_1 receipt {form}.pdf") for d, t in pans[::6] for form in [t]]
    name_ok = sum(
        d not in "".join(filter(str.isdigit, names.upload_name(n)))
        and d not in "".join(filter(str.isdigit, names.readable(n)))
        for d, n in named
    )
    # metadata: a PDF's Title, a photo's EXIF UserComment (UTF-16)
    some = pans[::37]
    meta = [
        metadata({"path": str(_pdf_with_title(t, tmp_path)), "mime": "application/pdf"})
        for _, t in some
    ] + [
        metadata({"path": str(_jpeg_with_comment(t, tmp_path)), "mime": "image/jpeg"})
        for _, t in some
    ]
    meta_ok = sum(any(has_card_number(v) for v in m.values()) for m in meta)

    not_cards = _not_cards()
    held = [
        (kind, text)
        for kind, text, known in not_cards
        if has_card_number(text, known) or cover(text, known) != text
    ]
    total = len(pans) + len(named) + len(meta)
    found = caught + name_ok + meta_ok
    with capsys.disabled():
        print(
            f"\nPANs caught: {found}/{total} = {100 * found / total:.1f}% "
            f"(text {caught}/{len(pans)}, names {name_ok}/{len(named)}, "
            f"metadata and EXIF {meta_ok}/{len(meta)})"
        )
        print(
            f"false holds: {len(held)}/{len(not_cards)} = "
            f"{100 * len(held) / len(not_cards):.1f}% "
            f"({len({k for k, _, _ in not_cards})} kinds of number)"
        )
    assert len(not_cards) >= 200
    assert found == total, [t for d, t in pans if not _caught(d, t)][:5]
    assert held == []
