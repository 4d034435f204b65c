"""How many examples a property test draws: as many as it asks for under `make test`, a fifth
(at least 3) under hypothesis' `fast` profile, which `make test-fast` loads for the inner loop
(`--hypothesis-profile=fast`). The profile is registered in tests/conftest.py. Likewise the
seeds a seeded differential test runs (`some`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import settings

T = TypeVar("T")

FAST_PROFILE = "fast"
FAST_EXAMPLES = 20  # of hypothesis' default 100


def examples(wanted: int) -> int:
    """`wanted`, scaled by the loaded profile's max_examples against hypothesis' default 100."""
    return max(3, wanted * settings.default.max_examples // 100)


def some(values: Sequence[T]) -> list[T]:
    """All of `values` under `make test`; under the fast profile the first fifth of them (at
    least one), as `examples` scales a property test's examples."""
    wanted = max(1, len(values) * settings.default.max_examples // 100)
    return list(values[:wanted])
