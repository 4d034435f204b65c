"""`python -m bench [api|ingest|engine|evidence|readback|run|serve|scale|season ...] [--quick]
[--merchants N]`: print benchmark figures."""

from __future__ import annotations

import os
import platform
import sys

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    extra: dict[str, int] = {}
    if "--merchants" in argv:  # scale: Prefect's cost per flow run with that many merchants
        at = argv.index("--merchants")
        extra["merchants"] = int(argv[at + 1])
        del argv[at : at + 2]
    chosen = [a for a in argv if not a.startswith("--")] or [
        "api",
        "ingest",
        "engine",
        "run",
        "serve",
        "scale",
    ]
    print(
        f"dispute-evidence benchmarks on {platform.node()} ({os.cpu_count()} cores, Python {platform.python_version()})"
    )
    for name in chosen:
        module = __import__(f"bench.{name}_bench", fromlist=["run"])
        module.run(quick=quick, **(extra if name == "scale" else {}))


main(sys.argv[1:])
