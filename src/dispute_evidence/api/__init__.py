"""Async client for the Dispute Evidence API: transport, models, errors.

Knows nothing of spreadsheets, state or Prefect. The names below load on first use
(`from dispute_evidence.api import DisputeEvidenceClient` loads aiohttp; importing
`dispute_evidence.api.config` alone, as the settings do, does not).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dispute_evidence.api.client import DisputeEvidenceClient, check_evidence_file
    from dispute_evidence.api.config import ApiSettings
    from dispute_evidence.api.errors import (
        ApiConnectionError,
        ApiError,
        ApiTimeout,
        ApiUnavailable,
        AuthenticationFailed,
        FileRejected,
        InvalidRequest,
        NotFound,
        OutcomeUnknown,
        PermissionDenied,
        RateLimited,
        TerminalError,
        TransientError,
        UnexpectedResponse,
    )
    from dispute_evidence.api.models import Dispute, Evidence, File, MerchantProfile, Product

_WHERE = {
    "DisputeEvidenceClient": "dispute_evidence.api.client",
    "check_evidence_file": "dispute_evidence.api.client",
    "ApiSettings": "dispute_evidence.api.config",
    "ApiConnectionError": "dispute_evidence.api.errors",
    "ApiError": "dispute_evidence.api.errors",
    "ApiTimeout": "dispute_evidence.api.errors",
    "ApiUnavailable": "dispute_evidence.api.errors",
    "AuthenticationFailed": "dispute_evidence.api.errors",
    "FileRejected": "dispute_evidence.api.errors",
    "InvalidRequest": "dispute_evidence.api.errors",
    "NotFound": "dispute_evidence.api.errors",
    "OutcomeUnknown": "dispute_evidence.api.errors",
    "PermissionDenied": "dispute_evidence.api.errors",
    "RateLimited": "dispute_evidence.api.errors",
    "TerminalError": "dispute_evidence.api.errors",
    "TransientError": "dispute_evidence.api.errors",
    "UnexpectedResponse": "dispute_evidence.api.errors",
    "Dispute": "dispute_evidence.api.models",
    "Evidence": "dispute_evidence.api.models",
    "File": "dispute_evidence.api.models",
    "MerchantProfile": "dispute_evidence.api.models",
    "Product": "dispute_evidence.api.models",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


__all__ = [
    "ApiConnectionError",
    "ApiError",
    "ApiSettings",
    "ApiTimeout",
    "ApiUnavailable",
    "AuthenticationFailed",
    "Dispute",
    "DisputeEvidenceClient",
    "Evidence",
    "File",
    "FileRejected",
    "InvalidRequest",
    "MerchantProfile",
    "NotFound",
    "OutcomeUnknown",
    "PermissionDenied",
    "Product",
    "RateLimited",
    "TerminalError",
    "TransientError",
    "UnexpectedResponse",
    "check_evidence_file",
]
