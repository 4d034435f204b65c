"""Right evidence, or none (issue 20): the real CLI against the sandbox. What goes out is the
whole order, carries every input that shapes it, says only what the data shows, and the report
tells one true state per dispute."""

from __future__ import annotations

import orjson
import pandas as pd
from typer.testing import CliRunner

from dispute_evidence.cli import app
from tests.conftest import TOKEN, seed_rows
from tests.engine.helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_subtotal"]  # fmt: skip


def _run(*args: str) -> str:
    r = CliRunner().invoke(app, ["run", *args])
    assert "Traceback" not in r.output, r.output
    return r.output


def _api(sb, monkeypatch) -> None:
    monkeypatch.setenv("DISPUTE_API_BASE_URL", sb.base_url)
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    monkeypatch.setenv("DISPUTE_EVIDENCE_INGEST__SETTLE_SECONDS", "0")
    monkeypatch.setenv("DISPUTE_EVIDENCE_READBACK__ENABLED", "false")


def _latest(tmp_path) -> pd.DataFrame:
    folder = tmp_path / "inbox.reports" / "latest"
    return pd.read_csv(folder / "disputes.csv", dtype=str).fillna("").set_index("Dispute")


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
