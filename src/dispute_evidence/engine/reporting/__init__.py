"""Reporting: what a run came to (report), the state's problems, history and the picture kept
for the next report, alerts, the merchant's standing and what wins. The last stage: imports
the rooms before it, never the sequence (engine/run_steps.py) above it."""
