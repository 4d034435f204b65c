"""Async client for the Dispute Evidence API: transport, models, errors.

Knows nothing of spreadsheets, state or Prefect.
"""

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
