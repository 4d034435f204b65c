"""Retention: customer data kept only as long as the merchant says (`[retention]`, off by default).

- `customer_data_days`: that many days after a dispute closed, the customer's names, emails,
  addresses, IP addresses and device ids are cleared from its payload and from the order and
  payment rows it was built from, and the stored copies of its files (`.dispute-evidence/`,
  its uploads and summary PDFs) are deleted. Amounts, dates, outcomes and evidence kinds stay,
  so win rates still add up.
- `reports_days`: report folders older than that are removed (`latest/` stays).
- `archive_days`: the archive's dated folders older than that are removed (the analysts' own
  files, so only when set).

A run says what it removed; a dry run says what it would, and removes nothing. Disputes are
cleared once: a watermark in `meta` remembers up to when, so a night's cost does not grow with
the closed disputes of past years.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from dispute_evidence import clock
from dispute_evidence.inbox import ARCHIVE, PRIVATE
from dispute_evidence.policies import RetentionPolicy
from dispute_evidence.state.ports import IngestSeq, RetentionStore
from dispute_evidence.state.retention import Clearing

log = logging.getLogger("dispute_evidence.retention")

# What identifies a customer: names, emails, addresses, IP addresses, device ids.
PERSONAL_FIELDS = frozenset(
    {
        "customer_name",
        "card_name",
        "customer_email",
        "billing_address",
        "shipping_address",
        "customer_ip",
        "device_id",
        "device_fingerprint",
    }
)
CLEARED_THROUGH = "retention_cleared_through"  # meta: disputes closed before this are cleared
CLEARED_SEQ = "retention_cleared_seq"  # meta: the last ingest whose rows were looked at


@dataclass
class RetentionOutcome:
    dry_run: bool = False
    disputes: list[str] = field(default_factory=list)  # customer data cleared
    files: list[str] = field(default_factory=list)  # stored copies deleted
    reports: list[str] = field(default_factory=list)  # report folders removed
    archive: list[str] = field(default_factory=list)  # archive folders removed

    def counts(self) -> dict[str, int]:
        return {
            "retention_disputes": len(self.disputes),
            "retention_files": len(self.files),
            "retention_reports": len(self.reports),
            "retention_archive": len(self.archive),
        }


def apply_retention(
    store: RetentionStore,
    ingests: IngestSeq,
    policy: RetentionPolicy,
    *,
    inbox: Path,
    reports: Path,
    dry_run: bool,
    now: datetime | None = None,
) -> RetentionOutcome:
    """Clear and remove what the policy says is kept no longer; a dry run only lists it."""
    now = now or clock.now()
    out = RetentionOutcome(dry_run=dry_run)
    if policy.customer_data_days is not None:
        cutoff = _stamp(now - timedelta(days=policy.customer_data_days))
        _clear_customer_data(store, ingests, inbox, cutoff, out)
    if policy.reports_days is not None:
        out.reports = _remove_old(
            _report_folders(reports), now - timedelta(days=policy.reports_days), dry_run
        )
    if policy.archive_days is not None:
        out.archive = _remove_old(
            _archive_folders(inbox / ARCHIVE), now - timedelta(days=policy.archive_days), dry_run
        )
    if any(out.counts().values()):
        log.info("retention%s: %s", " (dry run)" if dry_run else "", out.counts())
    return out


# -- customer data ----------------------------------------------------------------------------
def _stamp(when: datetime) -> str:
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _clear_customer_data(
    store: RetentionStore, ingests: IngestSeq, inbox: Path, cutoff: str, out: RetentionOutcome
) -> None:
    since = store.get_meta(CLEARED_THROUGH) or ""
    # closed before the watermark: cleared already; closed after the cutoff: kept for now
    rows, kept_orders = store.closed_for_clearing(
        cutoff, since, _dropped_again(store, ingests, since)
    )
    out.disputes = sorted(r[0] for r in rows)
    out.files = _stored_copies(store, out.disputes, inbox)
    if out.dry_run:
        return
    orders = {r[1] for r in rows if r[1]} - kept_orders
    store.clear_customer_data(
        Clearing(
            payloads={pid: _scrubbed(bytes(p)) for pid, _order, p in rows if p is not None},
            pids=out.disputes,
            orders=orders,
            record_kinds=("orders", "payments"),
            personal=PERSONAL_FIELDS,
            scrub=_scrubbed,
            forget=lambda problem: _forget_value(problem, orders),
        )
    )
    for path in out.files:  # after the state no longer points at them
        Path(path).unlink(missing_ok=True)
    store.set_meta(CLEARED_THROUGH, cutoff)
    store.set_meta(CLEARED_SEQ, str(ingests.latest_ingest()))


def _stored_copies(store: RetentionStore, pids: list[str], inbox: Path) -> list[str]:
    """The files under .dispute-evidence/ that hold `pids`' customer data: the copies of their
    documents and generated PDFs (blobs), their packets, and what was read from their
    documents (documents/<sha>.json). A copy another dispute still uses (the same content,
    so the same blob and reading) stays."""
    mine, used = store.stored_copies_of(pids)
    shas = sorted({sha for sha, _ in mine if sha})
    private = (inbox / PRIVATE).resolve()
    readings = inbox / PRIVATE / "documents"
    candidates = {Path(p) for _, p in mine if p and p not in used}
    candidates |= {readings / f"{sha}.json" for sha in shas if sha not in used}
    return sorted(str(p) for p in candidates if p.is_file() and _inside(p, private))


def _dropped_again(store: RetentionStore, ingests: IngestSeq, since: str) -> list[str]:
    """Disputes cleared before (closed before `since`) whose order's rows were read again
    since (an old export dropped again): their names came back, so they are cleared again."""
    seen = int(store.get_meta(CLEARED_SEQ) or 0)
    again: set[str] = set()
    for kind in ("orders", "payments", "shipments"):
        again |= ingests.keys_since(kind, seen, "order_number")
    if not since or not again:
        return []
    return store.closed_before_of_orders(since, sorted(again))


def _forget_value(problem: dict[str, Any], orders: set[str]) -> dict[str, Any] | None:
    """An open problem about a row of `orders`, keeping where it is (file, row, column) but no
    longer quoting the cell: a bad email or address is the customer's data too. None: not
    one of theirs, or it quotes nothing."""
    value = str(problem.get("value") or "")
    if problem.get("order") not in orders or not value:
        return None
    for key in ("where", "what"):
        problem[key] = str(problem.get(key) or "").replace(f" = {value!r}", "")
        problem[key] = problem[key].replace(value, "[cleared]")
    problem["value"] = ""
    return problem


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder)
    except OSError:
        return False


def scrub(value: Any) -> Any:
    """`value` without any personal field, at any depth (payloads nest them)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in PERSONAL_FIELDS}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def _scrubbed(payload: bytes) -> bytes:
    return orjson.dumps(scrub(orjson.loads(payload)), option=orjson.OPT_SORT_KEYS)


