"""The versions of the generated PDFs' layouts, and their file names. Part of what each PDF is
made from (engine/prepare/pdf_versions.py hashes them): a new layout, a new version. Kept apart
from the renderers (evidence/summary_pdf.py, evidence/packet.py: reportlab and pypdf) so a run
that decides nothing needs making does not load them."""

from __future__ import annotations

# v6: exhibits cited by label, no footnotes to our sheets, no internal ids (issue 36)
GENERATOR = "dispute-evidence summary v6"
# v2: documents in the letter's order; v3: no active content; v4: exhibits labelled and every
# page stamped, the sources at the very end
PACKET_VERSION = "dispute-evidence packet v4"


def summary_file_name(provider_dispute_id: str, version: int) -> str:
    suffix = "" if version <= 1 else f"-v{version}"
    return f"{provider_dispute_id}-evidence-summary{suffix}.pdf"


def packet_file_name(provider_dispute_id: str, version: int) -> str:
    suffix = "" if version <= 1 else f"-v{version}"
    return f"{provider_dispute_id}-evidence-packet{suffix}.pdf"
