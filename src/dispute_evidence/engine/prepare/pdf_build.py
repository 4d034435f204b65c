"""One dispute's generated PDFs built: the letter and data sheet (evidence/summary_pdf.py) and
its packet (evidence/packet.py), checked against its limit profile. The renderers' module:
engine/prepare/pdf_versions.py, which decides what is made, imports it with the first PDF it
makes, so a run that makes none does without reportlab and pypdf."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dispute_evidence import clock
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.evidence.letter_pdf import LetterHead
from dispute_evidence.evidence.limits import Item, PacketPolicy, over_limit, profile_for
from dispute_evidence.evidence.packet import Document, Packet, build_packet
from dispute_evidence.evidence.summary_pdf import sources_pdf, summary_pdf


@dataclass
class Made:
    """What was built: the body to upload, its kind (summary or packet), the packet (the review
    copy in `files` mode), and the limit line holding it, if over its profile."""

    body: bytes
    kind: str
    packet: Packet
    over: str | None


def build_pdfs(
    pid: str,
    facts: DisputeFacts,
    docs: list[dict[str, Any]],
    sources: dict[str, str] | None,
    notice: str | None,
    policy: PacketPolicy,
    documents: list[DocumentFacts],
) -> Made:
    """The PDF to upload and the packet; `documents`: the case's reading of `docs` (their kinds
    and what was read from them), so the letter argues what the verdict judges."""
    profile = profile_for(facts, policy.limits, dict(policy.profiles))
    known = {(d.name, d.sha256): d for d in documents}  # two versions of one store policy
    attached = [
        known.get((f["file_name"], f["sha256"]))
        or DocumentFacts(f["file_name"], f["sha256"], f["kind"] or "", "not_read")
        for f in docs
    ]
    placed = [
        Document(f["file_name"], f["mime"] or "", Path(f["path"]).read_bytes(), a.kind)
        for f, a in zip(docs, attached, strict=True)
    ]
    cited = build_letter(facts, attached).documents  # the packet's order, before its pages
    back = sources_pdf(pid, facts, attached, sources)  # the merchant's: the review copy's end
    head = LetterHead(clock.now().date(), policy.contact)  # the date it was written
    if policy.upload == "packet":
        # uploaded: no page names an export file or its rows (issue 44, item 11), so the
        # sources stay with the merchant (the review copy of `files` mode, the report)
        packet = build_packet(
            lambda pages: summary_pdf(pid, facts, attached, notice=notice, pages=pages, head=head),
            placed,
            profile,
            cited=cited,
        )
        return Made(packet.body, "packet", packet, packet.over)
    summary = summary_pdf(pid, facts, attached, notice=notice, head=head)
    packet = build_packet(  # for review only: never uploaded, so the API's size is no limit
        lambda _: summary,
        placed,
        profile,
        cited=cited,
        lenient=True,
        api_max_bytes=None,
        back=back,
        stamped=False,  # the files go as they were dropped: the review shows them so
    )
    pages = packet.front_pages  # the summary is the packet's front, counted there
    counted = {i.name: i.pages for i in packet.items[1:]}
    items = [Item("the letter and data sheet", len(summary), pages)]
    items += [Item(f["file_name"], int(f["size"]), counted[f["file_name"]]) for f in docs]
    return Made(summary, "summary", packet, over_limit(profile, items))
