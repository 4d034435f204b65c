"""'Did you mean' from an index: look-alike letters, labels around the number, linear cost."""

from __future__ import annotations

import difflib
from difflib import get_close_matches

from dispute_evidence import names
from dispute_evidence.documents.files import match_evidence_files
from dispute_evidence.evidence import build_evidence
from dispute_evidence.ingest import ingest_paths
from dispute_evidence.names import NearNames, likeness_key
from support.scaling import hint_heavy_records
from tests.support.export_layouts import ORDER_1001, SHOPIFY_79, write_csv

CHECK = ": check the order number in the disputes list)"


def test_order_number_typed_with_letters_or_a_label_gets_a_hint(tmp_path):
    orders = [{**ORDER_1001, "Name": f"#{n}"} for n in ("1001", "2002", "2003", "3004")]
    disputes = [{"provider_dispute_id": f"dp_{i}", "order_number": n}
                for i, n in enumerate(["1001", "2OO2", "INV2003", "No. 3OO4", "7777"])]  # fmt: skip
    files = [write_csv(tmp_path / "orders.csv", SHOPIFY_79, orders),
             write_csv(tmp_path / "disputes.csv", ["provider_dispute_id", "order_number"], disputes)]  # fmt: skip
    result = build_evidence(ingest_paths(files, tmp_path).records)
    assert [p.order_number for p in result.payloads] == ["1001"]
    assert {i.order_number: i.reason for i in result.incomplete} == {
        "2OO2": f"no order lines for order 2OO2 yet: drop the orders export (did you mean '2002'?{CHECK}",
        "INV2003": f"no order lines for order INV2003 yet: drop the orders export (did you mean '2003'?{CHECK}",
        "No. 3OO4": f"no order lines for order No. 3OO4 yet: drop the orders export (did you mean '3004'?{CHECK}",
        "7777": "no order lines for order 7777 yet: drop the orders export",
    }  # fmt: skip


def test_file_named_with_letters_or_a_label_gets_a_hint(tmp_path):
    names = [
        "2OO2 proof of delivery.pdf",
        "INV2003.pdf",
        "Order #S0O4 receipt.pdf",
        "scan_0007.pdf",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"%PDF-1.4 x")
    matches, issues = match_evidence_files([tmp_path / n for n in names], tmp_path,
                                           {"dp_a": "2002", "dp_b": "2003", "dp_c": "5004"})  # fmt: skip
    assert matches == {}
    hints = {i.label: i.reason.partition("in the name")[2] for i in issues}
    assert hints == {
        "2OO2 proof of delivery.pdf": " (did you mean '2002'?)",
        "INV2003.pdf": " (did you mean '2003'?)",
        "Order #S0O4 receipt.pdf": " (did you mean '5004'?)",
        "scan_0007.pdf": "",  # two digits off every known number: no guess
    }


def test_likeness_key_reads_labels_and_look_alike_letters():
    assert [likeness_key(w) for w in ["2OO2", "INV2003", "inv-2003", "#2003", "No. 2003",
                                      "Order #2003", "Invoice No 2003", "I00l", "B8S5", "dp_ABC9"]] == [
        "2002", "2003", "2003", "2003", "2003", "2003", "2003", "1001", "8855", "dp_a8c9"]  # fmt: skip
    # no digit: letters stay letters, and a word that only starts like a label keeps it
    assert [likeness_key(w) for w in ["Bolso", "noodle", "order"]] == ["bolso", "noodle", "order"]


def test_near_names_keeps_difflibs_choices():
    names = ["1001", "1002", "10010", "2OO2", "2002", "dp_abc123XYZQ", "dp_other999", "77"]
    near = NearNames(names)
    # one edit apart (as difflib's get_close_matches chose at 0.75, ties to the larger name)
    for word in ["1020", "100", "10011", "1003", "dp_abc123XYZ", "dp_abc123XYQ", "dp_other99",
                 "123", "78", "0007", "3003"]:  # fmt: skip
        assert near.closest(word) == next(iter(get_close_matches(word, names, 1, 0.75)), None)
    assert near.closest("1020") == "1002"  # neighbours swapped (ratio 0.75)
    assert near.closest("2oo2") == "2OO2"  # same key: the one closer as typed wins
    assert NearNames(["po_1234", "1234"]).closest("1243") == "1234"  # not the larger name
    assert near.closest("123") is None and near.closest("") is None and near.closest("#") is None
    assert NearNames(["1001"]).did_you_mean("10O1") == " (did you mean '1001'?)"
    assert NearNames([]).did_you_mean("1001") == ""


def test_the_hint_work_grows_linearly_with_disputes_needing_a_hint(tmp_path, monkeypatch):
    """N and 4N disputes, 90% without order lines: a scan of every order per dispute makes
    the comparisons grow 16-fold; an index keeps them near 4-fold (5 measured: the
    4N orders sit closer together, so a number has more neighbours one edit away). Comparisons are counted
    (difflib's set_seq1, one per name compared, and the index's one-edit ratios), never
    timed: the CPU-time ratio is `python -m bench ingest`'s figure."""
    built = build_evidence(hint_heavy_records(tmp_path / "check", 40))
    hinted = [i for i in built.incomplete if "did you mean" in i.reason]
    assert len(built.payloads) == 4 and len(built.incomplete) == 36 and len(hinted) == 20

    compared = [0]
    set_seq1, one_edit = difflib.SequenceMatcher.set_seq1, names._ratio_one_edit

    def counted_seq1(self, a):
        compared[0] += 1
        return set_seq1(self, a)

    def counted_ratio(a, b):
        compared[0] += 1
        return one_edit(a, b)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted_seq1)
    monkeypatch.setattr(names, "_ratio_one_edit", counted_ratio)
    counts = []
    for n in (250, 1_000):
        records = hint_heavy_records(tmp_path / f"n{n}", n)
        compared[0] = 0
        build_evidence(records)
        counts.append(compared[0])
    assert counts[0] > 0, "the hint path compared no name: the test measures nothing"
    assert counts[1] <= 8 * counts[0], f"comparisons at N and 4N: {counts} (a scan per dispute)"
