"""Response -> typed error, by status class; tolerant of bodies that are not the Error shape."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from dispute_evidence.api.errors import (
    ApiError,
    ApiUnavailable,
    AuthenticationFailed,
    FileRejected,
    InvalidRequest,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestInfo,
)
from dispute_evidence.api.models import ErrorBody
from dispute_evidence.api.retry import parse_retry_after

_BY_STATUS: dict[int, type[ApiError]] = {
    401: AuthenticationFailed,
    403: PermissionDenied,
    404: NotFound,
    413: FileRejected,
    415: FileRejected,
}


def parse_error_body(raw: bytes) -> ErrorBody | None:
    """The spec's flat Error object, or one wrapped as {"error": {...}}; None if neither."""
    try:
        data: Any = json.loads(raw)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        data = data["error"]
    try:
        return ErrorBody.model_validate(data)
    except ValidationError:
        return None


def error_from_response(
    status: int, raw: bytes, headers: Mapping[str, str], request: RequestInfo
) -> ApiError:
    """The typed error for a non-2xx answer."""
    body = parse_error_body(raw)
    if body is not None:
        message, code, param = body.message, body.code, body.param
    else:
        snippet = raw[:200].decode("utf-8", "replace").strip() or "<empty>"
        message, code, param = (
            f"HTTP {status} with a body that is not the documented Error shape: {snippet}",
            None,
            None,
        )
    kw: dict[str, Any] = {
        "status": status,
        "code": code,
        "param": param,
        "body": body,
        "request": request,
    }
    if status == 429:
        return RateLimited(message, retry_after=parse_retry_after(headers.get("Retry-After")), **kw)
    if status >= 500:
        return ApiUnavailable(
            message, retry_after=parse_retry_after(headers.get("Retry-After")), **kw
        )
    return _BY_STATUS.get(status, InvalidRequest)(message, **kw)
