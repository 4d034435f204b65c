"""Store documents (issue 37 item 1): the store's own policy, dropped once into the inbox's
store/ folder, reaches every dispute whose reason needs it, exactly once each, in the version in
force at the order's date. The real CLI against the sandbox, over loopback."""

from __future__ import annotations

import hashlib
import io
import os

import pandas as pd
from pypdf import PdfReader

from dispute_evidence.inbox import file_sha256
from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import make_inbox, write_rows

ORDERS = ["order_number", "product_title", "price", "quantity", "currency_code", "customer_email",
          "customer_name", "order_date"]  # fmt: skip
POLICY_V1 = ["Acme Boards", "Returns, Refunds & Cancellation Policy", "Last updated: 1 October 2025",
             "Items may be returned within 30 days of delivery for a full refund."]  # fmt: skip
POLICY_V2 = ["Acme Boards", "Returns, Refunds & Cancellation Policy", "Last updated: 1 December 2025",
             "Items may be returned within 14 days of delivery, unused, for a full refund."]  # fmt: skip


def _inbox(tmp_path, disputes: list[tuple[str, str]], ordered: list[str]):
    """Disputes dp_test_i (reason, order #500i placed on `ordered[i]`)."""
    inbox = tmp_path / "inbox"
    make_inbox(inbox, len(disputes), files=(0, 0))
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[pid, f"#{5000 + i}", reason] for i, (pid, reason) in enumerate(disputes)])  # fmt: skip
    write_rows(inbox / "orders.csv", ORDERS, [
        [5000 + i, "Board", "30", 1, "USD", f"c{i}@example.com", f"C {i}", day]
        for i, day in enumerate(ordered)])  # fmt: skip
    (inbox / "store").mkdir()
    return inbox


def _uploaded(sb, pid: str) -> list[tuple[str, str]]:
    """(name, sha256) of each file the API holds for the dispute, our summaries left out."""
    files = sb.snapshot()[pid].get("files", [])
    return sorted((f["file_name"], f["sha256"]) for f in files if "evidence-" not in f["file_name"])


def _problems(tmp_path) -> pd.DataFrame:
    folder = tmp_path / "inbox.reports" / "latest"
    return pd.read_csv(folder / "problems.csv", dtype=str).fillna("")


def _letter(sb, pid: str) -> str:
    """Page 1 (the letter) of the dispute's latest evidence summary at the API."""
    names = [f["file_name"] for f in sb.snapshot()[pid]["files"] if "summary" in f["file_name"]]
    sql = "SELECT content FROM files WHERE file_name = ?"
    body = sb.call(lambda store: bytes(store._db.execute(sql, (names[-1],)).fetchone()[0]))
    return " ".join(PdfReader(io.BytesIO(body)).pages[0].extract_text().split())


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_store_policy_dropped_once_reaches_every_dispute_that_needs_it_once(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(4))
    use_sandbox(sb, monkeypatch)
    reasons = [("dp_test_0", "credit_not_processed"), ("dp_test_1", "product_unacceptable"),
               ("dp_test_2", "product_not_received")]  # fmt: skip
    inbox = _inbox(tmp_path, reasons, ["2025-11-01"] * 3)
    policy = text_pdf(inbox / "store" / "refund policy.pdf", [POLICY_V1])
    mine = ("refund policy.pdf", _sha(policy))
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_1") == [mine]
    assert _uploaded(sb, "dp_test_2") == []  # not received: no reason to argue a refund policy
    table = latest_disputes(tmp_path)
    said = "store policy: refund policy.pdf, version of 2025-10-01"
    assert table.loc["dp_test_0", "Store documents"] == said
    assert table.loc["dp_test_1", "Store documents"] == said
    assert table.loc["dp_test_2", "Store documents"] == ""
    assert table.loc["dp_test_0", "Evidence (by reason)"] != "missing: policy document"
    problems = _problems(tmp_path)
    assert not problems["problem"].str.contains("matches no dispute").any(), problems
    assert policy.is_file()  # left in place: every new dispute needs it again

    run_cli("--inbox", str(inbox))  # nothing new: nothing more goes
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_1") == [mine]

    # a new dispute later (a subscription cancelled, on a new list): it gets the policy too
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[pid, f"#{5000 + i}", r] for i, (pid, r) in
                enumerate([*reasons, ("dp_test_3", "subscription_canceled")])])  # fmt: skip
    write_rows(inbox / "orders 2.csv", ORDERS,
               [[5003, "Coffee", "12", 1, "USD", "c3@example.com", "C 3", "2025-11-20"]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_3") == [mine]
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_1") == [mine]
    assert _uploaded(sb, "dp_test_2") == []
    assert file_sha256(policy) == mine[1]


def test_a_newer_version_reaches_only_disputes_ordered_after_its_date(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    reasons = [("dp_test_0", "credit_not_processed"), ("dp_test_1", "credit_not_processed")]
    inbox = _inbox(tmp_path, reasons, ["2025-10-15", "2025-12-10"])
    policy = text_pdf(inbox / "store" / "refund policy.pdf", [POLICY_V1])
    earlier = policy.stat().st_mtime - 3600  # dropped an hour ago: the new drop is told apart
    os.utime(policy, (earlier, earlier))
    v1 = ("refund policy.pdf", _sha(policy))
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_1") == [v1]

    text_pdf(policy, [POLICY_V2])  # the same name, dropped again: a new version
    v2 = ("refund policy.pdf", _sha(policy))
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_0") == [v1]  # ordered before 1 December: the old terms hold
    assert sorted(_uploaded(sb, "dp_test_1")) == sorted([v1, v2])  # v1 went before v2 existed
    table = latest_disputes(tmp_path)
    assert table.loc["dp_test_0", "Store documents"] == (
        "store policy: refund policy.pdf, version of 2025-10-01"
    )
    assert (
        "store policy: refund policy.pdf, version of 2025-12-01"
        in (table.loc["dp_test_1", "Store documents"])
    )

    # the letter argues the version in force (the newer one's clause), never both
    letter = _letter(sb, "dp_test_1")
    assert "within 14 days of delivery, unused" in letter and "within 30 days" not in letter
    assert "within 30 days of delivery" in _letter(sb, "dp_test_0")

    run_cli("--inbox", str(inbox))  # the old version is known by its content: nothing more goes
    assert _uploaded(sb, "dp_test_0") == [v1]
    assert sorted(_uploaded(sb, "dp_test_1")) == sorted([v1, v2])
