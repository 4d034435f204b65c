"""The document-reading worker: a separate process that turns files into page texts, and
those into facts.

Started by documents/reading.py as `python -I <this file> <memory MB> <package root>`. It
reads the text with pypdf (and Tesseract), then hands it to documents/reading.py's
`worker_facts` (pure fact-finding, documents/ only: it cannot reach the engine), which covers
card numbers, finds the facts and writes them to the documents cache: so that work runs on
every worker at once, and no raw text comes back. It caps its own address space first
(RLIMIT_AS), and before each file its CPU time (RLIMIT_CPU): a hostile PDF that makes pypdf,
pdftoppm or Tesseract (or the patterns) spin or swell kills this process, never the run. The
parent also kills it (its whole process group) when a file takes longer than its wall-clock
budget.

Protocol: one JSON request per line on stdin, one JSON answer per line on stdout.
  request: {"path", "mime", "max_pages", "max_chars", "ocr_pages", "seconds",
            "tesseract": path or null, "pdftoppm": path or null,
            and to get facts: "name", "sha256", "limits" (ReadLimits), "cache": folder or null}
  answer:  {"read": ReadHow, "facts": DocumentFacts as a dict} (with "sha256"), else
           {"read": ReadHow, "pages": int or null, "texts": [page text, ...], "note": str}
"""

from __future__ import annotations

import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

MIN_PAGE_TEXT = 16  # fewer characters than this on a page: it is a scan, OCR it
MAX_METADATA_PAGES, MAX_METADATA_CHARS = 50, 100_000  # pages' own XMP looked at; per field
_EXIF_CHARSETS = (b"ASCII\x00\x00\x00", b"UNICODE\x00", b"JIS\x00\x00\x00\x00\x00", b"\x00" * 8)


def _limit_memory(megabytes: int) -> None:
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limit_cpu(seconds: float) -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(spent + seconds) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard if hard != -1 and hard < soft else -1))


def _ocr(tesseract: str, image: str, deadline: float) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core per worker: the machine is shared
    out = subprocess.run(
        [tesseract, image, "stdout", "-l", "eng", "--psm", "3"],
        capture_output=True,
        timeout=max(0.5, deadline - time.monotonic()),
        env=env,
        check=False,
    )
    return out.stdout.decode("utf-8", "replace")


def _ocr_pdf_page(req: dict[str, Any], page: int, deadline: float) -> str:
    with tempfile.TemporaryDirectory(prefix="de-ocr-") as tmp:
        prefix = os.path.join(tmp, "page")
        subprocess.run(
            [
                req["pdftoppm"],
                "-r",
                "150",
                "-f",
                str(page),
                "-l",
                str(page),
                "-png",
                "-singlefile",
                req["path"],
                prefix,
            ],
            capture_output=True,
            timeout=max(0.5, deadline - time.monotonic()),
            check=False,
        )
        png = prefix + ".png"
        return _ocr(req["tesseract"], png, deadline) if os.path.exists(png) else ""


def _one_encoding_table() -> None:
    """pypdf (7.x) builds the same 256-character WinAnsi table, one decode and one caught
    error per byte, twice for every page whose text it extracts: a fifth of the time a
    one-page PDF takes. Built once here; each caller still gets its own copy. Where pypdf's
    modules no longer hold that function, nothing is changed (only slower)."""
    import importlib
    from functools import cache

    try:
        codecs = importlib.import_module("pypdf._codecs")
        users = [
            importlib.import_module(name)
            for name in ("pypdf._text_extraction._text_extractor", "pypdf.generic._font")
        ]
    except ImportError:
        return
    build = getattr(codecs, "encoding_dict_from_named_encoding", None)
    if build is None:
        return
    table = cache(build)

    def copy(encoding: str) -> dict[int, str]:
        return dict(table(encoding))

    for module in users:
        if getattr(module, "encoding_dict_from_named_encoding", None) is build:
            setattr(module, "encoding_dict_from_named_encoding", copy)  # noqa: B010


def _read_pdf(req: dict[str, Any], deadline: float) -> dict[str, Any]:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    reader = req["opened"] = PdfReader(req["path"], strict=False)  # its metadata: read from it
    if reader.is_encrypted:
        try:  # an owner password alone: anyone can open it
            opened = bool(reader.decrypt(""))
        except Exception:  # noqa: BLE001 - an unknown scheme: no reviewer can open it either
            opened = False
        if not opened:
            return {"read": "encrypted", "pages": None, "texts": [], "note": ""}
    try:
        count = len(reader.pages)
    except FileNotDecryptedError:
        return {"read": "encrypted", "pages": None, "texts": [], "note": ""}
    can_ocr = bool(req.get("tesseract") and req.get("pdftoppm"))
    texts, ocr_done, scans_unread, total = [], 0, 0, 0
    for number in range(1, min(count, req["max_pages"]) + 1):
        text = reader.pages[number - 1].extract_text() or ""
        if len(text.strip()) < MIN_PAGE_TEXT:
            if can_ocr and ocr_done < req["ocr_pages"]:
                text, ocr_done = _ocr_pdf_page(req, number, deadline), ocr_done + 1
            else:
                scans_unread += 1
        texts.append(text[: req["max_chars"] - total])
        total += len(texts[-1])
        if total >= req["max_chars"]:
            break
    how = "ocr" if ocr_done else "text"
    if scans_unread and not any(t.strip() for t in texts):
        how = "no_ocr" if not can_ocr else "text"
    return {"read": how, "pages": count, "texts": texts, "note": ""}


