"""Issue 45 item 1 (and item 4's POD findings): a carrier's ePOD whose table's text comes out
column by column (N labels, then N values: Blue Dart's, and many PDF generators') is paired by
position, or says nothing; a label is never a value; the waybill is read, and a POD named for
its waybill number matches its dispute. The corpus with OCR: tests/e2e/evidence/
test_pod_corpus_ocr.py; through the CLI: tests/integration/flows/test_column_epods.py."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from dispute_evidence.documents import doctext, podtext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.files import match_evidence_files
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from dispute_evidence.evidence.delivery import DeliveryFact, DeliveryState, Shipment
from support.docfixtures import columns_pdf
from support.pod_corpus import COLUMNS, FIELDS, LABELS, read_rates

# The issue's Blue Dart ePOD as pypdf returned it: 12 labels, then their 12 values
BLUE_DART = [
    "Blue Dart Express Ltd",
    "ePOD - Electronic Proof of Delivery",
    "Waybill No",
    "Pickup Date",
    "Origin",
    "Destination",
    "Product",
    "Pieces",
    "Status",
    "Delivered Date",
    "Delivered Time",
    "Receiver Name",
    "Relation",
    "Delivery Address",
    "77312345690",
    "05/12/2025",
    "MUMBAI",
    "BENGALURU",
    "Dart Apex",
    "1",
    "DELIVERED",
    "09/12/2025",
    "14:32",
    "Rohith T",
    "SELF",
    "Indiranagar, Bengaluru 560038",
]


def _plain(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _facts(lines: list[str], name: str = "BlueDart ePOD 77312345690.pdf") -> DocumentFacts:
    base = DocumentFacts(name, "", "proof_of_delivery", "text")
    return doctext.facts(base, ["\n".join(lines)], dayfirst=True)


def test_a_column_of_labels_then_its_values_is_paired_by_position():
    facts = _facts(BLUE_DART)
    d = facts.delivery
    assert d is not None  # was: signed_by 'Relation', address 'Pickup Date', on the pickup date
    assert (d.on, d.signed_by, d.address) == (
        date(2025, 12, 9),
        "Rohith T",
        "Indiranagar, Bengaluru 560038",
    )
    assert facts.tracking_numbers == ("77312345690",)


def test_values_fewer_than_labels_say_nothing_and_a_label_is_never_a_value():
    short = [ln for ln in BLUE_DART if ln not in ("SELF", "14:32")]  # two values missing
    d = _facts(short).delivery
    got = [d.signed_by, d.address] if d else []
    assert not any(v and _plain(v) in LABELS for v in got), got
    assert "Relation" not in got and "Pickup Date" not in got
    assert d is None or d.signed_by is None  # not sure which value is whose: nothing


def test_values_that_do_not_fit_their_labels_are_not_paired():
    # a wrapped address makes one more line: each value after it is off by one
    wrapped = [*BLUE_DART[:-1], "Indiranagar,", "Bengaluru 560038"]
    wrapped[BLUE_DART.index("Rohith T")] = "09/12/2025 14:32"
    d = _facts(wrapped).delivery
    # none of the column's values is taken: one misplaced value makes every position unsure
    assert d is None or (d.on, d.signed_by, d.address) == (None, None, None), d


def test_the_labels_carriers_print_beside_a_delivery_are_labels():
    assert podtext.signer_in("Relation") is None and podtext.signer_in("Pickup Date") is None
    labels = (
        "Pickup Date",
        "Relation",
        "Origin",
        "Destination",
        "Delivered Time",
        "Booking Date",
        "Relationship",
        "Shipper Reference",
        "Posted on",
        "Pincode",
    )
    for label in labels:
        assert podtext.is_label(label), label
    for value in ("Rohith T", "SELF", "MUMBAI", "Indiranagar, Bengaluru 560038", "J. Patel"):
        assert not podtext.is_label(value), value


def test_the_column_ordered_text_pdfs_of_the_corpus_are_read_right(tmp_path: Path):
    """The corpus's five carriers as text PDFs (their images: the e2e corpus test)."""
    texts = tuple(lay for lay in COLUMNS if lay.mime == "application/pdf")
    rates = read_rates(tmp_path, texts)
    print("\n".join(rates.lines()))
    assert rates.layouts == len(texts) >= 5
    assert all(rates.rates[name] >= 0.9 for name in FIELDS), rates
    assert rates.labels == []
    assert "relation" in LABELS and "pickupdate" in LABELS


