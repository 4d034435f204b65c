"""How many examples a property test draws: as many as it asks for under `make test`, a fifth
(at least 3) under hypothesis' `fast` profile, which `make test-fast` loads for the inner loop
(`--hypothesis-profile=fast`). The profile is registered in tests/conftest.py."""

from __future__ import annotations

from hypothesis import settings

FAST_PROFILE = "fast"
FAST_EXAMPLES = 20  # of hypothesis' default 100


def examples(wanted: int) -> int:
    """`wanted`, scaled by the loaded profile's max_examples against hypothesis' default 100."""
    return max(3, wanted * settings.default.max_examples // 100)
