"""No active content in a PDF we make: what a reviewer's viewer would run, launch or submit.

A merchant's PDF can carry JavaScript (run when it opens, or on a page or field event), a
/Launch action, links that open a site or submit a form, embedded files and an XFA form. The
packet puts such a PDF in front of the issuer's reviewer under the merchant's name, and a
processor may refuse a packet that holds any of it. So every object of every PDF we write is
walked, and each of these is removed: the document's /OpenAction and /AA, every page's,
annotation's and field's /AA, the /JavaScript and /EmbeddedFiles name trees, every action but a
jump inside the document (/GoTo), the annotations that only play or attach something, embedded
file streams, and the AcroForm's /XFA. Pages, text and images are kept as they are.
"""

from __future__ import annotations

import io
import re

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    PdfObject,
    StreamObject,
)

# keys whose value is active content or an attachment, wherever they stand
ACTIVE_KEYS = frozenset(
    {
        "/OpenAction",
        "/AA",
        "/JavaScript",
        "/JS",
        "/EmbeddedFiles",
        "/EF",
        "/XFA",
        "/RichMediaContent",
        "/RichMediaSettings",
    }
)
# action types that run, open, fetch or send something: every one but a jump within the file
ACTIVE_ACTIONS = frozenset(
    {
        "/JavaScript",
        "/Launch",
        "/URI",
        "/SubmitForm",
        "/ImportData",
        "/ResetForm",
        "/GoToR",
        "/GoToE",
        "/GoTo3DView",
        "/Rendition",
        "/Sound",
        "/Movie",
        "/RichMediaExecute",
        "/Hide",
        "/Named",
        "/SetOCGState",
        "/Thread",
        "/Trans",
    }
)
# annotations that exist only to play, attach or embed something
ACTIVE_ANNOTATIONS = frozenset(
    {"/FileAttachment", "/Screen", "/Movie", "/Sound", "/RichMedia", "/3D"}
)


# metadata a document brings (XMP of the catalog, a page or an image; an application's private
# data): never passed on; the document information is ours alone (strip_metadata)
METADATA_KEYS = frozenset({"/Metadata", "/PieceInfo"})


def strip_metadata(writer: PdfWriter) -> None:
    """Remove every XMP stream and private application data `writer` holds, and leave its
    document information with the producer alone: what documents brought (a Title, Subject,
    Keywords holding a card number, issue 45 item 6) never reaches the packet."""
    for obj in writer._objects:
        if isinstance(obj, DictionaryObject):
            for key in [k for k in obj if k in METADATA_KEYS]:
                del obj[key]
    if writer._info is not None:
        info = writer._info.get_object()
        if isinstance(info, DictionaryObject):
            for key in [k for k in info if k != "/Producer"]:
                del info[key]
    _drop_unreachable(writer)


def make_inert(writer: PdfWriter) -> int:
    """Remove the active content from every object `writer` holds; how many were changed.

    Then what nothing points at any more (a script's stream, an attachment's) is not written."""
    changed = 0
    for obj in list(writer._objects):  # every object, reachable or not: all are written
        if obj is not None:
            changed += _clean_tree(obj)
    if changed:
        _drop_unreachable(writer)
    return changed


