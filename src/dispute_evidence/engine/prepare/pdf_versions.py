"""Generated PDFs go once: the letter and data sheet (or the packet) reach the API once per
dispute, and again only when a fact they state changed materially; at most one superseding
version in all, which says on page 1 what it replaces and why.

The design (docs/packet.md):
- A version that has not left yet (its file row still `pending`) is replaced freely: a dispute
  held for approval or edited before its first send piles nothing up.
- Once a version was sent (`uploaded`, or `sending`: it may have landed), a new one is made
  only when the *material* facts changed: the evidence (products, delivery, payment checks,
  amounts, dates, the customer as entered) or the set of documents. The merchant's name or
  website and our own wording are cosmetic: the evidence JSON carries them, no PDF is made.
- At most one superseding version (v2); later material changes go in the evidence JSON only,
  and the report says the API's PDF is not current.
- The packet (evidence/packet.py) is built for every dispute, in both upload modes: in `packet`
  mode it is the one file uploaded (its documents are `in_packet`, never sent alone); in
  `files` mode it is what the report shows for review, and the summary PDF is uploaded.
- What would go out is checked against the dispute's limit profile first (evidence/limits.py);
  over it, the dispute is held with one line, or, when already sent, the new version is not.
- Building one dispute's PDF never stops the run: that dispute gets a problem line.
"""

from __future__ import annotations

import errno
import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson
import pandas as pd

from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.engine.prepare.case import case_documents
from dispute_evidence.engine.prepare.kept_facts import facts_of
from dispute_evidence.engine.prepare.rebuild import source_records
from dispute_evidence.engine.prepare.stances import chosen, opened_at_api, with_choices
from dispute_evidence.evidence.dispute_facts import DisputeFacts
from dispute_evidence.evidence.limits import (
    LIMIT_HELD,
    PacketPolicy,
)
from dispute_evidence.state.generated import GENERATED_KINDS
from dispute_evidence.state.holders import (
    HasDisputes,
    HasGenerated,
    HasKept,
    HasRecords,
    HasReports,
    HasRuns,
    HasScoped,
)
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F

__all__ = ["LIMIT_HELD", "api_version_words", "refresh_generated", "stated_hash"]
from dispute_evidence.evidence.fact_sources import fact_sources
from dispute_evidence.evidence.pdf_layouts import (
    GENERATOR,
    PACKET_VERSION,
    packet_file_name,
    summary_file_name,
)
from dispute_evidence.evidence.wire import wire_fields
from dispute_evidence.inbox import store_blob
from dispute_evidence.problems import Problem, ProblemKind

if TYPE_CHECKING:
    from dispute_evidence.engine.prepare.pdf_build import Made


class GeneratedParts(
    HasDisputes, HasGenerated, HasKept, HasRecords, HasReports, HasRuns, HasScoped, Protocol
):
    """The store's parts this module's functions use (a StateStore, or a fake with them)."""


log = logging.getLogger("dispute_evidence.generated")
COSMETIC = frozenset({"merchant_profile"})  # payload keys a reviewer's decision does not rest on
SENT = frozenset({F.UPLOADED, F.SENDING})  # a version that went (or may have)
_WORDS = {
    "dispute": "the dispute's amount, currency or reason",
    "shipments": "the delivery facts",
    "shipping_tracking_numbers": "the tracking numbers",
    "products": "the order's lines",
    "visa_ce3": "the Visa CE 3.0 evidence",
}


@dataclass
class GeneratedOutcome:
    added: int = 0  # new versions registered
    held: dict[str, str] = field(default_factory=dict)  # {dispute: the limit line}
    problems: list[Problem] = field(default_factory=list)


def material_facts(
    payload: dict[str, Any], docs: list[dict[str, Any]], picks: tuple[tuple[str, str], ...] = ()
) -> dict[str, Any]:
    """What a reviewer's decision rests on: the evidence less the cosmetic, the documents, and
    the analyst's stance on a message (it changes what the letter argues)."""
    facts = {k: v for k, v in payload.items() if k not in COSMETIC}
    if picks:
        facts["message_stances"] = dict(picks)
    documents: dict[str, str] = {}
    for name, sha in sorted((d["file_name"], d["sha256"][:16]) for d in docs):
        seen = sum(k == name or k.startswith(f"{name} (version ") for k in documents)
        documents[name if not seen else f"{name} (version {seen + 1})"] = sha  # a store policy's
    facts["documents"] = documents
    return facts


