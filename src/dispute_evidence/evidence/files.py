"""Match evidence files (PDF/PNG/JPG) in the inbox to disputes by their file names.

A file belongs to a dispute when its name holds the provider_dispute_id or the order number
as a whole token: `dp_123_receipt.pdf`, `#1001 invoice.pdf`, `1001-label.png` — not
`10010.pdf`. Type is checked by content and size against the API's limit; anything that
fails, matches nothing or matches more than one dispute is reported, never uploaded.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from dispute_evidence import names
from dispute_evidence.filetypes import CLIENT_MAX_FILE_BYTES, sniff
from dispute_evidence.inbox import unreadable_reason
from dispute_evidence.names import NearNames
from dispute_evidence.problems import Problem, ProblemKind

_RUN = re.compile(r"[A-Za-z0-9]+")
MAX_TOKEN_RUNS = 4


@dataclass(frozen=True)
class EvidenceFile:
    path: Path
    label: str  # path relative to the inbox, as the analyst sees it
    sha256: str
    size: int
    mime: str


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
    return EvidenceFile(path, label, digest, size, mime)


def _near_match(stem: str, known: NearNames) -> str:
    """' (did you mean …?)' for a name token close to a dispute id or order number."""
    for token in sorted(name_tokens(stem), key=len, reverse=True):
        digits = len(token) >= 3 and any(ch.isdigit() for ch in token)
        if digits and (hint := known.did_you_mean(token)):
            return hint
    return ""


def match_evidence_files(
    paths: list[Path], root: Path, disputes: dict[str, str]
) -> tuple[dict[str, list[EvidenceFile]], list[FileIssue]]:
    """{provider_dispute_id: files} and the issues; `disputes` maps provider id -> order number."""
    by_token: dict[str, set[str]] = {}
    for pid, order in disputes.items():
        by_token.setdefault(pid, set()).add(pid)
        if order:
            by_token.setdefault(order, set()).add(pid)
    matches: dict[str, list[EvidenceFile]] = {}
    issues: list[FileIssue] = []
    near = NearNames(by_token)  # indexed on the first file that matches nothing
    for path in sorted(paths):
        label = names.label(path, root)
        owners = set().union(*(by_token.get(t, set()) for t in name_tokens(path.stem)))
        if not owners:
            issues.append(
                FileIssue(
                    label,
                    "matches no dispute: put the dispute id (dp_…) or order number in the name"
                    + _near_match(path.stem, near),
                )
            )
            continue
        if len(owners) > 1:
            issues.append(
                FileIssue(
                    label,
                    f"matches {len(owners)} disputes ({', '.join(sorted(owners))}); rename it to name one",
                )
            )
            continue
        owner = owners.pop()
        try:
            checked = check_file(path, label)
        except OSError as exc:  # left where it is (not rejected): it may be readable next run
            issues.append(FileIssue(label, unreadable_reason(exc)))
            continue
        if isinstance(checked, FileIssue):
            issues.append(FileIssue(label, checked.reason, dispute=owner, path=path))
        else:
            matches.setdefault(owner, []).append(checked)
    return matches, issues
