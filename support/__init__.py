"""Helpers shared by the tests and the benchmarks (not shipped): a throwaway PostgreSQL, a
whole fleet on one machine, and the evidence builder's scaling workload. The sandbox's own
workloads (seed disputes, a matching inbox) live in dispute_evidence.sandbox.workload."""
