"""The narrow parts of the store a stage uses (Dagster's IO managers, the Singer SDK's sinks):
a stage typed with one of these can be given anything that has those methods, and a reader
sees at once what of the state it touches. `StateStore` has them all."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from dispute_evidence.state.retention import Clearing, ClosedRow


class AlertLedger(Protocol):
    """The alerts sent so far, and recording more (engine/reporting/alerts.py, standing_alerts.py)."""

    def alerted_on(self, day: str) -> set[str]: ...

    def alerted_subjects(self, prefix: str) -> set[str]: ...

    def record_alerts(self, sent: Iterable[tuple[str, str]], day: str, run_id: str) -> None: ...


class RetentionStore(Protocol):
    """What clearing customer data reads and rewrites (engine/prepare/retention.py)."""

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def keys_since(self, kind: str, seq: int, key: str) -> set[str]: ...

    def latest_ingest(self) -> int: ...

    def closed_for_clearing(
        self, cutoff: str, since: str, again: Collection[str]
    ) -> tuple[list[ClosedRow], set[str]]: ...

    def closed_before_of_orders(self, before: str, orders: Collection[str]) -> list[str]: ...

    def stored_copies_of(self, pids: list[str]) -> tuple[set[tuple[str, str]], set[str]]: ...

    def clear_customer_data(self, clearing: Clearing) -> None: ...
