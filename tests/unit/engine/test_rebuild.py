"""Issue 32: a night's build rebuilds only the disputes whose inputs changed (engine/prepare/rebuild.py),
and what it rebuilds is what a full rebuild gives."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from dispute_evidence.engine.prepare import build as steps
from dispute_evidence.engine.prepare.build import BUILD_SOURCE, ingest_inbox_step, prepare_step
from dispute_evidence.engine.prepare.rebuild import BUILT_HELD
from dispute_evidence.state.schema import disputes
from dispute_evidence.state.store import StateStore
from tests.support.engine_helpers import options, write_rows

DISPUTES = ["provider_dispute_id", "order_number", "reason", "response_due_by"]
ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code",
          "customer_email", "customer_name", "order_subtotal"]  # fmt: skip
SHIPS = ["order_number", "tracking_number", "carrier", "delivered_at"]
DUE = "2099-01-31"


def _order(n: int, lines: int = 2, subtotal: float | str = "") -> list[list[object]]:
    return [[n, f"Item {j}", 10 + j, 1, "USD", f"c{n}@example.com", f"Customer {n}", subtotal]
            for j in range(lines)]  # fmt: skip


# Each night's files (name -> (header, rows)); a name dropped again is a re-export of itself
NIGHTS: list[dict[str, tuple[list[str], list[list[object]]]]] = [
    {
        "disputes-a.csv": (
            DISPUTES,
            [[f"dp_{i}", f"#{100 + i}", "product_not_received", DUE] for i in range(10)],
        ),  # fmt: skip
        "orders-a.csv": (ORDERS, [r for i in range(8) for r in _order(100 + i)]),
        "shipments-a.csv": (SHIPS, [[100 + i, f"1Z{i:04d}", "UPS", ""] for i in range(8)]),
    },
    {  # dp_8's order arrives; an extra line for 103; 102 delivered; new disputes, one sharing
        # order 104 with dp_4, one whose order never comes (near miss of unclaimed 900)
        "orders-b.csv": (
            ORDERS,
            _order(108)
            + [[103, "Gift wrap", 2, 1, "USD", "", "", ""]]
            + _order(900)
            + _order(111, subtotal=99),
        ),  # fmt: skip
        "shipments-b.csv": (SHIPS, [[102, "1Z0002", "UPS", "2026-01-05"]]),
        "disputes-b.csv": (
            DISPUTES,
            [
                ["dp_10", "#104", "fraudulent", DUE],
                ["dp_11", "#909", "general", DUE],
                ["dp_12", "#111", "general", DUE],
            ],
        ),  # fmt: skip
    },
    {  # a re-export lists fewer lines of 101; dp_5 moves to order 107; dp_6 in a 2nd list
        "orders-a.csv": (
            ORDERS,
            [r for i in range(8) for r in _order(100 + i, 1 if i == 1 else 2)],
        ),
        "disputes-a.csv": (
            DISPUTES,
            [
                [f"dp_{i}", f"#{107 if i == 5 else 100 + i}", "product_not_received", DUE]
                for i in range(10)
            ],
        ),  # fmt: skip
        "disputes-c.csv": (DISPUTES, [["dp_6", "#101", "product_not_received", DUE]]),
    },
    {  # the second list corrected; dp_9's order at last; nothing else
        "disputes-c.csv": (DISPUTES, [["dp_6", "#106", "product_not_received", DUE]]),
        "orders-c.csv": (ORDERS, _order(109)),
    },
    {},  # a night with nothing new
]


def _drop(inbox: Path, night: dict[str, tuple[list[str], list[list[object]]]]) -> None:
    inbox.mkdir(parents=True, exist_ok=True)
    for name, (header, rows) in night.items():
        write_rows(inbox / name, header, rows)


def _night(store: StateStore, inbox: Path, run: str, *, full: bool) -> steps.PrepareOutcome:
    if full:  # what the build knew before is forgotten: it must rebuild everything
        store.runs.set_meta(BUILT_HELD, "forgotten")
    opts = options(inbox)
    return prepare_step(store, opts, ingest_inbox_step(store, opts, run), run, rebuild=True)


def _picture(store: StateStore) -> dict[str, object]:
    """What a build decides: each dispute's payload, order, deadline, status and why; the CE
    3.0 verdicts; the build's problems."""
    with store.engine.connect() as c:
        rows = c.execute(
            select(disputes.c.provider_dispute_id, disputes.c.payload, disputes.c.payload_hash,
                   disputes.c.order_number, disputes.c.response_due_by, disputes.c.status,
                   disputes.c.detail).order_by(disputes.c.provider_dispute_id)
        ).all()  # fmt: skip
    problems = sorted(
        json.dumps(p, sort_keys=True) for p in store.scoped.open_problems_of(BUILD_SOURCE)
    )
    return {
        "disputes": [
            tuple(bytes(v) if isinstance(v, bytes | memoryview) else v for v in r) for r in rows
        ],  # fmt: skip
        "ce3": store.kept.ce3_verdicts(),
        "problems": problems,
    }


