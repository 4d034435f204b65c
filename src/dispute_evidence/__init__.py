"""dispute-evidence: get merchants' chargeback evidence to the Dispute Evidence API."""

__version__ = "0.1.0"
