"""`python -m bench [api|ingest|engine|evidence|readback|report|run|serve|scale|season|standing
...] [--quick] [--merchants N [--compare]] [--profile-night N,M] [--save-baseline] [--against PATH]
[--repeat N]`: print benchmark figures, each beside the last release's.

- The release column reads bench/baselines/<bench>.json. `--save-baseline` writes it from the
  figures just measured; to measure the release's code with this harness, run this checkout's
  bench with the release checkout's interpreter (its dispute_evidence), e.g. from here:
  `/tmp/base/.venv/bin/python -m bench ingest --save-baseline` (the file names the commit).
- `--against PATH` (ingest): the same measurement in the checkout at PATH (its .venv), run in
  turn with this one `--repeat N` times (default 3): min and median of each, side by side."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")


def main(argv: list[str]) -> None:
    from bench.common import begin, save_baseline

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
    if "--compare" in argv:  # scale: one deployment per merchant beside the sweep
        argv.remove("--compare")
        extra["compare"] = True
    save = "--save-baseline" in argv
    if "--against" in argv:  # ingest: another checkout measured in turn with this one
        at = argv.index("--against")
        extra["against"] = argv[at + 1]
        del argv[at : at + 2]
    if "--repeat" in argv:
        at = argv.index("--repeat")
        extra["repeat"] = int(argv[at + 1])
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
        wanted = {
            "scale": ("merchants", "compare"),
            "season": ("profile_nights",),
            "ingest": ("against", "repeat"),
        }.get(name, ())
        begin(name + ("-quick" if quick else ""))
        module.run(quick=quick, **{k: v for k, v in extra.items() if k in wanted})
        if save:
            save_baseline()


main(sys.argv[1:])
