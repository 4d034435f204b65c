"""Right evidence, or none (issue 20): the real CLI against the sandbox. What goes out is the
whole order, carries every input that shapes it, says only what the data shows, and the report
tells one true state per dispute."""

from __future__ import annotations

import orjson
import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes as _latest
from tests.support.cli_helpers import run_cli as _run
from tests.support.cli_helpers import use_sandbox as _api
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_subtotal"]  # fmt: skip


def _sent_products(sb, pid: str) -> list[str]:
    evidence = sb.snapshot()[pid].get("evidence") or {}
    return [p["product_title"] for p in evidence.get("products", [])]


def test_a_partial_order_is_held_naming_the_row_then_sent_whole(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2)
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "42"],
        [5000, "Belt", "twelve", 1, "USD", "c0@example.com", "C 0", "42"],
        [5001, "Hat", "20", 1, "USD", "c1@example.com", "C 1", "20"],
    ])  # fmt: skip
    out = _run("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0  # nothing partial went out
    assert sb.snapshot()["dp_test_1"]["evidence_updates"] == 1
    row = _latest(tmp_path).loc["dp_test_0"]
    assert "orders.csv row 3, column 'price' = 'twelve'" in row["Next step"], row.to_dict()
    assert row["Status"] != "sent" and "held" in out
    assert "Disputes held: their evidence would go out wrong (1)" in out

    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "42"],
        [5000, "Belt", "12", 1, "USD", "c0@example.com", "C 0", "42"],
        [5001, "Hat", "20", 1, "USD", "c1@example.com", "C 1", "20"],
    ])  # fmt: skip
    _run("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    assert _sent_products(sb, "dp_test_0") == ["Shirt", "Belt"]  # whole


def test_lines_that_do_not_add_up_to_the_subtotal_are_held(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(1))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "42"],
    ])  # fmt: skip
    _run("--inbox", str(inbox))
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0
    step = _latest(tmp_path).loc["dp_test_0", "Next step"]
    assert "add up to 30.00 USD but its subtotal is 42.00 USD (orders.csv)" in step

    # the documented override sends it as it is
    monkeypatch.setenv("DISPUTE_EVIDENCE_EVIDENCE__SEND_PARTIAL_ORDERS", "true")
    _run("--inbox", str(inbox))
    assert _sent_products(sb, "dp_test_0") == ["Shirt"]


def test_a_profile_added_after_the_first_send_is_sent_once(sandbox_factory, tmp_path, monkeypatch):
    sb = sandbox_factory(rows=seed_rows(3))
    _api(sb, monkeypatch)
    for key in ("MERCHANT_ID", "MERCHANT_NAME", "MERCHANT_WEBSITE"):
        monkeypatch.delenv(f"DISPUTE_EVIDENCE_MERCHANT__{key}")
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    _run("--inbox", str(inbox))
    assert all(sb.snapshot()[f"dp_test_{i}"]["evidence_updates"] == 1 for i in range(3))
    assert "merchant_profile" not in sb.snapshot()["dp_test_0"]["evidence"]

    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_ID", "m_1")
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_NAME", "Acme")
    monkeypatch.setenv("DISPUTE_EVIDENCE_MERCHANT__MERCHANT_WEBSITE", "https://acme.test")
    dry = _run("--inbox", str(inbox), "--dry-run")
    assert "would send 3" in dry
    out = _run("--inbox", str(inbox))
    assert "3 sent" in out
    _run("--inbox", str(inbox))  # and once only
    for i in range(3):
        d = sb.snapshot()[f"dp_test_{i}"]
        assert d["evidence_updates"] == 2
        assert d["evidence"]["merchant_profile"]["merchant_name"] == "Acme"


def test_a_file_dropped_again_after_the_locale_is_set_is_read_again(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(1))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier", "shipped_at"],
               [[5000, "1Z000000", "UPS", "03/04/2026"]])  # fmt: skip
    body = (inbox / "shipments.csv").read_bytes()
    _run("--inbox", str(inbox))
    assert "shipments" not in orjson.dumps(sb.snapshot()["dp_test_0"]["evidence"]).decode()
    (inbox / "shipments.csv").write_bytes(body)  # the same file, now with a locale set
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__LOCALE", "en_GB")
    _run("--inbox", str(inbox))
    extra = sb.snapshot()["dp_test_0"]["evidence"]["additional_evidence"]
    assert extra["shipments"][0]["shipped_at"].startswith("2026-04-03")