def _reader(files):
    items = [ToRead(f.path, f.path.name, f.mime, f.sha256) for f in files]
    return read_documents(items, ReadLimits(seconds=10, dayfirst=True))


def test_a_pod_named_for_its_waybill_matches_by_name_and_one_naming_it_by_content(tmp_path):
    rows = [
        ("Waybill No", "77312345690"),
        ("Pickup Date", "05/12/2025"),
        ("Delivered Date", "09/12/2025"),
        ("Receiver Name", "Rohith T"),
    ]
    named = columns_pdf(tmp_path / "BlueDart ePOD 77312345690.pdf", ["Blue Dart ePOD"], rows)
    other = [
        ("Waybill", "1490811239876"),
        ("Delivered On", "07 Dec 2025"),
        ("Received By", "Kavya Menon"),
    ]
    scan = columns_pdf(tmp_path / "scan_0042.pdf", ["Delhivery", "Proof of Delivery"], other)
    disputes = {"dp_a": "1041", "dp_b": "1042"}
    tracking = {"77312345690": {"dp_a"}, "1490811239876": {"dp_b"}}
    matches, issues = match_evidence_files(
        [named, scan], tmp_path, disputes, read=_reader, tracking=lambda: tracking
    )
    assert issues == []
    how = {f.label: (pid, f.matched) for pid, fs in matches.items() for f in fs}
    assert how == {
        "BlueDart ePOD 77312345690.pdf": ("dp_a", "name"),
        "scan_0042.pdf": ("dp_b", "content: names tracking number 1490811239876"),
    }
    (blue,) = matches["dp_a"]
    assert blue.facts is not None and blue.facts.kind == "proof_of_delivery"


def test_a_name_naming_no_tracking_number_never_asks_for_them(tmp_path):
    pdf = columns_pdf(tmp_path / "1041 pod.pdf", ["POD"], [("Status", "Delivered")])

    def tracking():
        raise AssertionError("read every payload for a file named for its order")

    matches, _ = match_evidence_files([pdf], tmp_path, {"dp_a": "1041"}, tracking=tracking)
    assert list(matches) == ["dp_a"]


def _ship(track: str, state: DeliveryState, status: str, on: str = "") -> Shipment:
    fact = DeliveryFact(state, on, status=status, source="shipments", tracking_number=track)
    return Shipment(track, "UPS", "2025-12-01", fact)


def test_a_partial_delivery_is_said_as_partial():
    from dispute_evidence.evidence.delivery import in_part

    done = _ship("1Z001", "delivered", "delivered", "2025-12-09")
    parcels = (done, _ship("1Z002", "unknown", "in transit"))
    words = in_part("delivered 2025-12-09", done.delivery, parcels)
    assert words == (
        "delivered in part, 1 of 2 parcels: 1Z001 delivered 2025-12-09; "
        "not delivered: 1Z002 (in transit)"
    )
    assert in_part("delivered 2025-12-09", done.delivery, (done,)) == ""


def test_a_held_proof_of_another_parcel_is_said_beside_the_delivery():
    from dispute_evidence.evidence.delivery import with_held_proofs

    words = with_held_proofs("not confirmed (carrier status: in transit)", ["1041 pod.pdf"])
    assert words == (
        "not confirmed (carrier status: in transit); 1041 pod.pdf: a proof of delivery for "
        "another parcel, not sent"
    )
    assert with_held_proofs("not confirmed", []) == "not confirmed"


def test_a_signature_image_in_the_column_leaves_every_field_unsaid_never_wrong():
    """A label whose value is an image (no text): the values are one fewer than the labels,
    so none is placed; the pickup date is never taken for the delivery's."""
    at = BLUE_DART.index("Receiver Name")
    lines = [*BLUE_DART[:at], "Signature", *BLUE_DART[at:]]
    d = _facts(lines).delivery
    assert d is not None and d.quote.text == "DELIVERED"  # the carrier's word, not a label
    assert (d.on, d.signed_by, d.address) == (None, None, None)
