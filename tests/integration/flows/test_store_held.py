"""What store/ holds back and how it picks a version (issue 45, items 7, 10 and 11): one order's
or one customer's document dropped in store/ is held with a line and goes to no dispute; a
policy dated after today says why it goes nowhere yet; of two versions saying one date, the
one that replaced the other is argued (never the hash's pick); a replacement of the same size
and time is a new version. The real CLI against the sandbox, over loopback."""

from __future__ import annotations

import hashlib
import os

from support.docfixtures import text_pdf
from tests.conftest import seed_rows
from tests.integration.flows.test_store_documents import (
    POLICY_V1,
    _inbox,
    _letter,
    _problems,
    _sha,
    _uploaded,
)
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows

POD = ["Blue Dart Express", "Proof of Delivery", "AWB 77312345690", "Order #5001",
       "Delivered on 2025-11-05", "Signed by: Rohith T"]  # fmt: skip
EMAIL = ["From: Dana Customer <dana@example.com>", "Subject: my order",
         "Hi, I want my money back, my parcel never came. Order 5001."]  # fmt: skip
INVOICE_AS_TERMS = ["Acme Boards", "Terms of service", "Order #5002 - Board - 30.00 USD",
                    "Items may be returned within 30 days of delivery for a full refund."]  # fmt: skip


def _problem(tmp_path, name: str) -> str:
    problems = _problems(tmp_path)
    said = problems.loc[problems["file"].str.endswith(name), "problem"]
    return " ".join(said)


def test_an_orders_or_a_customers_document_in_store_is_held_and_spread_to_no_dispute(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(4))
    use_sandbox(sb, monkeypatch)
    reasons = [("dp_test_0", "product_not_received"), ("dp_test_1", "product_not_received"),
               ("dp_test_2", "credit_not_processed"), ("dp_test_3", "fraudulent")]  # fmt: skip
    inbox = _inbox(tmp_path, reasons, ["2025-11-01"] * 4)
    text_pdf(inbox / "store" / "delivery proof.pdf", [POD])
    text_pdf(inbox / "store" / "customer email.pdf", [EMAIL])
    text_pdf(inbox / "store" / "terms of service.pdf", [INVOICE_AS_TERMS])
    text_pdf(inbox / "store" / "5003 refund policy.pdf", [POLICY_V1])
    policy = text_pdf(inbox / "store" / "refund policy.pdf", [POLICY_V1[:2] + POLICY_V1[3:]])
    run_cli("--inbox", str(inbox))

    mine = [("refund policy.pdf", _sha(policy))]
    assert _uploaded(sb, "dp_test_0") == _uploaded(sb, "dp_test_1") == []
    assert _uploaded(sb, "dp_test_2") == mine  # the store's own policy still goes
    assert _uploaded(sb, "dp_test_3") == []
    assert "Rohith" not in _letter(sb, "dp_test_0")
    assert "money back" not in _letter(sb, "dp_test_3")
    assert _problem(tmp_path, "delivery proof.pdf").startswith(
        "held, sent to no dispute: it reads as an order's proof of delivery"
    )
    assert "named for its order or dispute (e.g. '1041 proof of delivery.pdf')" in _problem(
        tmp_path, "delivery proof.pdf"
    )
    assert "a customer's message" in _problem(tmp_path, "customer email.pdf")
    assert "it names order 5002" in _problem(tmp_path, "terms of service.pdf")
    assert "it names 5003 (its name)" in _problem(tmp_path, "5003 refund policy.pdf")
    table = latest_disputes(tmp_path)
    assert table.loc["dp_test_0", "Store documents"] == ""
    assert (inbox / "store" / "delivery proof.pdf").is_file()  # left where it is, never deleted


def _pair(first: list[str], second: list[str]) -> tuple[list[str], list[str]]:
    """Two versions whose hashes sort the first after the second (a hash's pick would argue
    the replaced one): a line of the first is varied until it does."""
    for k in range(200):
        a = [*first[:1], f"{first[0]} ({k})", *first[1:]]
        b = [*second[:1], f"{second[0]} ({k})", *second[1:]]
        if hashlib.sha256(_bytes(a)).hexdigest() > hashlib.sha256(_bytes(b)).hexdigest():
            return a, b
    raise AssertionError("no pair found")


