"""Match evidence files (PDF/PNG/JPG) in the inbox to disputes: by name, else by content.

A file belongs to a dispute when its name holds the provider_dispute_id or the order number
as a whole token: `dp_123_receipt.pdf`, `#1001 invoice.pdf`, `1001-label.png` — not
`10010.pdf`; else when it holds the tracking number of that dispute's shipment
(`BlueDart ePOD 77312345690.pdf`: a carrier's proof is named for its waybill). A file whose name names no dispute (`scan_0007.pdf`, `IMG_1234.jpg`) belongs to
one when its text (read by documents/reading.py, OCR for images and scans) names a dispute id,
an order number or a tracking number of exactly that one dispute; a text naming two disputes
is ambiguous and matches neither. Each match says how it was made (`EvidenceFile.matched`).
Type is checked by content and size against the API's limit; anything that fails, matches
nothing or matches more than one dispute is reported, never uploaded; so is a PDF that asks
for a password (no reviewer could open it).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from dispute_evidence import names
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.kinds import (
    ANOTHER_PARCEL,
    POLICY,
    PROOF_OF_DELIVERY,
    SIGNATURE,
    kind_of,
)
from dispute_evidence.filetypes import CLIENT_MAX_FILE_BYTES, sniff
from dispute_evidence.inbox import unreadable_reason
from dispute_evidence.names import NearNames
from dispute_evidence.problems import Problem, ProblemKind

_RUN = re.compile(r"[A-Za-z0-9]+")
MAX_TOKEN_RUNS = 4
# a product's photo, named for its SKU: `SKB-825 photo.jpg`, `SKB-825_photo_2.png`
_PHOTO = re.compile(
    r"^\s*(?P<sku>\S.*?)[\s_\-]+(?:product[\s_\-]+)?photo(?:[\s_\-]*\d+)?\s*$", re.I
)
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".png"})


@dataclass(frozen=True)
class EvidenceFile:
    path: Path
    label: str  # path relative to the inbox, as the analyst sees it
    sha256: str
    size: int
    mime: str
    matched: str = "name"  # "name", or "content: names order 5003" (what its text named)
    facts: DocumentFacts | None = None  # what was read from it (None: not read)


# Reads files into facts, {sha256: facts} (engine: documents.reading.read_documents, cached)
Reader = Callable[[list[EvidenceFile]], Mapping[str, DocumentFacts]]
# The disputes whose order has a line of this SKU (engine: the orders records)
SkuOwners = Callable[[str], set[str]]
NO_MATCH = "matches no dispute: put the dispute id (dp_…) or order number in the name"


@dataclass(frozen=True)
class FileIssue:
    label: str
    reason: str
    dispute: str = ""  # set when the name matched a dispute but the file failed its checks
    path: Path | None = None  # the file itself (its label may show bytes rewritten)

    def problem(self) -> Problem:
        if self.dispute:  # moved to rejected/ with this reason
            return Problem(
                ProblemKind.EVIDENCE_FILE_REJECTED,
                self.label,
                self.reason,
                file=self.label,
                dispute=self.dispute,
            )
        return Problem(ProblemKind.EVIDENCE_NOT_TAKEN, self.label, self.reason, file=self.label)


def name_tokens(stem: str) -> set[str]:
    """Every run of letters/digits and joins of up to 4 neighbouring runs with what separates them."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(stem)]
    tokens = set()
    for i in range(len(runs)):
        for j in range(i, min(i + MAX_TOKEN_RUNS, len(runs))):
            tokens.add(stem[runs[i][0] : runs[j][1]])
    return tokens


def photo_sku(path: Path) -> str:
    """The SKU a product photo's name gives ('' when it is not named as one)."""
    if path.suffix.lower() not in PHOTO_SUFFIXES:
        return ""
    match = _PHOTO.match(path.stem)
    return match["sku"].strip() if match else ""


def _digest(path: Path) -> tuple[str, int, bytes]:
    h = hashlib.sha256()
    size = 0
    head = b""
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            if not head:
                head = chunk[:16]
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size, head


def check_file(path: Path, label: str) -> EvidenceFile | FileIssue:
    size = path.stat().st_size
    if size == 0:
        return FileIssue(label, "empty file")
    if size > CLIENT_MAX_FILE_BYTES:
        return FileIssue(
            label, f"{size / 1e6:.1f} MB is over the API's 10 MB limit; compress or split it"
        )
    digest, size, head = _digest(path)
    mime = sniff(head)
    if mime is None:
        return FileIssue(
            label, "content is not PDF, PNG or JPG (whatever the name says); not uploaded"
        )
    if mime != "application/pdf" and unopenable_image(path):
        return FileIssue(
            label,
            f"begins as a {mime.removeprefix('image/').upper()} but no viewer can open it: "
            "re-save or re-scan it and drop it again; not uploaded",
        )
    return EvidenceFile(path, label, digest, size, mime)


