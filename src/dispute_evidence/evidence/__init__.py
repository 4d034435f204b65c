"""The evidence: the payload built per dispute (builder), the case read from it (case), the
letter and the packet a reviewer reads. Pure data code, no network."""

from dispute_evidence.evidence.builder import (
    BuildResult,
    DisputePayload,
    Incomplete,
    build_evidence,
)

__all__ = ["BuildResult", "DisputePayload", "Incomplete", "build_evidence"]
