"""What wins, with its uncertainty: per reason, the win rate with and without each point and
exhibit a letter used, with a 95% Wilson interval, and "too few outcomes" under ten; on a
generated history whose answers are known, then on disputes sent and decided at the local API
(their letters' points kept in the state, the sheet opened with openpyxl)."""

from __future__ import annotations

import openpyxl
import pytest

from dispute_evidence.engine.prepare.case import case_reader
from dispute_evidence.engine.reporting.outcomes import kinds_now, outcomes_table
from dispute_evidence.engine.reporting.report import dispute_table
from dispute_evidence.engine.reporting.wins import what_wins
from dispute_evidence.policies import ReadPolicy
from dispute_evidence.reports.wins_files import write_wins
from dispute_evidence.standing.win_rates import COLUMNS, rate_words, wilson, wins_table
from dispute_evidence.state.store import StateStore
from tests.conftest import seed_rows
from tests.support.engine_helpers import engine_pass, make_inbox, write_rows

POD = frozenset({"signed_pod", "exhibit:proof_of_delivery"})


def test_the_wilson_interval_of_known_counts():
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert rate_words(10, 2) == "83% (55%-95%)"
    assert rate_words(5, 4) == "too few outcomes (9)"


def test_each_point_with_and_without_it_per_reason():
    # fraud: 12 letters quoted a signed POD (10 won), 10 did not (3 won); 4 not-received
    decided = [("fraudulent", POD, True)] * 10 + [("fraudulent", POD, False)] * 2
    decided += [("fraudulent", frozenset({"card_checks"}), True)] * 3
    decided += [("fraudulent", frozenset({"card_checks"}), False)] * 7
    decided += [("product_not_received", frozenset({"tracking"}), True)] * 4
    table = wins_table(decided).set_index(["reason", "point or exhibit"])
    assert list(table.reset_index().columns) == COLUMNS
    pod = table.loc[("fraudulent", "signed proof of delivery quoted")]
    assert (pod["with: won"], pod["with: lost"], pod["without: won"], pod["without: lost"]) == (
        10, 2, 3, 7)  # fmt: skip
    assert pod["with: win rate (95% interval)"] == "83% (55%-95%)"
    assert pod["without: win rate (95% interval)"] == rate_words(3, 7) == "30% (11%-60%)"
    exhibit = table.loc[("fraudulent", "exhibit: proof of delivery")]
    assert exhibit["with: won"] == 10
    tracking = table.loc[("product_not_received", "shipment and tracking number")]
    assert tracking["with: win rate (95% interval)"] == "too few outcomes (4)"
    everyone = table.loc[("all reasons", "shipment and tracking number")]
    assert (everyone["without: won"], everyone["without: lost"]) == (13, 9)
    assert wins_table([]).empty


def test_decided_disputes_give_what_wins_from_their_letters(sandbox_factory, tmp_path):
    """24 general disputes: the 12 with a shipment (tracking) won 10, the 12 without won 3."""
    n = 24
    sb = sandbox_factory(rows=seed_rows(n))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, n, files=(0, 0))
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier"],
               [[5000 + i, f"1Z{i:06d}", "UPS"] for i in range(0, n, 2)])  # fmt: skip
    won = {i for i in range(0, n, 2)} - {0, 2} | {1, 3, 5}
    with StateStore(tmp_path / "state.sqlite3") as store:
        engine_pass(store, sb.base_url, inbox)  # sent
        for i in range(n):
            sb.move(f"dp_test_{i}", status="won" if i in won else "lost")
        engine_pass(store, sb.base_url, inbox, policy=ReadPolicy())  # read back: decided
        table = dispute_table(store)
        payloads = store.disputes.payloads()
        build = case_reader(store, inbox)
        wins = what_wins(store, table, payloads, lambda p: build(p, payloads[p]))
        kept = store.kept.letter_points()
        assert len(kept) == n and "tracking" in kept["dp_test_0"].kinds.split()
        assert "tracking" not in kept["dp_test_1"].kinds.split()
        write_wins(outcomes_table(table, kinds_now(store, payloads, payloads)), wins, tmp_path)
    row = wins.set_index(["reason", "point or exhibit"]).loc[
        ("general", "shipment and tracking number")
    ]
    assert (row["with: won"], row["with: lost"], row["without: won"], row["without: lost"]) == (
        10, 2, 3, 9)  # fmt: skip
    assert row["with: win rate (95% interval)"] == "83% (55%-95%)"
    book = openpyxl.load_workbook(tmp_path / "outcomes.xlsx")
    assert book.sheetnames == ["Outcomes", "What wins", "How to read it"]
    sheet = book["What wins"]
    assert [c.value for c in sheet[1]] == COLUMNS
    rows = [[c.value for c in r] for r in sheet.iter_rows(min_row=2)]
    assert ["general", "shipment and tracking number", 10, 2, "83% (55%-95%)", 3, 9,
            rate_words(3, 9)] in rows  # fmt: skip
