"""The merchant's standing (docs/standing.md), pure: each month's dispute ratio per card network
against the programs (inputs.py reads the records, events.py finds the disputes and fraud reports,
counts.py counts, ratios.py divides, words.py words it, efm.py judges
Mastercard's EFM), the CE 3.0 coverage of the order history (ce3_coverage.py) and what wins
(win_rates.py). No state, no network: the engine's reporting room reads the state for it."""
