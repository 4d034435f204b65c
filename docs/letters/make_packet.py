"""Regenerate docs/letters/packet.pdf from a real run: `python docs/letters/make_packet.py`.

What the issuer's reviewer sees in `[evidence] upload = "packet"` mode. An inbox is made in a
temporary folder (make_letters.py's sheets, with one not-received dispute, dp_1041, and the
documents an analyst drops for it: the carrier's proof of delivery, the refund policy, the
customer's email, each a PDF with a text layer, and a photo of the parcel at the door), then
`dispute-evidence run --inbox … --sandbox` runs with DISPUTE_EVIDENCE_EVIDENCE__UPLOAD=packet,
and the packet it uploaded is copied here with a PNG of each page (`pdftoppm -r 50 -png`).
The facts are invented; the packet is what the pipeline sends.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from make_letters import _pdf, make_inbox, run_sandbox  # noqa: E402

PID, ORDER = "dp_1041", "1041"


def _photo(path: Path) -> None:
    """A parcel on a doormat, as a driver's delivery photo."""
    image = Image.new("RGB", (1600, 1200), (196, 186, 170))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 820, 1600, 1200), fill=(120, 96, 70))  # the doormat's floor
    draw.rectangle((520, 420, 1080, 900), fill=(176, 130, 80), outline=(90, 60, 30), width=10)
    draw.rectangle((760, 420, 840, 900), fill=(214, 204, 184))  # the tape
    image.save(path, "JPEG", quality=85)


def packet_inbox(inbox: Path) -> None:
    """make_letters.py's inbox cut to one not-received dispute with its four documents."""
    make_inbox(inbox)
    with (inbox / "disputes.csv").open(newline="") as fh:
        rows = [r for r in csv.reader(fh) if r[0] in ("provider_dispute_id", PID)]
    with (inbox / "disputes.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    for doc in inbox.glob("*.pdf"):
        if not doc.name.startswith(ORDER):
            doc.unlink()
    _pdf(inbox / f"{ORDER} refund policy.pdf", [
        "Acme Outfitters refund policy",
        "Returns are accepted within 30 days of delivery for unused items in their "
        "original packaging."])  # fmt: skip
    _pdf(inbox / f"{ORDER} customer email.pdf", [
        "From: ann.smith@example.com", "Date: 2026-10-07", f"Subject: my order {ORDER}",
        "Thanks, the deck came yesterday. Can I swap it for the 8.5in one?"])  # fmt: skip
    _photo(inbox / f"{ORDER} parcel photo.jpg")


def uploaded_packet(inbox: Path) -> Path:
    """The packet the run uploaded for dp_1041 (its registered blob)."""
    from dispute_evidence.inbox import default_state
    from dispute_evidence.state.store import StateStore

    with StateStore(default_state(inbox)) as store:
        table = store.reports.file_table()
    rows = table.loc[table["file_name"] == f"{PID}-evidence-packet.pdf"]
    assert list(rows["status"]) == ["uploaded"], rows[["file_name", "status"]]
    return Path(str(rows["path"].iloc[0]))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inbox = Path(tmp) / "inbox"
        packet_inbox(inbox)
        run_sandbox(inbox, DISPUTE_EVIDENCE_EVIDENCE__UPLOAD="packet")
        pdf = HERE / "packet.pdf"
        shutil.copyfile(uploaded_packet(inbox), pdf)
    for old in HERE.glob("packet-*.png"):  # none beyond the new page count is left behind
        old.unlink()
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(pdf), str(HERE / "packet")], check=True)


if __name__ == "__main__":
    main()
