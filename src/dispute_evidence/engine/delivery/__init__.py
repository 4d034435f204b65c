"""Delivery: the submit phase (submit), what a run lists of the API's disputes (listings), and
the statuses read back (readback). Imports prepare/ and review/ only."""
