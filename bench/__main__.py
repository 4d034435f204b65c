"""`python -m bench [api|ingest|engine|evidence|readback|report|run|serve|scale|season|standing
...] [--quick]
[--merchants N]
[--profile-night N,M]`: print benchmark figures."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    extra: dict[str, Any] = {}
    if "--merchants" in argv:  # scale: Prefect's cost per flow run with that many merchants
        at = argv.index("--merchants")
        extra["merchants"] = int(argv[at + 1])
        del argv[at : at + 2]
    if "--profile-night" in argv:  # season: cProfile these nights (1-based, comma-separated)
        at = argv.index("--profile-night")
        extra["profile_nights"] = tuple(int(n) for n in argv[at + 1].split(","))
        del argv[at : at + 2]
    chosen = [a for a in argv if not a.startswith("--")] or [
        "api",
        "ingest",
        "engine",
        "report",
        "run",
        "serve",
        "scale",
    ]
    print(
        f"dispute-evidence benchmarks on {platform.node()} ({os.cpu_count()} cores, Python {platform.python_version()})"
    )
    for name in chosen:
        module = __import__(f"bench.{name}_bench", fromlist=["run"])
        wanted = {"scale": ("merchants",), "season": ("profile_nights",)}.get(name, ())
        module.run(quick=quick, **{k: v for k, v in extra.items() if k in wanted})


main(sys.argv[1:])
