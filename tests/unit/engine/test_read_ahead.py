"""The evidence files read while the payloads are built (engine/prepare/read_ahead.py): the
reading starts at once on its own thread, the matcher gets the same facts without a second
reading, and whatever the read-ahead did not read (a changed file, a failed read-ahead) is read
in turn. With the real reader (documents/reading.py) on PDFs made here."""

from __future__ import annotations

import threading

from dispute_evidence.documents.files import match_evidence_files
from dispute_evidence.documents.reading import ReadLimits, ToRead, read_documents
from dispute_evidence.engine.prepare.read_ahead import ReadAhead
from support.docfixtures import text_pdf

DISPUTES = {"dp_a": "5000", "dp_b": "5001"}


class CountingReader:
    """The real reader, counting the files it is asked to read."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.fail = False

    def __call__(self, files):
        self.asked += [f.label for f in files]
        if self.fail:
            raise RuntimeError("the reading worker could not start")
        items = [ToRead(f.path, f.path.name, f.mime, f.sha256) for f in files]
        return read_documents(items, ReadLimits(seconds=10))


def _inbox(tmp_path):
    return [
        text_pdf(tmp_path / "scan_1.pdf", [["Proof of delivery", "Order number 5000"]]),
        text_pdf(tmp_path / "dp_b receipt.pdf", [["Receipt", "Order 5001"]]),
    ]


def test_the_matcher_gets_what_was_read_ahead_and_nothing_is_read_twice(tmp_path):
    paths = _inbox(tmp_path)
    (tmp_path / "empty.pdf").write_bytes(b"")  # fails its checks: never read
    (tmp_path / "notes.pdf").write_bytes(b"not a pdf at all, whatever the name says")
    paths += [tmp_path / "empty.pdf", tmp_path / "notes.pdf"]
    plain = match_evidence_files(paths, tmp_path, DISPUTES, read=CountingReader())
    read = CountingReader()
    ahead = ReadAhead(read, paths, tmp_path)
    matches, issues = match_evidence_files(paths, tmp_path, DISPUTES, read=ahead.reader())
    assert sorted(read.asked) == ["dp_b receipt.pdf", "scan_1.pdf"]  # once each, ahead
    assert (matches, issues) == plain  # the same matches, facts and issues as reading in turn
    assert matches["dp_a"][0].matched == "content: names order 5000"
    assert matches["dp_a"][0].facts is not None and matches["dp_a"][0].facts.read == "text"


def test_the_reading_starts_before_the_matcher_asks(tmp_path):
    paths = _inbox(tmp_path)
    started, go = threading.Event(), threading.Event()
    real = CountingReader()

    def slow(files):
        started.set()
        assert go.wait(10)
        return real(files)

    ahead = ReadAhead(slow, paths, tmp_path)
    assert started.wait(10), "the read-ahead waited for the matcher"  # built meanwhile
    go.set()
    assert len(ahead.wait()) == 2


def test_a_file_changed_since_and_a_failed_read_ahead_are_read_by_the_matcher(tmp_path):
    paths = _inbox(tmp_path)
    read = CountingReader()
    ahead = ReadAhead(read, paths, tmp_path)
    ahead.wait()
    text_pdf(tmp_path / "scan_1.pdf", [["Proof of delivery", "Order number 5001"]])  # changed
    matches, _ = match_evidence_files(paths, tmp_path, DISPUTES, read=ahead.reader())
    assert read.asked == ["dp_b receipt.pdf", "scan_1.pdf", "scan_1.pdf"]
    assert [f.label for f in matches["dp_b"]] == ["dp_b receipt.pdf", "scan_1.pdf"]

    failing = CountingReader()
    failing.fail = True
    ahead = ReadAhead(failing, paths, tmp_path)
    assert ahead.wait() == {}
    failing.fail = False
    matches, issues = match_evidence_files(paths, tmp_path, DISPUTES, read=ahead.reader())
    assert issues == [] and list(matches) == ["dp_b"]
    assert [f.facts.read for f in matches["dp_b"] if f.facts] == ["text", "text"]
    assert failing.asked.count("scan_1.pdf") == 2  # ahead (failed), then by the matcher