def unopenable_image(path: Path) -> bool:
    """Whether no viewer can open the image at `path`: its header read as Pillow reads it
    (cheap: nothing is decoded). A file with a JPEG's first bytes and nothing after them would
    go to the reviewer as an exhibit showing nothing, cited by the letter."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.size  # noqa: B018 - the header read: its format and size are known
    except Image.DecompressionBombError:
        return False  # whole, only very large: the packet refuses to decode it (packet.py)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return True
    return False


def _no_match(stem: str, known: NearNames, refused: Mapping[str, str]) -> str:
    """Why a file matches no dispute: a dispute id or order number in its name whose row was
    refused (the hint would name another dispute), else a near name, else nothing more."""
    for token in sorted(name_tokens(stem), key=len, reverse=True):
        if token in refused:
            return (
                f"names {token}, whose row was not used ({refused[token]}): fix that row, drop "
                "its file again, and this file is matched then"
            )
    return NO_MATCH + _near_match(stem, known) + _store_hint(stem)


def _store_hint(stem: str) -> str:
    """For a policy or terms of the whole store: where it goes to reach every dispute."""
    if kind_of(stem) != POLICY:
        return ""
    return (
        "; a policy or terms of the whole store goes in the inbox's store/ folder, and then "
        "to every dispute that needs it"
    )


def _near_match(stem: str, known: NearNames) -> str:
    """' (did you mean …?)' for a name token close to a dispute id or order number."""
    for token in sorted(name_tokens(stem), key=len, reverse=True):
        digits = len(token) >= 3 and any(ch.isdigit() for ch in token)
        if digits and (hint := known.did_you_mean(token)):
            return hint
    return ""


def _index(disputes: dict[str, str]) -> dict[str, set[str]]:
    by_token: dict[str, set[str]] = {}
    for pid, order in disputes.items():
        by_token.setdefault(pid, set()).add(pid)
        if order:
            by_token.setdefault(order, set()).add(pid)
    return by_token


def _key(value: str) -> str:
    return value.strip().lstrip("#").upper()


@dataclass
class ContentIndex:
    """The identifiers a document's text may name, each to the disputes it belongs to."""

    orders: dict[str, set[str]]
    disputes: set[str]
    tracking: Callable[[], Mapping[str, set[str]]]  # read only when a text names one

    @classmethod
    def of(
        cls, disputes: dict[str, str], tracking: Callable[[], Mapping[str, set[str]]] | None
    ) -> ContentIndex:
        orders: dict[str, set[str]] = {}
        for pid, order in disputes.items():
            if order:
                orders.setdefault(_key(order), set()).add(pid)
        return cls(orders, set(disputes), tracking or dict)

    def owners(self, facts: DocumentFacts) -> dict[str, list[str]]:
        """{dispute: what the text named of it}."""
        named: dict[str, list[str]] = {}
        for pid in facts.dispute_ids:
            if pid in self.disputes:
                named.setdefault(pid, []).append(f"dispute {pid}")
        for order in facts.order_numbers:
            for pid in self.orders.get(_key(order), ()):
                named.setdefault(pid, []).append(f"order {order}")
        if facts.tracking_numbers:
            known = self.tracking()
            for number in facts.tracking_numbers:
                for pid in known.get(_key(number), ()):
                    named.setdefault(pid, []).append(f"tracking number {number}")
        return named