def test_a_build_of_what_changed_equals_a_full_rebuild(tmp_path):
    both = {mode: StateStore(tmp_path / f"{mode}.sqlite3") for mode in ("changed", "full")}
    scopes = []
    for n, night in enumerate(NIGHTS):
        pictures = {}
        for mode, store in both.items():
            _drop(tmp_path / mode, night)
            out = _night(store, tmp_path / mode, f"r{n}", full=mode == "full")
            pictures[mode] = _picture(store)
            if mode == "changed":
                scopes.append(out.scope)
            else:
                assert out.scope is None
        assert pictures["changed"] == pictures["full"], f"night {n}"
    # the first build is whole; then only what changed: night 1 its 3 new disputes, dp_2, dp_3,
    # dp_8 (their orders' rows) and dp_4 (shares order 104 with dp_10); night 2 re-exports both
    # files of night 0 (all of its disputes, and dp_10 again through 104); night 3 dp_6, dp_1
    # (order 101, which dp_6's old list named) and dp_9; night 4 nothing
    assert scopes == [None, 7, 11, 3, 0], scopes
    problems = pictures["full"]["problems"]
    assert not any("dp_6" in p for p in problems)  # the corrected list ended the conflict
    assert any("lists 1 line(s) where its earlier version listed 2" in p for p in problems)
    for store in both.values():
        store.close()


def test_an_unchanged_dispute_is_not_rebuilt(tmp_path, monkeypatch):
    inbox = tmp_path / "inbox"
    store = StateStore(tmp_path / "state.sqlite3")
    _drop(inbox, NIGHTS[0])
    _night(store, inbox, "r0", full=False)
    read: list[set[str]] = []
    build = steps.build_evidence

    def spy(records, *args, **kwargs):
        read.append(set(records["disputes"]["provider_dispute_id"]))
        return build(records, *args, **kwargs)

    monkeypatch.setattr(steps, "build_evidence", spy)
    _drop(inbox, {"orders-b.csv": (ORDERS, _order(108))})  # dp_8's order, nothing else
    out = _night(store, inbox, "r1", full=False)
    assert read == [{"dp_8"}] and out.payloads == 1 and out.scope == 1
    store.close()


@pytest.mark.parametrize("check", ["rows read"])
def test_a_nights_build_reads_the_same_whatever_the_history(tmp_path, monkeypatch, check):
    """Ratio guard: a night with the same new work after N and after 4N disputes of history
    reads the same records (not 4 times as many)."""
    read: dict[int, int] = {}
    build = steps.build_evidence
    for n in (40, 160):
        inbox = tmp_path / f"inbox-{n}"
        store = StateStore(tmp_path / f"state-{n}.sqlite3")
        _drop(inbox, {
            "disputes-old.csv": (DISPUTES, [[f"dp_{i}", f"#{i}", "general", DUE] for i in range(n)]),
            "orders-old.csv": (ORDERS, [r for i in range(n) for r in _order(i)]),
        })  # fmt: skip
        _night(store, inbox, "r0", full=False)
        _drop(inbox, {
            "disputes-new.csv": (DISPUTES, [[f"dp_new_{i}", f"#{5000 + i}", "general", DUE]
                                            for i in range(5)]),
            "orders-new.csv": (ORDERS, [r for i in range(5) for r in _order(5000 + i)]),
        })  # fmt: skip
        sizes: list[int] = []

        def spy(records, *args, sizes=sizes, **kwargs):
            sizes.append(sum(len(f) for f in records.values()))
            return build(records, *args, **kwargs)

        monkeypatch.setattr(steps, "build_evidence", spy)
        _night(store, inbox, "r1", full=False)
        monkeypatch.setattr(steps, "build_evidence", build)
        read[n] = sizes[0]
        store.close()
        shutil.rmtree(inbox)
    assert read[160] <= 1.5 * read[40], read
