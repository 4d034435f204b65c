"""The inbox's evidence files read while the payloads are built, not after (issue 47).

Reading documents is work for separate processes (documents/reading.py), and building the
payloads is work for this one; one after the other, a first run on an inbox of 2,000 disputes
and 4,000 PDFs waited for both. `ReadAhead` starts the reading as prepare begins, on a thread
of its own, for every file that passes the same checks the matcher makes (size, content type:
documents/files.py check_file); the matcher's reader then takes what was read and reads only
what was not (a file changed since, or a reading that failed). Nothing is decided here: which
file goes to which dispute is the matcher's, as before, and a read-ahead that fails changes only
how long the run takes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from dispute_evidence import names
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.files import EvidenceFile, Reader, check_file
from dispute_evidence.names import upload_name

log = logging.getLogger("dispute_evidence.prepare")


class ReadAhead:
    """`read` (the run's reader) over the files of `paths` that pass their checks, started
    now on a thread; `reader()` is what the matcher reads with."""

    def __init__(self, read: Reader, paths: Sequence[Path], root: Path) -> None:
        self._read = read
        self._facts: Mapping[str, DocumentFacts] = {}
        self._thread = threading.Thread(
            target=self._run, args=(sorted(paths), root), name="read-ahead", daemon=True
        )
        self._thread.start()

    def _run(self, paths: list[Path], root: Path) -> None:
        try:
            files = []
            for path in paths:
                try:
                    checked = check_file(path, names.label(path, root))
                except OSError:  # the matcher says why, with the file's name
                    continue
                if isinstance(checked, EvidenceFile):
                    files.append(checked)
            if files:
                self._facts = self._read(files)
        except Exception as exc:  # noqa: BLE001 - read again by the matcher: slower, never wrong
            log.warning("reading the evidence files ahead failed (%s); they are read in turn", exc)
            self._facts = {}

    def wait(self) -> Mapping[str, DocumentFacts]:
        """What was read ahead, by content hash, once the reading is done."""
        self._thread.join()
        return self._facts

    def reader(self) -> Reader:
        """A reader that gives what was read ahead and reads the rest, with the names the
        files are matched under (the first file of each content, as the run's reader does)."""

        def read(files: list[EvidenceFile]) -> dict[str, DocumentFacts]:
            known = self.wait()
            out: dict[str, DocumentFacts] = {}
            rest, asked = [], set()
            for f in files:
                if f.sha256 in out or f.sha256 in asked:
                    continue
                if (facts := known.get(f.sha256)) is not None:
                    out[f.sha256] = replace(facts, name=upload_name(names.readable(f.path.name)))
                else:
                    rest.append(f)
                    asked.add(f.sha256)
            if rest:
                out.update(self._read(rest))
            return out

        return read
