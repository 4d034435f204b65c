"""Numbers a setting may take: the bounds shared by several settings, and the line that says
a number is out of its field's bounds. Every numeric setting has both bounds and is finite
(tests/unit/test_settings.py checks it): inf or 10^12 days overflow the timers and dates they reach.
Neutral module: imports nothing of ours."""

from __future__ import annotations

from typing import Any, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt

MAX_DAYS = 36_500  # a century: retention beyond it is "keep", and dates past 9999 overflow
MAX_AMOUNT = 1e12  # in the merchant's currency: above any dispute, far below float trouble
FEE_DAYS = (0, 3650)  # [advice] fee_by_days: days since a dispute opened
LIMIT_FIGURE_RANGE = (1, 1_000_000_000)  # pages, files, pixels or bytes (1 GB)


RANGE_ERRORS = frozenset(
    {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "finite_number"}
)


def out_of_range(error: Any, root: Any) -> str | None:
    """'must be at least 0 and at most 36,500 (got 10^12)' for a number outside its field's
    bounds, from the field's own ge/gt/le/lt (None for any other error)."""
    field = _field_at(root, error["loc"]) if error["type"] in RANGE_ERRORS else None
    if field is None:
        return None
    meta = field.metadata
    ge, gt, le, lt = (
        next((getattr(m, name) for m in meta if isinstance(m, kind)), None)
        for name, kind in (("ge", Ge), ("gt", Gt), ("le", Le), ("lt", Lt))
    )
    finite = float in (get_args(field.annotation) or (field.annotation,))
    if not (text := range_text(ge, gt, le, lt)):
        return None
    got = str(error["input"])[:40]
    return f"must be {'a finite number, ' if finite else ''}{text} (got {got})"


def range_text(
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> str:
    """'at least 1 and at most 3,600', 'more than 0 and less than 1', ..."""
    parts = [
        f"{word} {_number(n)}"
        for word, n in (("at least", ge), ("more than", gt), ("at most", le), ("less than", lt))
        if n is not None
    ]
    return " and ".join(parts)


def _number(n: float) -> str:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return f"{n:,}" if isinstance(n, int) else str(n)


def _field_at(root: Any, loc: tuple[Any, ...]) -> Any:
    """The FieldInfo a settings error's location names (list indexes and the names of
    [keys.<name>]-like tables skipped), or None."""
    model, field, named = root, None, False
    for part in loc:
        if isinstance(part, int) or named:  # an entry of a list or table: its model next
            named, field = False, field if model is not None else None
            continue
        fields = getattr(model, "model_fields", {})
        if part not in fields:
            return None
        field = fields[part]
        named = get_origin(field.annotation) is dict
        args = get_args(field.annotation) or (field.annotation,)
        model = next((a for a in args if hasattr(a, "model_fields")), None)
    return None if named else field


def fee_schedule_problem(fees: dict[int, float]) -> str | None:
    """Why `[advice] fee_by_days` is out of bounds (None when it is not)."""
    lo, hi = FEE_DAYS
    for days, fee in fees.items():
        if not lo <= days <= hi:
            return f"{days} days: must be {range_text(ge=lo, le=hi)}"
        if not 0 <= fee <= MAX_AMOUNT:  # inf and nan are refused before this
            return f"{days} days: the fee must be {range_text(ge=0, le=MAX_AMOUNT)} (got {fee})"
    return None


def figures_problem(profile: str, figures: dict[str, int]) -> str | None:
    """Why a `[evidence.limit_profiles.<profile>]` figure is out of bounds (None: none is)."""
    lo, hi = LIMIT_FIGURE_RANGE
    for figure, n in figures.items():
        if not lo <= n <= hi:
            return (
                f"[evidence.limit_profiles.{profile}] {figure}: must be "
                f"{range_text(ge=lo, le=hi)} (got {n})"
            )
    return None
