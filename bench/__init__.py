"""Benchmarks: `make bench` (or `python -m bench [api|ingest|engine] [--quick]`). They print
figures; they never pass or fail on timing."""
