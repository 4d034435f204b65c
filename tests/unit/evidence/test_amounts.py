"""Numbers as a payload writes them (evidence/amounts.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dispute_evidence.evidence.amounts import payload_numbers, price_codes

TRICKY = [0.0, -0.0, 1.0, 1.0000001, 1.0000004, 2.0, 2.5, 2.4999999, np.nan, np.inf, -np.inf,
          2.0**53, 2.0**53 + 2, 1e20, -1.0, -1.0000001, 0.1, 0.1000001, 3.14159265, 3.1415926]  # fmt: skip


def test_price_codes_tell_prices_apart_exactly_as_their_written_form_does():
    """Two lines are one price when the payload writes them alike (1.0000001 and 1.0000004 are
    both 1.0, but 1.0 is 1): the codes split the column as the written strings would."""
    column = pd.Series(np.random.default_rng(0).choice(np.array(TRICKY), 2000))
    written = [repr(v) for v in payload_numbers(column)]
    assert (
        pd.factorize(pd.Series(written))[0].tolist()
        == pd.factorize(price_codes(column))[0].tolist()
    )
    assert len(set(written)) == 13


def test_price_codes_of_text_cells():
    codes = price_codes(pd.Series(["1.5", "", "x", "2", "2.0"], dtype="str"))
    assert codes[1] == codes[2] and codes[3] == codes[4] and len(set(codes.tolist())) == 3
