"""Which version of a store document an order argues (evidence/in_force.py), and which
disputes get it: pure rules, checked directly."""

from __future__ import annotations

from datetime import date

from dispute_evidence.evidence.in_force import Order, StoreVersion, attach, in_force


def _v(sha: str, effective: date | None, dropped: date, kind: str = "policy") -> StoreVersion:
    return StoreVersion("refund policy.pdf", sha, kind, effective, dropped, f"/{sha}", 1, "x")


OCT, DEC = date(2025, 10, 1), date(2025, 12, 1)


def test_the_version_in_force_at_the_order_date_is_argued():
    old, new = _v("a", OCT, date(2025, 10, 2)), _v("b", DEC, date(2025, 12, 2))
    assert in_force([new, old], date(2025, 11, 15)) == old
    assert in_force([new, old], date(2025, 12, 1)) == new
    assert in_force([old, new], None) == new  # no order date: the newest


def test_an_order_before_a_stated_date_gets_none_but_an_undated_first_version_holds():
    assert in_force([_v("a", OCT, date(2025, 10, 2))], date(2025, 9, 1)) is None
    undated = _v("a", None, date(2025, 12, 20))  # dropped today, says no date: the policy then
    assert in_force([undated], date(2025, 9, 1)) == undated
    later = _v("b", None, date(2026, 1, 10))
    assert in_force([undated, later], date(2026, 1, 9)) == undated
    assert in_force([undated, later], date(2026, 1, 10)) == later


def test_only_reasons_that_need_the_kind_get_it():
    policy = _v("a", OCT, OCT)
    got = attach(
        {
            "dp_refund": Order("credit_not_processed", date(2025, 11, 1)),
            "dp_sub": Order("subscription_canceled", date(2025, 11, 1)),
            "dp_nr": Order("product_not_received", date(2025, 11, 1)),
            "dp_fraud": Order("fraudulent", date(2025, 11, 1)),
            "dp_dup": Order("duplicate", date(2025, 11, 1)),  # "any document": no kind named
        },
        [policy],
    )
    assert got == {"dp_refund": [policy], "dp_sub": [policy]}
    assert policy.words() == "store policy: refund policy.pdf, version of 2025-10-01"


def test_of_two_versions_with_one_date_the_one_that_replaced_the_other_wins_not_the_hash():
    """Issue 45 item 10: the later drop, then the file in store/ now, then the newer file."""
    from dataclasses import replace

    day = date(2025, 10, 2)
    replaced, correction = _v("f" * 64, OCT, day), _v("0" * 64, OCT, day)  # the hash: "f" wins
    assert in_force([replaced, replace(correction, current=True)], None).sha256 == "0" * 64
    older, newer = replace(replaced, mtime=100), replace(correction, mtime=200)
    assert in_force([older, newer], date(2025, 11, 1)) == newer
    assert in_force([_v("f" * 64, OCT, date(2025, 10, 3)), correction], None).sha256 == "f" * 64


def test_a_kept_version_of_an_orders_kind_goes_to_no_dispute():
    """Issue 45 item 7: a proof of delivery or a message kept by an older run is never spread."""
    pod, message = _v("a", None, OCT, "proof_of_delivery"), _v("b", None, OCT, "communication")
    got = attach({"dp_nr": Order("product_not_received", date(2025, 11, 1)),
                  "dp_fraud": Order("fraudulent", date(2025, 11, 1))}, [pod, message])  # fmt: skip
    assert got == {}
