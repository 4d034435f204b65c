"""Visa identifies a merchant per statement descriptor (issue 46 item 5): one descriptor whose
month is over the threshold is alerted even when every descriptor together is not, once per
month, network, descriptor and level; the alerts kept before descriptors were read keep their
keys (every descriptor together)."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd

from dispute_evidence.engine.reporting.standing_alerts import crossings

NOW = datetime(2026, 11, 20, tzinfo=UTC)


def _row(descriptor: str, disputes: int, transactions: int, status: str) -> dict[str, object]:
    return {"month": "2026-11", "network": "visa", "descriptor": descriptor,
            "transactions": transactions, "disputes": disputes, "fraud_reports": 0,
            "ratio_percent": 100 * disputes / transactions, "threshold_percent": 1.5,
            "status": status}  # fmt: skip


def test_one_descriptor_over_is_alerted_while_all_together_is_not() -> None:
    table = pd.DataFrame(
        [
            _row("all", 12, 1_500, "ok"),
            _row("SHOP*ONE", 2, 1_000, "ok"),
            _row("SHOP*TWO", 10, 500, "over"),
        ]  # fmt: skip
    )
    (found,) = crossings(table, set(), NOW)
    assert (found.network, found.descriptor, found.level) == ("visa", "SHOP*TWO", "over")
    assert found.key == "standing:2026-11:visa:SHOP*TWO:over"
    assert found.line().startswith("Visa 2026-11: 2.00% (10 ")
    assert found.line().endswith("(statement descriptor SHOP*TWO)")
    assert crossings(table, {found.key}, NOW) == []  # once per descriptor and level


def test_every_descriptor_together_keeps_the_key_it_had() -> None:
    table = pd.DataFrame([_row("all", 30, 1_500, "over"), _row("SHOP*TWO", 20, 500, "over")])
    keys = [c.key for c in crossings(table, set(), NOW)]
    assert keys == ["standing:2026-11:visa:over", "standing:2026-11:visa:SHOP*TWO:over"]
    assert [c.key for c in crossings(table, {"standing:2026-11:visa:over"}, NOW)] == [keys[1]]