def match_evidence_files(
    paths: list[Path],
    root: Path,
    disputes: dict[str, str],
    *,
    read: Reader | None = None,
    tracking: Callable[[], Mapping[str, set[str]]] | None = None,
    refused: Mapping[str, str] | None = None,
    sku_owners: SkuOwners | None = None,
) -> tuple[dict[str, list[EvidenceFile]], list[FileIssue]]:
    """{provider_dispute_id: files} and the issues; `disputes` maps provider id -> order number.
    A product photo (`<sku> photo.jpg`) whose name names no dispute goes to every dispute
    `sku_owners` gives for its SKU (the orders with a line of it).
    With `read`, every file that passed its checks is read (once: the reader caches), the
    ones no name matched are matched by what their text names, and a password-protected PDF
    is an issue; `tracking` gives {tracking number (upper case): its disputes}; `refused`
    {dispute id or order number of a row not used: that row and why}."""
    refused = refused or {}
    by_token = _index(disputes)
    matches: dict[str, list[EvidenceFile]] = {}
    issues: list[FileIssue] = []
    near = NearNames(by_token)  # indexed on the first file that matches nothing
    by_name: list[tuple[str, EvidenceFile]] = []
    by_content: list[EvidenceFile] = []
    parcels = Parcels(tracking)
    for path in sorted(paths):
        label = names.label(path, root)
        owners = set().union(*(by_token.get(t, set()) for t in name_tokens(path.stem)))
        owners = owners or parcels.named(path.stem)
        if not owners and (photo := _product_photo(path, label, sku_owners)) is not None:
            pids, checked = photo
            if isinstance(checked, FileIssue):
                issues.append(checked)
            else:  # one file, sent to each dispute whose order has the SKU
                by_name += [(pid, checked) for pid in pids]
            continue
        if len(owners) > 1:
            issues.append(
                FileIssue(
                    label,
                    f"matches {len(owners)} disputes ({', '.join(sorted(owners))}); rename it to name one",
                )
            )
            continue
        try:
            checked = check_file(path, label)
        except OSError as exc:  # left where it is (not rejected): it may be readable next run
            issues.append(FileIssue(label, unreadable_reason(exc)))
            continue
        if not owners:
            if isinstance(checked, FileIssue) or read is None:
                issues.append(FileIssue(label, _no_match(path.stem, near, refused)))
            else:
                by_content.append(checked)
            continue
        owner = owners.pop()
        if isinstance(checked, FileIssue):
            issues.append(FileIssue(label, checked.reason, dispute=owner, path=path))
        else:
            by_name.append((owner, checked))
    facts = read([f for _, f in by_name] + by_content) if read is not None else {}
    for owner, f in by_name:
        _take(matches, issues, owner, replace(f, facts=facts.get(f.sha256)), parcels)
    index = ContentIndex.of(disputes, tracking)
    for f in by_content:
        _by_content(matches, issues, index, replace(f, facts=facts.get(f.sha256)), near, refused)
    return matches, issues


MIN_TRACKING = 8  # a name's token this long (with a digit) may be a tracking number


class Parcels:
    """The disputes' shipments by tracking number, asked of `tracking` once, when first
    needed (it reads every payload): whose a number is, a dispute's numbers, and the disputes
    a file's name names by one (`BlueDart ePOD 77312345690.pdf`: a carrier's proof is named
    for its waybill)."""

    def __init__(self, tracking: Callable[[], Mapping[str, set[str]]] | None) -> None:
        self._tracking = tracking
        self._owners: dict[str, set[str]] | None = None
        self._numbers: dict[str, set[str]] = {}

    def _index(self) -> dict[str, set[str]]:
        if self._owners is None:
            self._owners = {}
            for number, pids in (self._tracking() if self._tracking else {}).items():
                self._owners.setdefault(_plain_id(number), set()).update(pids)
                for pid in pids:
                    self._numbers.setdefault(pid, set()).add(_plain_id(number))
        return self._owners

    def of(self, pid: str) -> set[str]:
        """The dispute's shipments' tracking numbers (plain)."""
        self._index()
        return self._numbers.get(pid, set())

    def owners(self, number: str) -> set[str]:
        """The disputes whose shipment has this tracking number."""
        return self._index().get(_plain_id(number), set())

    def named(self, stem: str) -> set[str]:
        """The disputes whose tracking number the name holds as a whole token."""
        tokens = {
            _plain_id(t)
            for t in name_tokens(stem)
            if len(t) >= MIN_TRACKING and any(c.isdigit() for c in t)
        }
        if not tokens or self._tracking is None:
            return set()
        return set().union(*(self.owners(t) for t in tokens))


def _product_photo(
    path: Path, label: str, sku_owners: SkuOwners | None
) -> tuple[list[str], EvidenceFile | FileIssue] | None:
    """A product photo named for a SKU that disputed orders have: those disputes and the file
    checked (None: not a product photo, or no disputed order has its SKU)."""
    sku = photo_sku(path) if sku_owners is not None else ""
    pids = sorted(sku_owners(sku)) if sku and sku_owners is not None else []
    if not pids:
        return None
    try:
        return pids, check_file(path, label)
    except OSError as exc:
        return pids, FileIssue(label, unreadable_reason(exc))