def _report(folder) -> tuple[pd.DataFrame, pd.Series, list[str]]:
    disputes = pd.read_csv(folder / "disputes.csv", dtype=str).fillna("").set_index("Dispute")
    problems = pd.read_csv(folder / "problems.csv", dtype=str).fillna("")
    counts = (folder / "summary.txt").read_text().split("Changed since")[0].splitlines()[3:]
    return disputes, problems["problem_kind"].value_counts().sort_index(), counts


def test_the_dry_run_is_the_real_run_in_the_conditional(sandbox_factory, tmp_path, monkeypatch):
    from datetime import UTC, datetime, timedelta

    rows = seed_rows(4)
    past = (datetime.now(UTC) - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows[3]["response_due_by"] = past
    sb = sandbox_factory(rows=rows)
    _api(sb, monkeypatch)
    monkeypatch.delenv("DISPUTE_EVIDENCE_READBACK__ENABLED")  # the real run reads back
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 4)
    due = {r["provider_dispute_id"]: r["response_due_by"] for r in rows}
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [[f"dp_test_{i}", f"#{5000 + i}", "general", due[f"dp_test_{i}"]] for i in range(4)])  # fmt: skip
    write_rows(inbox / "orders_more.csv", ORDERS[:5], [[5001, "Gift wrap", "x", 1, "USD"]])
    dry_out = _run("--inbox", str(inbox), "--dry-run")
    (dry,) = (tmp_path / "inbox.reports").iterdir()
    assert dry.name.endswith("-dry-run") and "would send 2" in dry_out
    real_out = _run("--inbox", str(inbox))
    latest = tmp_path / "inbox.reports" / "latest"
    assert (latest / "run.txt").read_text().strip() != dry.name  # a preview never becomes latest

    d_disputes, d_groups, d_counts = _report(dry)
    r_disputes, r_groups, r_counts = _report(latest)
    assert sorted(d_disputes.index) == sorted(r_disputes.index)
    for pid in r_disputes.index:  # the same state, in the conditional
        said = d_disputes.loc[pid, "Status"].replace("would be sent", "sent")
        assert said == r_disputes.loc[pid, "Status"], pid
        assert (
            d_disputes.loc[pid, "Evidence (by reason)"]
            == r_disputes.loc[pid, "Evidence (by reason)"]
        )
    assert r_disputes.loc["dp_test_3", "Status"] == "past its deadline, not sent"
    assert "Disputes past due" in d_groups.index
    assert d_groups.to_dict() == r_groups.to_dict()
    assert [line.replace("that would be sent", "sent (evidence)").replace(
        "Files that would be uploaded", "Files uploaded").split()[:-1] for line in d_counts[:2]] == [
        line.split()[:-1] for line in r_counts[:2]]  # fmt: skip
    number = {
        line.rsplit("  ", 1)[0].strip(): line.rsplit("  ", 1)[1].strip()
        for line in d_counts
        if line.strip()
    }
    real = {
        line.rsplit("  ", 1)[0].strip(): line.rsplit("  ", 1)[1].strip()
        for line in r_counts
        if line.strip()
    }
    assert number["Disputes that would be sent"] == real["Disputes sent (evidence)"] == "2"
    assert number["Files that would be uploaded"] == real["Files uploaded"]
    for same in ("Evidence complete", "Problems that need you"):
        assert number[same] == real[same], same
    dry_head, real_head = (
        [x for x in out.splitlines() if not x.startswith("Config: ")][0]
        for out in (dry_out, real_out)
    )
    assert dry_head.split("·")[-1] == real_head.split("·")[-1]  # "2 need you" both


def test_a_deadline_given_as_a_date_alone_ends_that_day(sandbox_factory, tmp_path, monkeypatch):
    from datetime import UTC, datetime, timedelta

    rows = seed_rows(1)  # the API's deadline is used from the first send: it agrees here, so a
    # sheet read as the day's start (not its end) would be said to have moved
    rows[0]["response_due_by"] = (datetime.now(UTC) + timedelta(days=5)).strftime(
        "%Y-%m-%dT23:59:59Z"
    )
    sb = sandbox_factory(rows=rows)
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1)
    day = (datetime.now(UTC) + timedelta(days=5)).strftime("%d/%m/%Y")  # 5 days from now
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason", "response_due_by"],
               [["dp_test_0", "#5000", "general", day]])  # fmt: skip
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__LOCALE", "en_GB")
    out = _run("--inbox", str(inbox))
    assert "Deadlines the API moved" not in out, out
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Days left"] == "5" and row["Deadline (UTC)"].startswith(
        (datetime.now(UTC) + timedelta(days=5)).strftime("%Y-%m-%d") + " 23:59"
    )


