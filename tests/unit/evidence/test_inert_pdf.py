"""Issue 39, item 11: no active content in any PDF we make, whatever a document brought."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

from dispute_evidence.evidence.inert_pdf import inert_bytes
from dispute_evidence.evidence.limits import PROFILES
from dispute_evidence.evidence.packet import Document, build_packet
from dispute_evidence.evidence.summary_pdf import summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts
from support.docfixtures import active_pdf, pdf_of
from tests.unit.evidence.test_pdf_building import pages_text, payload

ACTIVE_KEYS = {"/OpenAction", "/AA", "/JavaScript", "/JS", "/EmbeddedFiles", "/EF", "/XFA"}
ACTIVE_ACTIONS = {"/JavaScript", "/Launch", "/URI", "/SubmitForm"}


def active_content(body: bytes) -> set[str]:
    """Every active key, action type, embedded file or attachment annotation in any object of
    the file (by its cross-reference table, reachable or not), and in what each holds."""
    reader = PdfReader(io.BytesIO(body))
    found: set[str] = set()
    roots = [reader.trailer] + [
        reader.get_object(i) for i in range(1, int(reader.trailer["/Size"]))
    ]
    for root in roots:
        stack = [root]
        while stack:
            obj = stack.pop()
            if isinstance(obj, DictionaryObject):
                found |= {k for k in obj if k in ACTIVE_KEYS}
                for key in ("/S", "/Type", "/Subtype"):
                    value = obj.get(key)
                    if value in ACTIVE_ACTIONS | {"/EmbeddedFile", "/FileAttachment"}:
                        found.add(f"{key} {value}")
                stack += [v for v in obj.values() if not isinstance(v, IndirectObject)]
            elif isinstance(obj, ArrayObject):
                stack += [v for v in obj if not isinstance(v, IndirectObject)]
    return found


def test_the_hostile_fixture_carries_every_kind_of_active_content():
    assert active_content(active_pdf()) >= {
        "/OpenAction", "/AA", "/JavaScript", "/JS", "/EmbeddedFiles", "/EF", "/XFA",
        "/S /Launch", "/S /URI", "/S /SubmitForm", "/S /JavaScript", "/Subtype /FileAttachment",
    }  # fmt: skip


@pytest.mark.parametrize("lenient", [False, True])
def test_a_packet_holds_no_active_content_from_a_hostile_pdf_and_keeps_its_pages(lenient):
    """A PDF with an /OpenAction script, /Launch, an embedded file, /AA on the document and its
    pages, a /JavaScript name tree, URI and SubmitForm links and an XFA form: the packet (as
    uploaded, and as shown for review) holds none of it, and every page of it."""
    docs = [Document("hostile.pdf", "application/pdf", active_pdf(2, "HOSTILE")),
            Document("receipt.pdf", "application/pdf", pdf_of(1, "RECEIPT"))]  # fmt: skip
    names = [d.name for d in docs]
    packet = build_packet(
        lambda pages: summary_pdf("dp_x", wire_facts(payload()), names, pages=pages),
        docs,
        PROFILES["visa"],
        lenient=lenient,
    )
    assert active_content(packet.body) == set()
    pages = pages_text(packet.body)
    start = packet.starts["hostile.pdf"]
    assert pages[start - 1].startswith("HOSTILE page 1")
    assert pages[start].startswith("HOSTILE page 2")
    assert pages[packet.starts["receipt.pdf"] - 1].startswith("RECEIPT page 1")
    assert packet.pages == len(pages)


def test_a_clean_pdf_is_never_rewritten_and_a_hostile_one_is():
    clean = summary_pdf("dp_c", wire_facts(payload()), ["a.pdf"])
    assert active_content(clean) == set()
    assert inert_bytes(clean) == clean  # the same bytes: a rerun makes no new version
    made = inert_bytes(active_pdf(1, "ONE"))
    assert active_content(made) == set()
    assert pages_text(made)[0].startswith("ONE page 1")


def test_our_own_pdf_is_seen_inert_from_its_bytes_and_a_hostile_one_never_is():
    """The look at the bytes (inert_pdf.plainly_inert) lets our reportlab PDFs through without
    parsing them again; a file with active content, even with its names spelled in #xx escapes
    (/J#61vaScript is /JavaScript to a viewer), goes down the full walk and comes out clean."""
    from dispute_evidence.evidence.inert_pdf import plainly_inert

    assert plainly_inert(summary_pdf("dp_c", wire_facts(payload()), ["a.pdf"]))
    assert not plainly_inert(active_pdf(1, "ONE"))
    escaped = active_pdf(1, "ESCAPED")
    for name in (b"/JavaScript", b"/OpenAction", b"/Launch", b"/URI", b"/SubmitForm", b"/JS"):
        escaped = escaped.replace(name, name[:2] + b"#%02X" % name[2] + name[3:])
    assert b"/JavaScript" not in escaped and b"/J#61vaScript" in escaped
    assert active_content(escaped)  # a viewer reads the escaped names as the active ones
    made = inert_bytes(escaped)
    assert active_content(made) == set()
    assert pages_text(made)[0].startswith("ESCAPED page 1")