def _names(*groups: frozenset[str]) -> re.Pattern[bytes]:
    words = sorted({n.removeprefix("/") for g in groups for n in g}, key=len, reverse=True)
    return re.compile(rb"/(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")(?![\w#])")


# a name that could carry active content, written as such in the file's own syntax; an object
# stream (where dictionaries are compressed) or a name spelled with #xx escapes (/J#61vaScript)
# hides names from a look at the bytes, so either sends the file down the full walk
# (/Trans is also every page's transition key, reportlab's `/Trans << >>`: as an action it is
# the value of /S, comments allowed between the two)
_ACTIVE_NAME = _names(ACTIVE_KEYS, ACTIVE_ACTIONS - {"/Trans"}, ACTIVE_ANNOTATIONS)
_HIDDEN = re.compile(
    rb"/ObjStm|/[^\s/<>\[\]()%{}]*#[0-9A-Fa-f]{2}|/S(?:\s|%[^\r\n]*[\r\n])*/Trans(?![\w#])"
)


def plainly_inert(body: bytes) -> bool:
    """True when no dictionary of `body` can hold active content: none of the names that carry
    it appears in the file's bytes, and nothing hides a name from that look. A PDF's
    dictionaries are written in its bytes as they are, except inside an object stream, and
    stream data (page contents, images) is never read as objects; so a file that passes holds
    nothing to remove. Our own PDFs (reportlab's: no object streams, no escaped names) pass
    without being parsed again; anything else is walked object by object."""
    return _ACTIVE_NAME.search(body) is None and _HIDDEN.search(body) is None


def inert_bytes(body: bytes) -> bytes:
    """`body` as it is when it holds no active content, else rewritten without it."""
    if plainly_inert(body):
        return body  # nothing in it could run: not parsed and written again
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(body)))
    if not make_inert(writer):
        return body  # the same bytes: a clean PDF is never rewritten
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _clean_tree(root: PdfObject) -> int:
    """Clean `root` and the dictionaries and arrays held in it directly (an indirect one is an
    object of its own, cleaned in its turn)."""
    changed, stack = 0, [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, DictionaryObject):
            changed += _clean_dict(obj)
            stack += [v for v in obj.values() if not isinstance(v, IndirectObject)]
        elif isinstance(obj, ArrayObject):
            changed += _drop_active_annotations(obj)
            stack += [v for v in obj if not isinstance(v, IndirectObject)]
    return changed


def _clean_dict(d: DictionaryObject) -> int:
    if _is_active_action(d) or _name(d, "/Type") == "/EmbeddedFile":
        d.clear()  # what still points at it finds an empty dictionary: nothing to run
        if isinstance(d, StreamObject):
            StreamObject.set_data(d, b"")  # the plain setter: an encoded one wants its filter
        return 1
    drop = [k for k in d if k in ACTIVE_KEYS or k == "/Next"]
    if "/A" in d and not _is_jump(d["/A"]):
        drop.append("/A")
    for key in drop:
        del d[key]
    return len(drop)


def _name(d: DictionaryObject, key: str) -> str | None:
    """`d[key]` when it is a name (a hostile file may put anything there), else None."""
    value = d.get(key)
    value = value.get_object() if value is not None else None
    return str(value) if isinstance(value, NameObject) else None


def _is_active_action(d: DictionaryObject) -> bool:
    return _name(d, "/S") in ACTIVE_ACTIONS and _name(d, "/Type") in (None, "/Action")


def _is_jump(action: PdfObject) -> bool:
    """Whether `action` only moves to another page of the same file."""
    target = action.get_object()
    return isinstance(target, DictionaryObject) and _name(target, "/S") == "/GoTo"


def _drop_active_annotations(items: ArrayObject) -> int:
    keep = [v for v in items if not _is_active_annotation(v)]
    removed = len(items) - len(keep)
    if removed:
        items[:] = keep
    return removed


def _is_active_annotation(item: PdfObject) -> bool:
    target = item.get_object()
    return (
        isinstance(target, DictionaryObject)
        and _name(target, "/Type") in (None, "/Annot")
        and _name(target, "/Subtype") in ACTIVE_ANNOTATIONS
    )


def _drop_unreachable(writer: PdfWriter) -> None:
    """Leave out of the file every object the catalog and the document info no longer reach."""
    roots: list[PdfObject] = [writer.root_object]
    if writer._info is not None:
        roots.append(writer._info)
    stack: list[PdfObject | None] = list(roots)
    reached: set[int] = set()
    while stack:
        obj = stack.pop()
        if isinstance(obj, IndirectObject):
            if obj.pdf is not writer or obj.idnum in reached:
                continue
            reached.add(obj.idnum)
            obj = obj.get_object()
        if isinstance(obj, DictionaryObject):
            stack += obj.values()
        elif isinstance(obj, ArrayObject):
            stack += obj
    for r in roots:
        if r.indirect_reference is not None:
            reached.add(r.indirect_reference.idnum)
    for i in range(len(writer._objects)):
        if i + 1 not in reached:
            writer._objects[i] = None