def _pdf_text(sb, pid: str) -> str:
    import io

    from pypdf import PdfReader

    (name,) = [
        f["file_name"] for f in sb.snapshot()[pid]["files"] if "evidence-summary" in f["file_name"]
    ][-1:]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (name,)).fetchone()[0]))
    return " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages).split())


def in_transit_inbox(tmp_path):
    """One not-received dispute whose parcel the carrier shows in transit (weak, still sent)."""
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 1, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "product_not_received"]])  # fmt: skip
    write_rows(inbox / "orders.csv", [*ORDERS[:7], "shipping_address"],
               [[5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "1 Elm St, Boston"]])  # fmt: skip
    write_rows(inbox / "shipments.csv", ["order_number", "tracking_number", "carrier", "shipped_at",
               "delivery_status"], [[5000, "1Z000000", "UPS", "2026-11-01", "In transit"]])  # fmt: skip
    return inbox


def test_not_received_in_transit_is_held_as_accept_then_proof_of_delivery_sends_it(
    sandbox_factory, tmp_path, monkeypatch
):
    """The carrier shows the parcel in transit and nothing proves it arrived: the merchant's
    own data concedes a not-received claim (shared spec, rebuttal-by-reason), so it is held as
    advice: accept, never argued from the shipment alone; a proof of delivery sends it."""
    sb = sandbox_factory(rows=seed_rows(1))
    _api(sb, monkeypatch)
    inbox = in_transit_inbox(tmp_path)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__LOCALE", "en_GB")
    out = _run("--inbox", str(inbox))
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Evidence (by reason)"] == "weak: carrier shows in transit"
    assert row["Status"].startswith(
        "advice: accept (carrier shows in transit), not sent, weak: carrier shows in transit"
    ), row["Status"]
    assert row["Next step"].startswith("accept the dispute (your records concede it), or approve")
    assert "Evidence that undercuts the dispute's own reason" in out
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 0  # nothing argued, nothing sent
    status = CliRunner().invoke(app, ["status", "--inbox", str(inbox)]).output
    assert "dp_test_0" in status.split("Open disputes that still need something: 1")[1]

    # doing what "what to add" says: a proof of delivery changes the verdict, and it goes
    (inbox / "5000 proof of delivery.pdf").write_bytes(b"%PDF-1.4\nsigned for at the door\n")
    _run("--inbox", str(inbox))
    row = _latest(tmp_path).loc["dp_test_0"]
    assert row["Evidence (by reason)"] == "complete", row.to_dict()
    assert row["Status"].startswith("sent, complete")
    assert sb.snapshot()["dp_test_0"]["evidence_updates"] == 1
    assert "Open disputes that still need something: 0" in CliRunner().invoke(
        app, ["status", "--inbox", str(inbox)]).output  # fmt: skip


def test_a_refund_against_credit_not_processed_and_a_cancelled_order_are_findings(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    _api(sb, monkeypatch)
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 2, files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [["dp_test_0", "#5000", "credit_not_processed"], ["dp_test_1", "#5001", "general"]])  # fmt: skip
    write_rows(inbox / "orders.csv", [*ORDERS[:7], "refunded_amount", "order_total", "cancelled_at"], [
        [5000, "Shirt", "30", 1, "USD", "c0@example.com", "C 0", "30", "30", ""],
        [5001, "Hat", "20", 1, "USD", "c1@example.com", "C 1", "0", "20", "2026-11-02 10:00"],
    ])  # fmt: skip
    _run("--inbox", str(inbox))
    table = _latest(tmp_path)
    assert (
        table.loc["dp_test_0", "Evidence (by reason)"]
        == "weak: a refund of 30.00 USD is recorded: the order was credited"
    )
    assert "accept the dispute" in table.loc["dp_test_0", "Next step"]
    assert (
        table.loc["dp_test_1", "Evidence (by reason)"]
        == "weak: the order was cancelled on 2026-11-02"
    )
