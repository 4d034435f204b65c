"""A faithful local implementation of the Dispute Evidence API (like stripe-mock).

Never imports pipeline code: it is what the pipeline is proven against.
"""

from dispute_evidence.sandbox.app import SandboxConfig, build_app
from dispute_evidence.sandbox.runner import RunningSandbox, run_sandbox_in_thread

__all__ = ["RunningSandbox", "SandboxConfig", "build_app", "run_sandbox_in_thread"]