def _take(
    matches: dict[str, list[EvidenceFile]],
    issues: list[FileIssue],
    owner: str,
    f: EvidenceFile,
    parcels: Parcels | None = None,
) -> None:
    """The file goes to `owner`, unless no reviewer could open it, it shows a full card number,
    or it proves the delivery of another parcel (a file problem: never uploaded as it is)."""
    if f.facts is not None and f.facts.read == "encrypted":
        issues.append(FileIssue(f.label, f.facts.note, dispute=owner, path=f.path))
    elif f.facts is not None and shows_a_card_number(f.facts):
        issues.append(FileIssue(f.label, card_number_note(f.facts), dispute=owner, path=f.path))
    elif (
        f.facts is not None
        and parcels is not None
        and (other := another_parcel(f.facts, owner, parcels))
    ):
        issues.append(FileIssue(f.label, other, dispute=owner, path=f.path))
    else:
        matches.setdefault(owner, []).append(f)


def _plain_id(value: str) -> str:
    return re.sub(r"[\s\-]", "", value).upper()


def another_parcel(facts: DocumentFacts, owner: str, parcels: Parcels) -> str:
    """Why a proof of delivery named for `owner` is another parcel's: its text names tracking
    numbers and none is one of `owner`'s shipments' (""; when it names one, or either side
    names none), and whose parcel it is when another dispute's. Uploaded, it would argue
    against the claim it was meant to answer."""
    if facts.kind not in (PROOF_OF_DELIVERY, SIGNATURE) or facts.read not in ("text", "ocr"):
        return ""
    named = [t for t in facts.tracking_numbers if t]
    ours = parcels.of(owner)
    if not named or not ours or ours & {_plain_id(t) for t in named}:
        return ""
    theirs = sorted(set().union(*(parcels.owners(t) for t in named)) - {owner})
    todo = (
        f"It is {' and '.join(theirs)}'s parcel: name the file for "
        f"{'that dispute' if len(theirs) == 1 else 'one of them'} and drop it again"
        if theirs
        else "If it is this dispute's parcel, correct the tracking number in the shipments "
        "export and drop the file again"
    )
    return (
        f"{ANOTHER_PARCEL}: it names tracking number {', '.join(named)}, and {owner}'s "
        f"shipment is {', '.join(sorted(ours))}; not uploaded (a reviewer would read it "
        f"against the claim). {todo}"
    )


def shows_a_card_number(facts: DocumentFacts) -> bool:
    """Whether a page's text or a metadata field of the file shows a full card number."""
    return bool(facts.card_pages or facts.card_metadata)


def card_number_note(facts: DocumentFacts) -> str:
    """One line for a document that shows a full card number, on a page or in its metadata."""
    pages = ", ".join(map(str, facts.card_pages))
    where = []
    if pages:
        where.append(f"page {pages}" if len(facts.card_pages) == 1 else f"pages {pages}")
    if facts.card_metadata:
        where.append(f"its metadata: {', '.join(facts.card_metadata)}")
    what = (
        " and remove it from the file's properties (PDF: Title, Subject, Keywords; photo: "
        "EXIF description and comment; or print it to a new PDF / screenshot it)"
        if facts.card_metadata
        else ""
    )
    return (
        f"shows a full card number ({'; '.join(where)}): never uploaded as it is (PCI DSS; "
        "processors refuse it). Black out the number (the last 4 digits may stay) and any "
        f"security code{what}, then drop the file again"
    )


def _by_content(
    matches: dict[str, list[EvidenceFile]],
    issues: list[FileIssue],
    index: ContentIndex,
    f: EvidenceFile,
    near: NearNames,
    refused: Mapping[str, str],
) -> None:
    if f.facts is not None and shows_a_card_number(f.facts):
        issues.append(FileIssue(f.label, card_number_note(f.facts)))
        return
    named = index.owners(f.facts) if f.facts is not None else {}
    if len(named) == 1:
        ((owner, what),) = named.items()
        _take(matches, issues, owner, replace(f, matched="content: names " + ", ".join(what)))
        return
    if len(named) > 1:
        which = "; ".join(f"{pid} ({', '.join(w)})" for pid, w in sorted(named.items()))
        why = f"its text names {len(named)} disputes: {which}; not matched: rename it to name one"
        issues.append(FileIssue(f.label, why))
        return
    note = f.facts.note.removeprefix("not read: ") if f.facts else ""  # said once, below
    unread = f" (its text was not read: {note})" if note else ""
    issues.append(FileIssue(f.label, _no_match(f.path.stem, near, refused) + unread))