# -- report and archive folders ---------------------------------------------------------------
def _report_folders(reports: Path) -> Iterable[tuple[Path, datetime]]:
    """Each run's report folder and when its run started (the run id begins with it)."""
    if not reports.is_dir():
        return
    for folder in reports.iterdir():
        when = _parse(folder.name[:16], "%Y%m%dT%H%M%SZ")
        if when is not None and folder.is_dir() and not folder.is_symlink():
            yield folder, when


def _archive_folders(archive: Path) -> Iterable[tuple[Path, datetime]]:
    """archive/<YYYY-MM-DD>/ folders and their day."""
    if not archive.is_dir():
        return
    for folder in archive.iterdir():
        when = _parse(folder.name, "%Y-%m-%d")
        if when is not None and folder.is_dir() and not folder.is_symlink():
            yield folder, when


def _parse(name: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(name, fmt).replace(tzinfo=clock.now().tzinfo)
    except ValueError:
        return None


def _remove_old(
    folders: Iterable[tuple[Path, datetime]], before: datetime, dry_run: bool
) -> list[str]:
    old = sorted(str(f) for f, when in folders if when < before)
    if not dry_run:
        for folder in old:
            shutil.rmtree(folder, ignore_errors=True)
    return old


__all__ = ["PERSONAL_FIELDS", "RetentionOutcome", "RetentionPolicy", "apply_retention", "scrub"]
