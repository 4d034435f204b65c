"""Numbers as a payload writes them, for whole columns at once (NumPy, not a call per cell)."""

from __future__ import annotations

import numpy as np
import pandas as pd

# Whole numbers up to 2**53 are exact as floats and go out as JSON integers; larger ones stay
# floats, which JSON carries at any size (an int over 64 bits is something orjson refuses).
EXACT_INT = 2.0**53


def payload_numbers(values: pd.Series) -> list[int | float | None]:
    """Python numbers for JSON: whole values as int (2, not 2.0), others rounded to 6 places."""
    arr = pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    exact = np.abs(arr) < EXACT_INT  # beyond it rounding would overflow (1e308 -> inf)
    with np.errstate(over="ignore", invalid="ignore"):
        out: list[int | float | None] = np.where(exact, np.round(arr, 6), arr).tolist()
        whole = exact & (np.mod(arr, 1) == 0)
    for i in np.flatnonzero(whole).tolist():
        out[i] = int(arr[i])
    for i in np.flatnonzero(~np.isfinite(arr)).tolist():
        out[i] = None
    return out


def price_codes(values: pd.Series) -> np.ndarray:
    """One code per distinct price as the payload writes it (payload_numbers: 2 and 2.0000001
    are the int 2 and the float 2.0, two prices; inf and NaN are both None), from the floats'
    bits: the build's key of an order line, without making 400,000 strings."""
    arr = pd.to_numeric(values, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    exact = np.abs(arr) < EXACT_INT
    with np.errstate(over="ignore", invalid="ignore"):
        written = np.where(exact, np.round(arr, 6), arr)
        whole = exact & (np.mod(arr, 1) == 0)
    kind = np.where(~np.isfinite(arr), 0, np.where(whole, 1, 2))
    written[kind == 0] = 0.0
    written[whole] += 0.0  # the int of -0.0 is 0: one price
    bits = pd.factorize(written.view(np.int64))[0].astype(np.int64)
    return np.asarray(bits * 3 + kind, dtype=np.int64)
