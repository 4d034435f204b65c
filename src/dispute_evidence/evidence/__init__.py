"""Evidence payloads and evidence-file matching. Pure data code, no network."""

from dispute_evidence.evidence.builder import (
    BuildResult,
    DisputePayload,
    Incomplete,
    build_evidence,
)
from dispute_evidence.evidence.files import EvidenceFile, FileIssue, match_evidence_files

__all__ = [
    "BuildResult",
    "DisputePayload",
    "EvidenceFile",
    "FileIssue",
    "Incomplete",
    "build_evidence",
    "match_evidence_files",
]