def _digest(facts: dict[str, Any]) -> tuple[str, str]:
    text = orjson.dumps(facts, option=orjson.OPT_SORT_KEYS).decode()
    return text, hashlib.sha256(text.encode()).hexdigest()


def stated_hash(material: str) -> str:
    """The hash of what a version stated (its `material` JSON), to compare with the facts' now.
    Retention clears a closed dispute's payload and its versions' `material` alike (the
    personal fields dropped), so a cleared version still states the facts: no change."""
    return _digest(orjson.loads(material))[1]


def why_changed(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What changed between two material fact sets, in words for page 1."""
    said: list[str] = []
    before, after = old.get("documents") or {}, new.get("documents") or {}
    if added := sorted(n for n in after if n not in before):
        said.append("new document" + ("s: " if len(added) > 1 else ": ") + ", ".join(added))
    if gone := sorted(n for n in before if n not in after):
        said.append("document" + ("s" if len(gone) > 1 else "") + " withdrawn: " + ", ".join(gone))
    if replaced := sorted(n for n in after if n in before and before[n] != after[n]):
        said.append("document replaced: " + ", ".join(replaced))
    flat_old, flat_new = wire_fields(old), wire_fields(new)
    for key in sorted(set(flat_old) | set(flat_new)):
        if key == "documents" or flat_old.get(key) == flat_new.get(key):
            continue
        if key == "payments":  # name what of the charges changed: a refund is no check
            said += _charges_changed(flat_old.get(key), flat_new.get(key))
            continue
        said.append(_WORDS.get(key, "the " + key.replace("_", " ")) + " changed")
    return "; ".join(dict.fromkeys(said)) or "the facts it states changed"


# The charges' fields by what a reviewer reads them as (any other: "the payments")
_CHARGE_PARTS = (
    ("a refund", ("amount_refunded", "refunded_at")),
    ("the payment checks", ("avs_line1_check", "avs_zip_check", "cvc_check")),
)


def _charges_changed(old: Any, new: Any) -> list[str]:
    """What of the charges changed, in words: a refund, the payment checks, the payments."""
    before, after = _charge_list(old), _charge_list(new)
    if len(before) != len(after):
        return ["the payments changed"]
    keys = {k for a, b in zip(before, after, strict=True) for k in {*a, *b} if a.get(k) != b.get(k)}
    said = [f"{what} changed" for what, fields in _CHARGE_PARTS if keys & set(fields)]
    if keys - {f for _, fields in _CHARGE_PARTS for f in fields}:
        said.append("the payments changed")
    return said or ["the payments changed"]


def _charge_list(value: Any) -> list[dict[str, Any]]:
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def refresh_generated(
    store: GeneratedParts,
    blob_dir: Path,
    policy: PacketPolicy,
    records: dict[str, pd.DataFrame] | None = None,
    inbox: Path | None = None,
) -> GeneratedOutcome:
    """Make each due dispute's generated PDF and packet when what they rest on changed
    (`inbox`: whose documents folder holds what was read from each document)."""
    out = GeneratedOutcome()
    work = store.generated.generated_work()
    due = {d["provider_dispute_id"] for d in work}  # the open ones: not the year's
    files, versions = store.generated.files_by_dispute(due), store.generated.generated_versions(due)
    late = late_documents(files, versions, due) if policy.upload == "packet" else {}
    # (statuses: not read below)
    store.generated.pack_documents(policy.upload == "packet", alone=late)
    out.problems += [_sent_alone(pid, name) for (pid, _), name in late.items()]
    todo: list[tuple[dict[str, Any], list[dict[str, Any]], str]] = []
    picks = chosen(store, due)  # the analyst's stances: a new choice rebuilds the letter
    opened = opened_at_api(store, due)  # when the disputes list does not say
    for d in work:
        pid = d["provider_dispute_id"]
        docs = [
            f
            for f in files.get(pid, [])
            if f["kind"] not in GENERATED_KINDS and f["status"] != F.REJECTED
        ]
        made_from = _made_from(d, docs, policy, picks.get(pid, ()), opened.get(pid, ""))
        if made_from != d["summary_input"]:
            todo.append((d, docs, made_from))
        elif d["generated_held"]:  # still over: a rebuild may have released it
            store.generated.hold_over_limit(pid, d["generated_held"])
            out.held[pid] = d["generated_held"]
    payloads = {
        pid: with_choices(f, picks.get(pid, ()), opened.get(pid, ""))
        for pid, f in facts_of(
            store, {d["provider_dispute_id"]: d["payload"] for d, _, _ in todo}
        ).items()
    }
    where: dict[str, dict[str, str]] = {}
    if todo:  # the rows the letters cite (read by key when the build read only what changed)
        where = fact_sources(records or source_records(store, payloads), payloads)
    documents = case_documents(store, inbox, set(payloads)) if todo else {}
    for d, docs, made_from in todo:
        pid = d["provider_dispute_id"]
        held, material = _one(
            store,
            blob_dir,
            policy,
            out,
            d,
            payloads[pid],
            docs,
            versions.get(pid, []),
            where.get(pid),
            made_from,
            documents.get(pid, []),
        )
        if material is not None:  # one dispute at a time: a run killed here loses no work done
            store.generated.set_generated_inputs({pid: (made_from, material, held)})
    return out


def late_documents(
    files: dict[str, list[dict[str, Any]]],
    versions: dict[str, list[dict[str, Any]]],
    due: set[str],
) -> dict[tuple[str, str], str]:
    """{(dispute, sha256): name} of the documents not sent yet that no sent packet carries,
    of the `due` disputes (still to be answered) whose one superseding version has gone: no
    packet may follow, so they go to the API as files of their own rather than wait, unsent,
    inside a packet never made."""
    out: dict[tuple[str, str], str] = {}
    for pid in sorted(due):
        sent = [v for v in versions.get(pid, []) if v["status"] in SENT]
        if len(sent) < 2:
            continue
        carried = {
            (name, sha)
            for v in sent
            for name, sha in (orjson.loads(v["material"] or "{}").get("documents") or {}).items()
        }
        for f in files.get(pid, []):
            if (
                f["kind"] not in GENERATED_KINDS
                and f["status"] in (F.PENDING, F.IN_PACKET)
                and (f["file_name"], f["sha256"][:16]) not in carried
            ):
                out[(pid, f["sha256"])] = f["file_name"]
    return out


def _sent_alone(pid: str, name: str) -> Problem:
    return Problem(
        ProblemKind.DOCUMENT_SENT_ALONE,
        name,
        f"{name} arrived after this dispute's packet was superseded once (no further version "
        "may follow), so it goes to the API as a file of its own, after the packet; the letter "
        "does not cite it",
        file=name,
        dispute=pid,
    )


def _made_from(
    d: dict[str, Any],
    docs: list[dict[str, Any]],
    policy: PacketPolicy,
    picks: tuple[tuple[str, str], ...] = (),
    opened: str = "",
) -> str:
    parts = [GENERATOR, PACKET_VERSION, policy.signature(), d["payload_hash"] or ""]
    parts += [f"stance {key}: {choice}" for key, choice in picks]
    parts += [f"opened {opened}"] if opened else []  # the API's day, when the list had none
    parts += [f"{f['file_name']}:{f['sha256']}" for f in docs]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _one(
    store: GeneratedParts,
    blob_dir: Path,
    policy: PacketPolicy,
    out: GeneratedOutcome,
    d: dict[str, Any],
    facts: DisputeFacts,
    docs: list[dict[str, Any]],
    history: list[dict[str, Any]],
    sources: dict[str, str] | None,
    made_from: str,
    documents: list[DocumentFacts],
) -> tuple[str | None, str | None]:
    """(the limit line holding it or None, its material hash; None when nothing was decided)."""
    pid = d["provider_dispute_id"]
    # what the PDF states, as the payload sent says it (the hash earlier versions were kept by)
    material_text, material = _digest(
        material_facts(orjson.loads(d["payload"]), docs, facts.stance_choices)
    )
    sent = [v for v in history if v["status"] in SENT]
    if sent and (stated_hash(sent[-1]["material"]) == material or len(sent) >= 2):
        return None, material  # cosmetic, or the one superseding version already went
    version = len(sent) + 1
    notice = None
    if sent:
        why = why_changed(orjson.loads(sent[-1]["material"]), orjson.loads(material_text))
        notice = (
            f"This version replaces {sent[-1]['file_name']}, sent earlier, because {why}. "
            "It is the last version of this document; read it in place of the earlier one."
        )
    # the renderers (reportlab, pypdf: ~0.4 s to import) load with the first PDF made, so a run
    # that makes none does without them; outside the `try`: a broken install stops the run
    from dispute_evidence.engine.prepare.pdf_build import build_pdfs

    try:
        built = build_pdfs(pid, facts, docs, sources, notice, policy, documents)
    except Exception as exc:  # one dispute's PDF never stops the run
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise  # a full disk stops the run with its own exit code
        log.warning("%s: evidence PDF not made: %r", pid, exc)
        out.problems.append(_not_made(pid, exc))
        return None, None
    if built.over is not None:
        return _over(store, out, d, built.over), material
    if d["status"] == D.INCOMPLETE:
        store.generated.release_limit_hold(pid)
    _register(store, blob_dir, out, pid, version, built, material_text, notice, made_from)
    return None, material


def _over(store: GeneratedParts, out: GeneratedOutcome, d: dict[str, Any], line: str) -> str | None:
    pid = d["provider_dispute_id"]
    if d["status"] == D.SUBMITTED:  # what went stays; the new version is not sent over
        out.problems.append(
            Problem(
                ProblemKind.OVER_NETWORK_LIMIT,
                pid,
                "new version not sent: " + line.removeprefix("held: "),
                dispute=pid,
            )
        )
        return None
    store.generated.hold_over_limit(pid, line)
    out.held[pid] = line
    return line


def _register(
    store: GeneratedParts,
    blob_dir: Path,
    out: GeneratedOutcome,
    pid: str,
    version: int,
    built: Made,
    material_text: str,
    notice: str | None,
    made_from: str,
) -> None:
    sha = hashlib.sha256(built.body).hexdigest()
    target = store_blob(blob_dir, built.body, sha, ".pdf")
    packet_sha = hashlib.sha256(built.packet.body).hexdigest()
    packet_path = store_blob(blob_dir, built.packet.body, packet_sha, ".pdf")
    name = (packet_file_name if built.kind == "packet" else summary_file_name)(pid, version)
    file_row = {
        "provider_dispute_id": pid,
        "sha256": sha,
        "file_name": name,
        "size": len(built.body),
        "mime": "application/pdf",
        "path": str(target),
        "kind": built.kind,
    }
    doc_row = {
        "provider_dispute_id": pid,
        "sha256": sha,
        "version": version,
        "made_from": made_from,
        "material": material_text,
        "notice": notice,
        "packet_path": str(packet_path),
        "packet_pages": built.packet.pages,
    }
    out.added += int(store.generated.register_generated(file_row, doc_row))


def _not_made(pid: str, exc: Exception) -> Problem:
    what = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return Problem(
        ProblemKind.PDF_NOT_MADE,
        pid,
        f"its evidence PDF could not be made ({what}); its evidence JSON and every other "
        "dispute went on, and the next run tries again",
        dispute=pid,
    )


def api_version_words(
    history: list[dict[str, Any]], made_from: str | None, material: str | None
) -> str:
    """Which generated version the API holds, and whether it is current, for the report."""
    sent = [v for v in history if v["status"] == F.UPLOADED]
    going = [v for v in history if v["status"] == F.SENDING]
    waiting = [v for v in history if v["status"] == F.PENDING]
    if not sent:
        if going:
            return f"v{going[-1]['version']} being sent (checked at the API next run)"
        return f"v{waiting[-1]['version']} not sent yet" if waiting else ""
    held = sent[-1]
    words = f"v{held['version']} at the API"
    if waiting:
        return f"{words}; v{waiting[-1]['version']} waiting to be sent"
    if held["made_from"] == made_from:
        return f"{words} (current)"
    if material is not None and stated_hash(held["material"]) == material:
        return f"{words} (current facts; a cosmetic change went in the evidence JSON only)"
    return f"{words} (not current: the one new version allowed was sent; later facts are in the evidence JSON)"
