"""A JPEG's bytes without its metadata: what the packet embeds as it is.

A photo placed in the packet unchanged (it already fits) is embedded byte for byte (a PDF
shows a JPEG as it is stored), and so would carry its EXIF on to the API and the reviewer:
the camera, the place it was taken, and whatever a person typed in its description or
comment (a customer's card number, issue 45 item 6). So the segments that hold metadata are
left out: APP1 (EXIF, XMP), APP3 to APP13 and APP15 (IPTC, Photoshop, vendors' notes) and
comments (COM). What the picture needs stays: the JFIF header (APP0), the colour profile
(APP2, ICC_PROFILE), Adobe's colour transform (APP14), the tables and the scan itself.
"""

from __future__ import annotations

_KEPT_APP = {0xE0, 0xEE}  # JFIF; Adobe (how CMYK/YCCK are stored)
_COMMENT, _SCAN, _END = 0xFE, 0xDA, 0xD9


def _dropped(marker: int, body: bytes) -> bool:
    if marker == _COMMENT:
        return True
    if 0xE0 <= marker <= 0xEF and marker not in _KEPT_APP:
        return not (marker == 0xE2 and body.startswith(b"ICC_PROFILE\x00"))
    return False


def plain_jpeg(data: bytes) -> bytes | None:
    """`data` (a JPEG) without its metadata segments; None for bytes that are not a JPEG or
    whose segments cannot be walked (the packet then re-encodes the picture)."""
    if data[:2] != b"\xff\xd8":
        return None
    out, i = [data[:2]], 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill bytes before a marker
            i += 1
            continue
        if marker == _END or 0xD0 <= marker <= 0xD7 or marker == 0x01:
            out.append(data[i : i + 2])
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if length < 2 or i + 2 + length > len(data):
            return None
        segment = data[i : i + 2 + length]
        if marker == _SCAN:  # the scan and everything after it: the picture itself
            out.append(data[i:])
            return b"".join(out)
        if not _dropped(marker, segment[4:]):
            out.append(segment)
        i += 2 + length
    return None
