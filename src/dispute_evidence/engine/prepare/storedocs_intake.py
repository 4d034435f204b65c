"""Store documents (the inbox's store/ folder) taken in and attached: each file is checked and
read once (the reader caches by content), each new content kept as a version of its name
(evidence/in_force.py says which version an order argues), and every dispute still to be
answered whose reason needs a document's kind gets the version in force at its order's date,
as an evidence_files row like any matched file (one per dispute and content: uploaded once,
counted against the network limits with the rest). Files stay where they are: every new
dispute needs them again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from dispute_evidence import clock, names
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.files import (
    EvidenceFile,
    FileIssue,
    card_number_note,
    check_file,
    shows_a_card_number,
)
from dispute_evidence.documents.kinds import kind_of
from dispute_evidence.engine.prepare.kept_facts import facts_of
from dispute_evidence.engine.prepare.storeheld import (
    Owners,
    damaged_row,
    dated_later,
    not_the_stores,
)
from dispute_evidence.evidence.delivery import day
from dispute_evidence.evidence.in_force import (
    STORE_MATCH,
    Order,
    StoreVersion,
    attach,
    needed_by_some_reason,
)
from dispute_evidence.inbox import (
    STORE,
    file_sha256,
    is_settled,
    signature,
    store_blob,
    unreadable_reason,
)
from dispute_evidence.ingest import scan_store
from dispute_evidence.names import upload_name
from dispute_evidence.state.holders import HasDisputes, HasStoredocs


class StoredocsParts(HasDisputes, HasStoredocs, Protocol):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


Reader = Callable[[list[EvidenceFile]], Mapping[str, DocumentFacts]]
NO_KIND = (
    "not attached to any dispute: neither its name nor its text says it is a policy or terms "
    "(name it e.g. 'refund policy.pdf', 'terms of service.pdf', 'checkout.png')"
)


@dataclass
class StoreTaken:
    rows: list[dict[str, Any]] = field(default_factory=list)  # evidence_files rows to register
    issues: list[FileIssue] = field(default_factory=list)  # one line per file not used
    seen: list[str] = field(default_factory=list)  # the files' signatures (the watcher's memory)
    new_versions: int = 0  # contents not kept before (each read once)


def take_store_documents(
    store: StoredocsParts,
    inbox: Path,
    blob_dir: Path,
    read: Reader | None,
    settle: float,
    disputes: Mapping[str, str] | None = None,
) -> StoreTaken:
    """Take in store/'s files (new versions kept) and the rows attaching them to disputes;
    `disputes` (dispute -> order number): a file naming one of them is that order's, held."""
    out = StoreTaken()
    paths, skipped = scan_store(inbox)
    out.issues += [FileIssue(label, why) for label, why in skipped]
    kept = store.storedocs.store_document_versions()
    known = {r["signature"]: r for r in kept if r["signature"]}
    before = {(r["name"], r["sha256"]) for r in kept}
    checked: list[EvidenceFile] = []
    for path in paths:
        label = names.label(path, inbox)
        try:
            if not is_settled(path, settle):
                out.issues.append(FileIssue(label, "still being written: read by the next run"))
                continue
            sig = signature(inbox, path)
            found = _unchanged(path, label, known.get(sig)) or check_file(path, label)
        except OSError as exc:  # left where it is: it may be readable next run
            out.issues.append(FileIssue(label, unreadable_reason(exc)))
            continue
        out.seen.append(sig)
        if isinstance(found, FileIssue):
            out.issues.append(found)
        else:
            checked.append(found)
    facts = read(checked) if read is not None and checked else {}
    owners = Owners.of(disputes or {})
    current: set[tuple[str, str]] = set()
    for f in checked:
        if _keep(store, inbox, blob_dir, f, facts.get(f.sha256), out, owners):
            current.add((names.label(f.path, inbox / STORE), f.sha256))
    out.new_versions = len(
        {(r["name"], r["sha256"]) for r in store.storedocs.store_document_versions()} - before
    )
    out.rows = attachment_rows(store, current, out.issues)
    return out


def _unchanged(path: Path, label: str, kept: dict[str, Any] | None) -> EvidenceFile | None:
    """The file as kept, when its signature is the one kept with a version and its content
    still hashes to it (a replacement of the same size and time is a new version)."""
    if kept is None or not Path(kept["path"]).is_file() or file_sha256(path) != kept["sha256"]:
        return None
    return EvidenceFile(path, label, kept["sha256"], int(kept["size"]), kept["mime"])


