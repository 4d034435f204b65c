"""A merchant's statement that names another customer's e-mail address is flagged for the
analyst (issue 45, item 11): the Contradictions column says so and what to do; the customer's
own address and the shop's are not flagged. The real CLI against the local API over loopback."""

from __future__ import annotations

from tests.integration.flows.test_case_wins import _inbox, _rows
from tests.support.cli_helpers import latest_disputes, run_cli, use_sandbox
from tests.support.engine_helpers import write_rows


def test_a_statement_naming_another_customers_address_is_flagged(
    sandbox_factory, tmp_path, monkeypatch
):
    sb = sandbox_factory(rows=_rows(2))
    use_sandbox(sb, monkeypatch)
    inbox = _inbox(tmp_path, ["product_unacceptable"] * 2)
    write_rows(inbox / "disputes.csv", ["provider_dispute_id", "order_number", "reason",
               "Statement"], [
        ["dp_test_0", "#5000", "product_unacceptable",
         "The customer wrote from c0@example.com; see also dana.other@example.net's order."],
        ["dp_test_1", "#5001", "product_unacceptable",
         "The customer (c1@example.com) wrote to support@acme.test and was answered."],
    ])  # fmt: skip
    run_cli("--inbox", str(inbox))
    table = latest_disputes(tmp_path)
    flagged = table.loc["dp_test_0", "Contradictions"]
    assert "the merchant's statement names dana.other@example.net" in flagged, flagged
    assert "c0@example.com" not in flagged and "remove another customer's address" in flagged
    assert "statement names another" not in table.loc["dp_test_1", "Contradictions"]
