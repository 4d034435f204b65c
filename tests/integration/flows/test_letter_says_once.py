"""Issue 44, what the regenerated docs/letters still showed as a reviewer reads them: the thesis
and the first bullet said the same fact twice (the credit before the dispute, the retraction's
quote, the CE 3.0 finding); the retraction letter never said in our own words that the customer
took the complaint back; two orders on one day opened with the bare claim, the two purchases
only in a bullet. Through the real CLI (`run --sandbox`, the inbox's own local API) on
make_letters.py's own inbox, cut to these four disputes, read from page 1 of the uploaded
letter: each fact is said once, the thesis answers the claim, a table stays under its point."""

from __future__ import annotations

import pytest

from tests.integration.flows.test_one_page import _make_letters, _pages, run_letters_inbox

NEW = ("credit_before_dispute", "retraction", "two_orders_one_day")


@pytest.fixture(scope="module")
def letters(tmp_path_factory) -> dict[str, str]:
    """Page 1 of each letter the local API received, up to the timeline (the timeline and the
    data sheet are not the letter's argument): one run for the four."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _letters(tmp_path_factory.mktemp("says_once"), monkeypatch)


def _letters(tmp_path, monkeypatch) -> dict[str, str]:
    ml = _make_letters()
    kept: list[list[object]] = [
        [f"dp_{o}", f"#{o}", reason, "129.00", "USD", opened]
        for o, (name, reason, _, opened) in ml.NEW.items()
        if name in NEW
    ]
    kept.append(["dp_1055", "#1055", "fraudulent", "129.00", "USD", ""])
    kept.append(["dp_1047", "#1047", "general", "129.00", "USD", ""])
    inbox = tmp_path / "inbox"
    run_letters_inbox(inbox, monkeypatch, kept)
    pids = ("dp_1060", "dp_1061", "dp_1062", "dp_1055", "dp_1047")
    return {pid: _pages(inbox, pid)[0].split("Timeline", 1)[0] for pid in pids}


def _opening(page: str) -> str:
    """The thesis: what the letter says before 'The order'."""
    return page.split("To the reviewer of this dispute,", 1)[1].split("The order", 1)[0]


def test_a_credit_before_the_dispute_is_said_once(letters):
    credit = letters["dp_1060"]
    assert "already credited 129.00 USD on 2026-10-17" in _opening(credit), credit
    assert credit.count("already credited 129.00 USD") == 1, credit
    assert "Our policy (Exhibit A)" in credit, credit  # the other points are still argued


def test_the_retraction_is_said_in_our_words_and_quoted_once(letters):
    retraction = letters["dp_1061"]
    opening = _opening(retraction)
    assert "withdrew the complaint in writing on 2026-10-18" in opening, opening
    assert "never mind, it works fine now" in opening, opening
    assert retraction.count("never mind, it works fine now") == 1, retraction


def test_ce3_is_said_once_and_its_table_stays(letters):
    ce3 = letters["dp_1055"]
    assert "qualifies for Visa Compelling Evidence 3.0" in _opening(ce3), ce3
    assert ce3.count("the same card paid for") == 1, ce3
    assert "The disputed order and the two earlier orders, side by side" in ce3, ce3
    assert "Earlier order 955" in ce3 and "Earlier order 956" in ce3, ce3  # the table stays


def test_two_orders_on_one_day_lead_with_the_two_purchases(letters):
    two = letters["dp_1062"]
    opening = _opening(two)
    assert "order 1063 (ch_1063A)" in opening and "two separate purchases" in opening, opening
    assert two.count("two separate purchases") == 1, two
    assert "1Z999AA10123456763" in two, two  # the side-by-side table is still printed


def test_a_delivery_in_the_thesis_is_not_a_bullet_again(letters):
    general = letters["dp_1047"]
    assert "delivered on 2026-10-06" in _opening(general), general
    assert general.count("delivered on 2026-10-06") == 1, general  # other words, same record
    assert "The order was shipped on 2026-10-03 with UPS" in general, general  # a fact of its own
