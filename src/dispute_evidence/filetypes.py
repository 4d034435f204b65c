"""Evidence file types, recognised by content (magic bytes), never by name.

Shared by the sandbox (which enforces), the client (which checks before spending
a request) and ingest (which reports). Neutral module: imports nothing of ours.
"""

from __future__ import annotations

from pathlib import Path

# The spec says "10 MB". The sandbox enforces the lenient binary reading (MiB);
# our client refuses above the strict decimal one, so it never depends on which
# reading the real service uses (docs/api-choices.md).
SANDBOX_MAX_FILE_BYTES = 10 * 1024 * 1024
CLIENT_MAX_FILE_BYTES = 10_000_000

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
)
SNIFF_BYTES = 8
EXTENSIONS = {"application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg"}
EVIDENCE_SUFFIXES = frozenset({".pdf", ".png", ".jpg", ".jpeg"})


def sniff(head: bytes) -> str | None:
    """The MIME type of an evidence file from its first bytes, or None if not PDF/PNG/JPG."""
    for magic, mime in _SIGNATURES:
        if head.startswith(magic):
            return mime
    return None


def sniff_path(path: Path) -> str | None:
    """The MIME type of the file at `path` by content, or None."""
    with path.open("rb") as fh:
        return sniff(fh.read(SNIFF_BYTES))