def _read_image(req: dict[str, Any], deadline: float) -> dict[str, Any]:
    if not req.get("tesseract"):
        return {"read": "no_ocr", "pages": 1, "texts": [], "note": ""}
    return {
        "read": "ocr",
        "pages": 1,
        "texts": [_ocr(req["tesseract"], req["path"], deadline)],
        "note": "",
    }


def _decoded(value: Any) -> str:
    """Metadata as text: bytes read as Latin-1 and, where they hold NULs (UTF-16: EXIF's
    UserComment and XP* tags), as UTF-16 too."""
    if isinstance(value, tuple):  # Pillow gives some byte tags as tuples of ints
        value = bytes(v for v in value if isinstance(v, int) and 0 <= v < 256)
    if isinstance(value, str) and "\x00" in value:  # UTF-16 bytes Pillow read as Latin-1
        try:
            value = value.encode("latin-1")
        except UnicodeEncodeError:
            value = value.replace("\x00", "")
    if not isinstance(value, bytes | bytearray):
        return str(value)
    data = bytes(value)
    if data[:8] in _EXIF_CHARSETS:  # UserComment: an 8-byte charset code, then the text
        data = data[8:]
    out = data.decode("latin-1")
    if b"\x00" in data:
        out += "\n" + data.decode("utf-16-le", "ignore")
        out += "\n" + data.decode("utf-16-be", "ignore")
        out += "\n" + data.replace(b"\x00", b"").decode("latin-1")
    return out


def _pdf_metadata(path: str, opened: Any = None) -> dict[str, str]:
    """`opened`: the reader that read its text, if any (the file is parsed once, not twice)."""
    from pypdf import PdfReader

    reader = opened if opened is not None else PdfReader(path, strict=False)
    if reader.is_encrypted and not reader.decrypt(""):
        return {}
    out = {str(k).lstrip("/"): _decoded(v) for k, v in (reader.metadata or {}).items()}
    xmp = reader.root_object.get("/Metadata")
    if xmp is not None:
        out["XMP"] = _decoded(xmp.get_object().get_data())
    for n, page in enumerate(reader.pages[:MAX_METADATA_PAGES], 1):
        if (own := page.get("/Metadata")) is not None:
            out[f"XMP of page {n}"] = _decoded(own.get_object().get_data())
    return out


def _image_metadata(path: str) -> dict[str, str]:
    from PIL import ExifTags, Image

    with Image.open(path) as image:
        out = {
            f"{k}": _decoded(v) for k, v in image.info.items() if k not in ("dpi", "icc_profile")
        }
        exif = image.getexif()
        tags = {**dict(exif), **dict(exif.get_ifd(0x8769))}
        out.update({ExifTags.TAGS.get(k, f"EXIF {k:#06x}"): _decoded(v) for k, v in tags.items()})
    if "exif" in out:  # the whole block as stored: a tag Pillow does not name is in it
        out["EXIF (raw)"] = out.pop("exif")
    return out


def metadata(req: dict[str, Any]) -> dict[str, str]:
    """Every text a file's metadata holds (PDF Info and XMP; EXIF, PNG text chunks, JPEG
    comments and XMP of an image), by field, each at most MAX_METADATA_CHARS: looked at for
    card numbers (documents/reading.py), never kept. A fault here reads as none."""
    try:
        if req["mime"] == "application/pdf":
            found = _pdf_metadata(req["path"], req.pop("opened", None))
        else:
            found = _image_metadata(req["path"])
    except Exception:  # noqa: BLE001 - damaged metadata: the file's reading says the rest
        return {}
    return {k: v[:MAX_METADATA_CHARS] for k, v in found.items() if v}


def handle(req: dict[str, Any]) -> dict[str, Any]:
    answer = _handle(req)
    answer["metadata"] = metadata(req)
    return answer


def _handle(req: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + float(req["seconds"])
    _limit_cpu(float(req["seconds"]))
    try:
        if req["mime"] == "application/pdf":
            return _read_pdf(req, deadline)
        return _read_image(req, deadline)
    except subprocess.TimeoutExpired:
        return {"read": "timeout", "pages": None, "texts": [], "note": ""}
    except MemoryError:
        return {"read": "timeout", "pages": None, "texts": [], "note": "memory"}
    except Exception as exc:  # noqa: BLE001 - a damaged file is "unreadable", never a crash
        return {"read": "unreadable", "pages": None, "texts": [], "note": type(exc).__name__}


def with_facts(req: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as facts (found and cached here, by documents/reading.py), when the request
    names the file (its name and content hash); a fault there is the file's, never a crash."""
    if "sha256" not in req:
        return answer
    try:
        from dispute_evidence.documents.reading import worker_facts

        return worker_facts(req, answer)
    except MemoryError:
        return {"read": "timeout", "pages": None, "texts": [], "note": "memory"}
    except Exception as exc:  # noqa: BLE001 - as a file the reader cannot read
        return {"read": "unreadable", "pages": None, "texts": [], "note": type(exc).__name__}


def main() -> None:
    _limit_memory(int(sys.argv[1]))
    # the package's root (this process runs isolated, -I): first, so the parent's own copy is
    # the one imported; an installed package's site-packages is on the path already, and is
    # never put before the standard library
    if len(sys.argv) > 2 and sys.argv[2] not in sys.path:
        sys.path.insert(0, sys.argv[2])
    logging.disable(logging.CRITICAL)  # pypdf's notes on damaged files: the answer says it
    _one_encoding_table()
    for line in sys.stdin:
        req = json.loads(line)
        answer = with_facts(req, handle(req))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