def _bytes(lines: list[str]) -> bytes:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        return text_pdf(Path(d) / "x.pdf", [lines]).read_bytes()


REFUNDS = [("dp_test_0", "credit_not_processed"), ("dp_test_1", "credit_not_processed")]


def _two_refund_disputes(sandbox_factory, tmp_path, monkeypatch, second: str):
    """The sandbox as the API, an inbox listing dp_test_0 (ordered 2025-11-01) only, and the
    order of dp_test_1 (placed on `second`), whose dispute comes on a later list."""
    sb = sandbox_factory(rows=seed_rows(2))
    use_sandbox(sb, monkeypatch)
    return sb, _inbox(tmp_path, REFUNDS[:1], ["2025-11-01", second])


def _new_dispute(inbox, reasons) -> None:
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason"],
               [[pid, f"#{5000 + i}", r] for i, (pid, r) in enumerate(reasons)])  # fmt: skip


REPLACED = ["Acme Boards", "Returns, Refunds & Cancellation Policy", "Last updated: 1 October 2025",
            "Items may be returned within 30 days of delivery for a full refund."]  # fmt: skip
CORRECTED = ["Acme Boards", "Returns, Refunds & Cancellation Policy", "Last updated: 1 October 2025",
             "Items may be returned within 14 days of delivery for a full refund."]  # fmt: skip


def test_of_two_versions_with_one_date_the_one_that_replaced_the_other_is_argued(
    sandbox_factory, tmp_path, monkeypatch
):
    sb, inbox = _two_refund_disputes(sandbox_factory, tmp_path, monkeypatch, "2025-11-02")
    old, new = _pair(REPLACED, CORRECTED)
    policy = text_pdf(inbox / "store" / "refund policy.pdf", [old])
    earlier = policy.stat().st_mtime - 3600
    os.utime(policy, (earlier, earlier))
    run_cli("--inbox", str(inbox))
    text_pdf(policy, [new])  # corrected the same day, its date left as it was
    v2 = ("refund policy.pdf", _sha(policy))
    _new_dispute(inbox, REFUNDS)
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_1") == [v2]  # the new dispute argues the correction only
    letter = _letter(sb, "dp_test_1")
    assert "within 14 days" in letter and "within 30 days" not in letter


def test_a_policy_replaced_by_one_of_the_same_size_and_time_is_a_new_version(
    sandbox_factory, tmp_path, monkeypatch
):
    sb, inbox = _two_refund_disputes(sandbox_factory, tmp_path, monkeypatch, "2025-12-10")
    old = [*REPLACED[:2], "Last updated: 1 October 2025", REPLACED[3]]
    new = [*REPLACED[:2], "Last updated: 9 October 2025", CORRECTED[3]]
    before, after = _bytes(old), _bytes(new)
    size = max(len(before), len(after))  # padded to one size after %%EOF (readers ignore it)
    policy = inbox / "store" / "refund policy.pdf"
    policy.write_bytes(before.ljust(size, b"\n"))
    stat = policy.stat()
    run_cli("--inbox", str(inbox))
    policy.write_bytes(after.ljust(size, b"\n"))
    assert policy.stat().st_size == stat.st_size  # the same size …
    os.utime(policy, (stat.st_atime, stat.st_mtime))  # … and the same time
    v2 = ("refund policy.pdf", _sha(policy))
    _new_dispute(inbox, REFUNDS)
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_1") == [v2]
    assert "version of 2025-10-09" in latest_disputes(tmp_path).loc["dp_test_1", "Store documents"]


def test_a_policy_dated_after_today_says_why_it_goes_to_no_dispute(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=seed_rows(1))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, [("dp_test_0", "credit_not_processed")], ["2025-11-01"])
    text_pdf(inbox / "store" / "refund policy.pdf",
             [[*REPLACED[:2], "Last updated: 1 October 2099", REPLACED[3]]])  # fmt: skip
    run_cli("--inbox", str(inbox))
    assert _uploaded(sb, "dp_test_0") == []
    said = _problem(tmp_path, "refund policy.pdf")
    assert "takes effect on 2099-10-01, after today" in said, said