def _keep(
    store: StoredocsParts,
    inbox: Path,
    blob_dir: Path,
    f: EvidenceFile,
    facts: DocumentFacts | None,
    out: StoreTaken,
    owners: Owners,
) -> bool:
    """Keep one checked file as a version of its name, unless no reviewer may see it (a
    password, a card number), it is not the store's own (one order's or customer's document),
    or no reason asks for its kind (one line each). A policy dated after today is kept (it
    holds from its date) with a line saying why it goes to no dispute yet."""
    if facts is not None and facts.read == "encrypted":
        out.issues.append(FileIssue(f.label, facts.note))
        return False
    if facts is not None and shows_a_card_number(facts):
        out.issues.append(FileIssue(f.label, card_number_note(facts)))
        return False
    kind = facts.kind if facts is not None else kind_of(f.path.name)
    held = not_the_stores(kind, owners.named(f.path.stem, facts))
    if held:
        out.issues.append(FileIssue(f.label, held))
        return False
    if not needed_by_some_reason(kind):
        out.issues.append(FileIssue(f.label, NO_KIND))
        return False
    effective = facts.effective if facts is not None else None
    if effective is not None and effective > clock.now().date():
        out.issues.append(FileIssue(f.label, dated_later(effective)))
    store.storedocs.keep_store_document(
        {
            "name": names.label(f.path, inbox / STORE),
            "sha256": f.sha256,
            "kind": kind,
            "effective": effective.isoformat() if effective else None,
            "dropped": clock.now().date().isoformat(),
            "path": str(store_blob(blob_dir, f.path, f.sha256)),
            "size": f.size,
            "mime": f.mime,
            "signature": signature(inbox, f.path),
        }
    )
    return True


def versions(
    store: StoredocsParts,
    current: Collection[tuple[str, str]] = (),
    issues: list[FileIssue] | None = None,
) -> list[StoreVersion]:
    """Every version kept whose stored copy is still there to upload; `current`: the (name,
    sha256) of the files in store/ now. A damaged row is left out with a line in `issues`."""
    out: list[StoreVersion] = []
    for r in store.storedocs.store_document_versions():
        try:
            v = _version(r, (r["name"], r["sha256"]) in current)
        except (TypeError, ValueError, KeyError) as exc:
            if issues is not None:
                issues.append(FileIssue(f"{STORE}/{r.get('name') or '?'}", damaged_row(exc)))
            continue
        if Path(v.path).is_file():
            out.append(v)
    return out


def _version(r: Mapping[str, Any], current: bool) -> StoreVersion:
    """One kept row as a version (ValueError, TypeError: a damaged row)."""
    sig = str(r.get("signature") or "")
    mtime = sig.rsplit("|", 1)[-1] if "|" in sig else ""
    return StoreVersion(
        str(r["name"]),
        str(r["sha256"]),
        str(r["kind"]),
        date.fromisoformat(r["effective"]) if r["effective"] else None,
        date.fromisoformat(r["dropped"]),
        str(r["path"]),
        int(r["size"]),
        str(r["mime"]),
        int(mtime) if mtime.isdigit() else 0,
        current,
    )


def attachment_rows(
    store: StoredocsParts,
    current: Collection[tuple[str, str]] = (),
    issues: list[FileIssue] | None = None,
) -> list[dict[str, Any]]:
    """The evidence_files rows of every store document each dispute still to be answered
    needs (sync_files keeps one per dispute and content: a second run adds nothing)."""
    kept = versions(store, current, issues)
    if not kept:
        return []
    orders: dict[str, Order] = {}
    work = {d["provider_dispute_id"]: d["payload"] for d in store.disputes.summary_work()}
    for pid, facts in facts_of(store, work).items():
        ordered = day(facts.order.order_date)
        orders[pid] = Order(facts.claim.reason, date.fromisoformat(ordered) if ordered else None)
    return [
        {
            "provider_dispute_id": pid,
            "sha256": v.sha256,
            "file_name": upload_name(Path(v.name).name),
            "size": v.size,
            "mime": v.mime,
            "path": v.path,
            "kind": v.kind,
            "matched": v.words(),
        }
        for pid, chosen in attach(orders, kept).items()
        for v in chosen
    ]


def store_documents_column(table: pd.DataFrame, files: pd.DataFrame) -> pd.Series:
    """Per dispute, the store documents attached, each with its version ("store policy: refund
    policy.pdf, version of 2025-10-01"), as registered (engine/prepare/storedocs_intake.py)."""
    matched = files["matched"].fillna("").astype(str)
    store = files.loc[matched.str.startswith(STORE_MATCH)]
    said = store.groupby("provider_dispute_id")["matched"].agg(lambda m: "; ".join(sorted(m)))
    return table["provider_dispute_id"].map(said).fillna("")
