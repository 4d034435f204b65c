"""Helpers shared by the tests and the benchmarks (not shipped): a throwaway PostgreSQL, a
whole fleet on one machine, the evidence builder's scaling workload, evidence documents made
on the spot (docfixtures) and a state with a long history (report_history). The sandbox's own
workloads (seed disputes, a matching inbox) live in dispute_evidence.sandbox.workload."""
