"""Every bad input of the adversarial pass, dropped beside a good drop in one inbox, in one run
of the real CLI against the sandbox: the good disputes are exact, every bad item has a reason
naming it, and nothing ends up outside the inbox's own tree."""

from __future__ import annotations

import hashlib

import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from dispute_evidence.names import visible
from tests.conftest import TOKEN, seed_rows
from tests.support.engine_helpers import make_inbox, write_rows

GOOD = 6
PDF = b"%PDF-1.4\nextra evidence\n"


def _drop_corpus(inbox, outside) -> dict[str, str]:
    """Bad items beside the good drop; returns {name as the report shows it: what it is}."""
    header = ["order_number", "product_title", "price", "quantity", "currency_code"]
    # orders no dispute names (a bad row of a disputed order holds its dispute: tested apart)
    write_rows(inbox / "orders_bad.csv", header, [[9000, "Ghost", 1, "inf", "USD"],
               [9001, "Ghost", "1e309", 1, "USD"], [9002, "Ghost", "nan", 1, "USD"]])  # fmt: skip
    (inbox / "dp_test_1\x07 receipt.pdf").write_bytes(PDF)  # matches: sent under a clean name
    (inbox / "rtl\u202egnp.pdf").write_bytes(PDF)
    (inbox / "new\nline.pdf").write_bytes(PDF)
    (inbox / "dp_test_2_fake.pdf").write_bytes(b"MZ not a pdf at all")
    (inbox / "notes\x01.csv").write_text("what,ever\n1,2\n")
    (inbox / "garbage.csv").write_bytes(b"\x00\xff\xfe garbage")
    (outside / "stolen.pdf").write_bytes(PDF)
    (inbox / "link.pdf").symlink_to(outside / "stolen.pdf")
    (inbox / "archive").symlink_to(outside, target_is_directory=True)
    (inbox / "rejected").write_text("a file where a folder should be")
    return {
        "orders_bad.csv": "non-finite cells",
        visible("rtl\u202egnp.pdf"): "bidi mark in a name",
        "new\nline.pdf": "newline in a name",
        "dp_test_2_fake.pdf": "not really a PDF",
        visible("notes\x01.csv"): "control character, no table",
        "garbage.csv": "binary garbage",
        "link.pdf": "a link out of the inbox",
    }


def test_bad_inputs_beside_a_good_drop(prefect_harness, sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(GOOD))
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__SUMMARY_PDF", "false")  # exact file sets below
    inbox, outside = tmp_path / "inbox", tmp_path / "outside"
    outside.mkdir()
    make_inbox(inbox, GOOD)
    expected = {
        f"dp_test_{i}": {hashlib.sha256((inbox / "proofs" / f"dp_test_{i}_proof0.pdf").read_bytes()).hexdigest()}
        for i in range(GOOD)
    }  # fmt: skip
    expected["dp_test_1"].add(hashlib.sha256(PDF).hexdigest())
    bad = _drop_corpus(inbox, outside)

    r = CliRunner().invoke(app, ["run", "--inbox", str(inbox)])

    assert r.exit_code in (0, 1, 5), r.output
    assert "Traceback" not in r.output
    # the good disputes are exact: evidence once, each file once, the renamed one cleanly named
    snap = sb.snapshot()
    for pid, hashes in expected.items():
        assert snap[pid]["evidence_updates"] == 1
        products = snap[pid]["evidence"]["products"]
        assert [p["product_title"] for p in products] == ["Item 0", "Item 1"]  # no "Ghost"
        got = [f["sha256"] for f in snap[pid]["files"]]
        assert sorted(got) == sorted(hashes)
    names = {f["file_name"] for f in snap["dp_test_1"]["files"]}
    assert "dp_test_1 receipt.pdf" in names
    # every bad item has a reason naming it
    report = next((tmp_path / "inbox.reports").iterdir())
    problems = pd.read_csv(report / "problems.csv", dtype=str).fillna("")
    for name, what in bad.items():
        assert problems["file"].str.contains(name, regex=False).any(), (
            f"{what}: {name} not reported"
        )
    summary = (report / "summary.md").read_text()
    assert "cannot be used: archive/: 'archive' in the inbox is a link" in summary
    assert "cannot be used: rejected/: 'rejected' in the inbox is a file" in summary
    # nothing left the inbox's own tree
    assert sorted(p.name for p in outside.iterdir()) == ["stolen.pdf"]
    beside = {p.name for p in tmp_path.iterdir()} - {"inbox", "outside", "inbox.reports"}
    assert all(n.startswith("inbox.state.sqlite3") for n in beside), beside
    assert (inbox / "garbage.csv").exists() and (inbox / "orders_bad.csv").exists()


def test_state_problems_are_one_line_with_exit_1(tmp_path, monkeypatch):
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    first, second = tmp_path / "first", tmp_path / "second"
    make_inbox(first, 1)
    make_inbox(second, 1)
    damaged = tmp_path / "first.state.sqlite3"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x07" * 200)
    r = CliRunner().invoke(app, ["run", "--inbox", str(first), "--dry-run"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert str(damaged) in r.output and "damaged" in r.output and "--reconcile" in r.output
    damaged.unlink()
    from dispute_evidence.state.store import StateStore

    with StateStore(damaged) as store:
        store.runs.bind_inbox(first.resolve())
    r = CliRunner().invoke(
        app, ["run", "--inbox", str(second), "--state", str(damaged), "--dry-run"]
    )
    assert r.exit_code == 1 and "belongs to the inbox" in r.output and "--adopt" in r.output
    assert (second / "disputes.csv").exists()
    r = CliRunner().invoke(app, ["status", "--inbox", str(tmp_path / "typo")])
    assert r.exit_code == 2 and "no state file" in r.output
    assert not (tmp_path / "typo.state.sqlite3").exists()
