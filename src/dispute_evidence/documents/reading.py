"""Read evidence documents into `DocumentFacts`: bounded in time and memory, once per file.

The text comes from a worker process (documents/_read_worker.py): a PDF's own text layer with
pypdf (at most `max_pages` pages, `max_chars` characters), and Tesseract OCR for images and
for PDF pages with no text (rendered by pdftoppm; at most `ocr_pages` pages per file). The
worker caps its own memory (RLIMIT_AS) and CPU time (RLIMIT_CPU), and this side kills its
whole process group when a file takes longer than `seconds`: a hostile file (issue 30: an
11 KB PDF whose pages draw a 990,000-operator form 5,000 times) costs at most that budget,
and is then used as a file only, with one plain line saying so.

The facts (identifiers, and per kind: delivery, policy clause, messages, amount) are found in
the text by documents/doctext.py (pure, linear-time patterns), in the worker (`worker_facts`).
`read_documents` reads many files on up to `workers` processes (2 cores: never more than the
machine has), each kept a few files ahead and all answered in one thread, and each answer is
kept in a cache folder by content hash (by the worker), so a file is read (and OCR'd) once,
ever.

Pure of the engine: paths in, facts out.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from dispute_evidence.cardnumbers import cover, has_card_number
from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import Delivery, DocumentFacts, Message, Quote

# Bump when what is read from a file changes: cached answers of another version are read again.
# 2026-12-02: a document's effective date ("Last updated: …"); a policy's clause per topic
# 2026-12-03: card numbers written with any space, dot, dash or line break; in metadata too
# 2026-12-04: column-ordered ePODs paired by position, never a label as a value; the waybill
# read from a table; a checkout's OCR'd checkbox left out of its clause (issue 45 items 1, 4)
# 2026-12-05: a document of no known kind keeps its first words (the letter quotes them)
READER = "2026-12-05"
WORKER = Path(__file__).with_name("_read_worker.py")
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # where the worker finds doctext & co.


@dataclass(frozen=True)
class ReadLimits:
    """How much reading one file may cost; and the OCR tools (None: not installed)."""

    seconds: float = 20.0  # wall clock per file, OCR included; killed past it
    memory_mb: int = 1024  # the worker's address space (Tesseract runs inside it)
    max_pages: int = 5  # pages whose text is read
    ocr_pages: int = 2  # pages without text that are OCR'd, per PDF
    max_chars: int = 50_000  # text kept per file
    # found on PATH when the limits are made (None: not installed, images are not read)
    tesseract: str | None = field(default_factory=lambda: shutil.which("tesseract"))
    pdftoppm: str | None = field(default_factory=lambda: shutil.which("pdftoppm"))
    workers: int = max(1, min(2, os.cpu_count() or 1))
    # how the locale writes 10/12/2025 ([ingest] locale; None: month first) where the text's
    # own dates leave it open; an answer read with another is read again
    dayfirst: bool | None = None

    def request(self, path: Path, mime: str) -> dict[str, Any]:
        return {
            "path": str(path),
            "mime": mime,
            "max_pages": self.max_pages,
            "max_chars": self.max_chars,
            "ocr_pages": self.ocr_pages,
            "seconds": self.seconds,
            "tesseract": self.tesseract,
            "pdftoppm": self.pdftoppm,
        }


@dataclass(frozen=True)
class ToRead:
    path: Path
    name: str
    mime: str
    sha256: str


class _Worker:
    """One reading process, asked ahead: the next requests go out before the answers to the
    ones before them come back, so it never waits for this side between files. It finds the
    facts in the text and writes them to `cache` itself: in parallel, and no raw text (or
    card number) ever comes back to this side."""

    def __init__(self, limits: ReadLimits, cache: Path | None) -> None:
        self.limits = limits
        self.common = {"limits": asdict(limits), "cache": str(cache) if cache else None}
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER), str(limits.memory_mb), str(PACKAGE_ROOT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: pdftoppm/Tesseract die with it
        )
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()
        self.buffer = b""
        self.asked: list[ToRead] = []  # sent, not answered yet, in the order sent
        self.clock = time.monotonic()  # when it began the file it reads now

    def send(self, items: list[ToRead]) -> None:
        """Ask for `items` after those asked before (a worker gone shows when it is read)."""
        assert self.proc.stdin is not None
        if not self.asked:  # idle until now: its next file's clock starts here
            self.clock = time.monotonic()
        self.asked += items
        body = b"".join(json.dumps(self._request(i)).encode() + b"\n" for i in items)
        with contextlib.suppress(OSError):
            self.proc.stdin.write(body)
            self.proc.stdin.flush()

    def _request(self, item: ToRead) -> dict[str, Any]:
        return {
            **self.limits.request(item.path, item.mime),
            **self.common,
            "name": item.name,
            "sha256": item.sha256,
        }

    def deadline(self) -> float:
        """When its oldest file asked is over budget: the clock starts when the answer before
        it arrived (a worker reads one file at a time)."""
        return self.clock + self.limits.seconds + 1.0

    def take(self, chunk: bytes) -> list[tuple[ToRead, dict[str, Any]]]:
        """The files answered by what it wrote (`chunk`), each with its answer."""
        self.buffer += chunk
        out = []
        while b"\n" in self.buffer and self.asked:
            line, _, self.buffer = self.buffer.partition(b"\n")
            self.clock = time.monotonic()
            try:
                answer = json.loads(line)
            except ValueError:  # never from our worker; a broken line is no reason to stop
                answer = {"read": "unreadable", "note": "reader"}
            out.append((self.asked.pop(0), answer))
        return out

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, kill: bool = False) -> None:
        if kill and self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        elif self.proc.stdin is not None:
            with contextlib.suppress(OSError):  # gone already: nothing to tell it
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


PIPELINE = 8  # requests a worker holds at once (a few hundred bytes each: within a pipe)
TIMEOUT: dict[str, Any] = {"read": "timeout", "note": ""}


class _Pool:
    """Up to `limits.workers` reading processes, each kept PIPELINE files ahead, all answered
    in the caller's one thread (no second thread to wait on for the interpreter lock while
    it writes the cache). A worker whose oldest file overran its budget, or that died, or
    that answered "timeout" (it may still be busy) is killed; the files asked after it are
    asked again of a new one."""

    def __init__(self, limits: ReadLimits, todo: list[ToRead], cache: Path | None) -> None:
        self.limits = limits
        self.cache = cache
        self.todo = todo  # popped from its end
        self.workers: list[_Worker] = []
        self.selector = selectors.DefaultSelector()

    def answers(self) -> Iterator[tuple[ToRead, dict[str, Any]]]:
        """Every file of `todo` with its answer, in the order they come."""
        try:
            while self._ask():
                yield from self._wait()
        finally:
            for worker in list(self.workers):
                self._retire(worker, kill=bool(worker.asked))
            self.selector.close()

    def _ask(self) -> bool:
        """Keep every worker PIPELINE files ahead (starting workers while files are left);
        False when nothing is asked and nothing left."""
        while self.todo and len(self.workers) < self._wanted():
            worker = _Worker(self.limits, self.cache)
            self.selector.register(worker.fd, selectors.EVENT_READ, worker)
            self.workers.append(worker)
        for worker in self.workers:
            room = min(PIPELINE - len(worker.asked), len(self.todo))
            if room > 0:
                worker.send([self.todo.pop() for _ in range(room)])
        return any(w.asked for w in self.workers)

    def _wanted(self) -> int:
        """Workers worth having: one per PIPELINE files still to read, up to the limit (a
        merchant's few files are read by one process, not one started per core for nothing)."""
        left = len(self.todo) + sum(len(w.asked) for w in self.workers)
        return min(max(1, self.limits.workers), -(-left // PIPELINE))

    def _wait(self) -> list[tuple[ToRead, dict[str, Any]]]:
        """The answers that come before the soonest deadline; the file of a worker that died
        or overran, answered "timeout"."""
        soonest = min(w.deadline() for w in self.workers if w.asked)
        out = []
        for key, _ in self.selector.select(max(0.0, soonest - time.monotonic())):
            worker: _Worker = key.data
            chunk = os.read(worker.fd, 1 << 16)
            got = worker.take(chunk)
            out += got if chunk else self._fail(worker)  # no more: it died
            if not chunk or any(a.get("read") == "timeout" for _, a in got):
                self._retire(worker, kill=True)
        now = time.monotonic()
        for worker in [w for w in self.workers if w.asked and w.deadline() <= now]:
            out += self._fail(worker)
            self._retire(worker, kill=True)
        return out

    def _fail(self, worker: _Worker) -> list[tuple[ToRead, dict[str, Any]]]:
        """Its oldest file asked, answered "timeout" (the file it was reading)."""
        return [(worker.asked.pop(0), TIMEOUT)] if worker.asked else []

    def _retire(self, worker: _Worker, kill: bool) -> None:
        """Stop it; what it was asked and did not answer goes back to be read by another."""
        self.todo.extend(reversed(worker.asked))
        worker.asked = []
        self.selector.unregister(worker.fd)
        worker.close(kill=kill)
        self.workers.remove(worker)


def read_documents(
    items: Iterable[ToRead], limits: ReadLimits | None = None, cache: Path | None = None
) -> dict[str, DocumentFacts]:
    """{sha256: facts} for every item; those in `cache` (a folder) are not read again, and new
    answers are written there."""
    limits = limits or ReadLimits()
    out: dict[str, DocumentFacts] = {}
    queue: dict[str, ToRead] = {}  # one read per content, whatever its names
    for item in items:
        if item.sha256 in out or item.sha256 in queue:
            continue
        cached = load_cached(cache, item, limits.dayfirst) if cache else None
        if cached is not None:
            out[item.sha256] = cached
        else:
            queue[item.sha256] = item
    todo = list(reversed(queue.values()))  # popped from the end: read in the order given
    for item, answer in _Pool(limits, todo, cache).answers():
        if isinstance(answer.get("facts"), dict):  # found, and cached, by the worker
            out[item.sha256] = replace(facts_from_dict(answer["facts"]), name=item.name)
        else:  # over its budget, or the worker died: said here
            out[item.sha256] = _keep(to_facts(item, answer, limits), limits, cache)
    return out


def _keep(
    facts: DocumentFacts,
    limits: ReadLimits,
    cache: Path | None,
    as_dict: dict[str, Any] | None = None,
) -> DocumentFacts:
    """`facts` (as `as_dict`, when made already), written to `cache` first; "no_ocr" is this
    machine's, not the file's: tried again next run."""
    if cache is not None and facts.read != "no_ocr":
        save_cached(cache, facts, limits.dayfirst, as_dict)
    return facts


def worker_facts(req: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """In the worker (documents/_read_worker.py): its answer to `req` made into facts, kept
    in the request's cache folder; what goes back is the facts, never the text."""
    limits = ReadLimits(**req["limits"])
    item = ToRead(Path(req["path"]), str(req["name"]), str(req["mime"]), str(req["sha256"]))
    facts = to_facts(item, answer, limits)
    as_dict = facts_to_dict(facts)  # made once: for the cache and the answer
    _keep(facts, limits, Path(req["cache"]) if req.get("cache") else None, as_dict)
    return {"read": facts.read, "facts": as_dict}


def read_document(
    path: Path, name: str, mime: str, *, sha256: str = "", limits: ReadLimits | None = None
) -> DocumentFacts:
    """One file's facts (a worker process of its own, bounded as `limits` says)."""
    item = ToRead(path, name, mime, sha256 or "-")
    one = replace(limits or ReadLimits(), workers=1)
    return read_documents([item], one)[item.sha256]


def missing_ocr_line(limits: ReadLimits) -> str:
    """One line when an OCR tool is not on PATH: what is missing, what a run loses and how to
    add it ("" when both are there). Images need Tesseract; scans need pdftoppm as well."""
    missing = [
        (tool, package)
        for tool, package, path in (
            ("Tesseract", "tesseract-ocr", limits.tesseract),
            ("pdftoppm", "poppler-utils", limits.pdftoppm),
        )
        if not path
    ]
    if not missing:
        return ""
    lost = (
        "photos, screenshots and scanned PDFs are not read"
        if not limits.tesseract
        else "scanned PDFs (pages with no text) are not read"
    )
    return (
        f"OCR is off ({' and '.join(t for t, _ in missing)} not found): {lost}, only matched by "
        "their names and sent as files; PDFs with text are read as usual. "
        f"To read them: apt-get install {' '.join(p for _, p in missing)}"
    )


def not_read_note(read: str, limits: ReadLimits, note: str = "") -> str:
    """One plain line for a file that was sent as a file but not read."""
    if read == "timeout":
        budget = (
            f"its {limits.memory_mb} MB memory budget"
            if note == "memory"
            else f"its {limits.seconds:g} s reading budget"
        )
        return f"not read: reading it took more than {budget}; it is sent as a file only"
    if read == "no_ocr":
        return (
            "not read: it is an image or a scan and Tesseract is not installed "
            "(apt-get install tesseract-ocr); it is sent as a file only"
        )
    if read == "encrypted":
        return "password-protected: no reviewer can open it; drop it again without a password"
    if read == "unreadable":
        return f"not read: damaged or not a readable {'PDF' if note else 'file'} ({note or '?'})"
    return ""


def to_facts(item: ToRead, answer: dict[str, Any], limits: ReadLimits) -> DocumentFacts:
    """A worker's answer (page texts) made into facts."""
    from dispute_evidence.documents.kinds import kind_of

    read = str(answer.get("read", "unreadable"))
    texts = [str(t) for t in answer.get("texts") or []]
    card_pages = tuple(i for i, t in enumerate(texts, 1) if has_card_number(t))
    meta = answer.get("metadata") or {}
    card_metadata = tuple(sorted(str(k) for k, v in meta.items() if has_card_number(str(v))))
    texts = [cover(t) for t in texts]  # nothing below sees a card number or security code
    pages = answer.get("pages")
    base = DocumentFacts(
        name=item.name,
        sha256=item.sha256,
        kind=kind_of(item.name, "\n".join(texts)),
        read=read,  # type: ignore[arg-type]  # the worker answers with a ReadHow
        pages=int(pages) if isinstance(pages, int) else None,
        note=not_read_note(read, limits, str(answer.get("note") or "")),
        card_pages=card_pages,
        card_metadata=card_metadata,
    )
    if read not in ("text", "ocr"):
        return base
    return doctext.facts(base, texts, limits.dayfirst)


# -- the cache: one JSON file per content hash ------------------------------------------------


def _cache_file(cache: Path, sha256: str) -> Path:
    return cache / f"{sha256}.json"


def load_cached(cache: Path, item: ToRead, dayfirst: bool | None = None) -> DocumentFacts | None:
    """The cached answer, if this reader read it with this locale's date order."""
    return facts_from_cache(cache, item.sha256, item.name, dayfirst)


def facts_from_cache(
    cache: Path, sha256: str, name: str, dayfirst: bool | None | str = "any"
) -> DocumentFacts | None:
    """What was read from the file with this content (under `name`), if this reader read it
    (with `dayfirst`, unless "any")."""
    try:
        data = json.loads(_cache_file(cache, sha256).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("reader") != READER:
        return None
    if dayfirst != "any" and data.get("dayfirst") != dayfirst:
        return None
    try:
        return replace(facts_from_dict(data["facts"]), name=name)
    except (KeyError, TypeError, ValueError, AttributeError):  # damaged or planted: read again
        return None


def save_cached(
    cache: Path,
    facts: DocumentFacts,
    dayfirst: bool | None = None,
    as_dict: dict[str, Any] | None = None,
) -> None:
    target = _cache_file(cache, facts.sha256)
    tmp = target.with_suffix(".tmp")
    whole = as_dict if as_dict is not None else facts_to_dict(facts)
    body = json.dumps({"reader": READER, "dayfirst": dayfirst, "facts": whole}).encode()
    try:  # private, as everything the pipeline keeps (what documents say is customer data)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        tmp.replace(target)
    except OSError:
        pass  # read again next run: slower, never wrong


def facts_to_dict(facts: DocumentFacts) -> dict[str, Any]:
    return asdict(facts, dict_factory=lambda kv: {k: _plain(v) for k, v in kv})


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _quote(d: dict[str, Any] | None) -> Quote | None:
    return Quote(str(d["text"]), int(d["page"])) if d else None


def _day(v: Any) -> date | None:
    return date.fromisoformat(v) if v else None


def facts_from_dict(d: dict[str, Any]) -> DocumentFacts:
    """The inverse of facts_to_dict (the cache's JSON back into facts)."""
    delivery = d.get("delivery")
    amount = d.get("amount")
    return DocumentFacts(
        name=str(d["name"]),
        sha256=str(d["sha256"]),
        kind=str(d["kind"]),
        read=d["read"],
        pages=d.get("pages"),
        order_numbers=tuple(d.get("order_numbers") or ()),
        dispute_ids=tuple(d.get("dispute_ids") or ()),
        tracking_numbers=tuple(d.get("tracking_numbers") or ()),
        delivery=Delivery(
            _day(delivery["on"]),
            delivery["signed_by"],
            delivery["address"],
            _quote(delivery["quote"]) or Quote("", 1),
            bool(delivery.get("delivered", True)),
        )
        if delivery
        else None,
        policy_clause=_quote(d.get("policy_clause")),
        policy_clauses={
            str(k): q for k, v in (d.get("policy_clauses") or {}).items() if (q := _quote(v))
        },
        messages=tuple(
            Message(_day(m["on"]), m["author"], _quote(m["quote"]) or Quote("", 1))
            for m in d.get("messages") or ()
        ),
        amount=(float(amount[0]), str(amount[1])) if amount else None,
        effective=_day(d.get("effective")),
        note=str(d.get("note") or ""),
        extra={str(k): str(v) for k, v in (d.get("extra") or {}).items()},
        card_pages=tuple(int(p) for p in d.get("card_pages") or ()),
        card_metadata=tuple(str(k) for k in d.get("card_metadata") or ()),
    )
