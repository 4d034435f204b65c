"""The sandbox's aiohttp application: handlers and routes.

The request pipeline (auth, rate limit, strict requests, faults) is in middleware.py; the
configuration, the app keys and the Error body in app_config.py. Every choice the spec leaves
"not shown" is listed in docs/api-choices.md.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError

from dispute_evidence.filetypes import EXTENSIONS, SNIFF_BYTES, sniff
from dispute_evidence.sandbox.app_config import (
    CONFIG_KEY,
    LIMITER_KEY,
    STATS_KEY,
    STORE_KEY,
    TOKEN_KEY,
    SandboxConfig,
    error,
)
from dispute_evidence.sandbox.db import SandboxStore
from dispute_evidence.sandbox.ids import utcnow
from dispute_evidence.sandbox.middleware import (
    authenticate,
    inject_faults,
    json_errors,
    rate_limit,
    strict_requests,
)
from dispute_evidence.sandbox.ratelimit import SlidingWindowLimiter
from dispute_evidence.sandbox.seed import CLOSED_STATUSES
from dispute_evidence.sandbox.validation import Invalid, validate_update_body

ACCESS_LOG_FORMAT = '%a "%r" %s %b %Tfs'  # request line has no body and no headers, so no token
JSON_BODY_LIMIT = 1024 * 1024

__all__ = [
    "ACCESS_LOG_FORMAT",
    "CONFIG_KEY",
    "STATS_KEY",
    "STORE_KEY",
    "TOKEN_KEY",
    "SandboxConfig",
    "build_app",
]


# -- parameters -------------------------------------------------------------------
def _int_param(request: web.Request, name: str, default: int, lo: int, hi: int | None) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise Invalid(name, f"Invalid integer: {raw!r}.", "parameter_invalid_integer") from None
    if value < lo or (hi is not None and value > hi):
        bounds = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise Invalid(name, f"{name} must be {bounds}; got {value}.", "parameter_out_of_range")
    return value


MAX_OFFSET = 2**63 - 1  # SQLite's INTEGER; any offset past the data is an empty page anyway


def _page(request: web.Request) -> tuple[int, int]:
    offset = min(_int_param(request, "offset", 0, 0, None), MAX_OFFSET)
    return _int_param(request, "limit", 10, 1, 100), offset


def _invalid(exc: Invalid, status: int = 400) -> web.Response:
    return error(status, exc.message, code=exc.code, param=exc.param)


def _file_json(request: web.Request, f: Any) -> dict[str, Any]:
    return {
        "id": f.id,
        "object": "file",
        "created_at": f.created_at,
        "url": _file_url(request, f.id),
        "file_name": f.file_name,
        "file_type": f.file_type,
        "dispute_id": f.dispute_id,
    }


def _file_url(request: web.Request, file_id: str) -> str:
    return f"{request.scheme}://{request.host}/v1/files/{file_id}/content"


# -- handlers -------------------------------------------------------------------
async def list_disputes(request: web.Request) -> web.Response:
    try:
        limit, offset = _page(request)
    except Invalid as exc:
        return _invalid(exc)
    if request.app[CONFIG_KEY].hidden_disputes:  # a broken API: others' disputes, forever
        return web.json_response({"data": [_filler_dispute(offset + i) for i in range(limit)]})
    return web.json_response({"data": request.app[STORE_KEY].list_disputes(limit, offset)})


def _filler_dispute(n: int) -> dict[str, Any]:
    """A made-up dispute of a listing that never shows ours (SandboxConfig.hidden_disputes)."""
    return {
        "id": f"dis_filler_{n}",
        "object": "dispute",
        "initiated_at": "2026-01-01T00:00:00Z",
        "response_due_by": "2026-01-15T00:00:00Z",
        "amount": 100,
        "currency": "USD",
        "reason": "general",
        "status": "lost",
        "provider": "stripe",
        "evidence": {},
    }


async def get_dispute(request: web.Request) -> web.Response:
    dispute = request.app[STORE_KEY].get_dispute(request.match_info["dispute_id"])
    if dispute is None:
        return error(
            404,
            f"No such dispute: {request.match_info['dispute_id']!r}.",
            code="resource_missing",
            param="dispute_id",
        )
    return web.json_response(dispute)


def _open_dispute(request: web.Request, pid: str) -> Any:
    """The stored dispute row for `pid` if it can still take evidence, else raise a response."""
    row = request.app[STORE_KEY].dispute_by_provider_id(pid)
    if row is None:
        raise _Reply(
            error(
                404,
                f"No such dispute: provider_dispute_id {pid!r}.",
                code="resource_missing",
                param="provider_dispute_id",
            )
        )
    if row["status"] in CLOSED_STATUSES:
        raise _Reply(
            error(
                400,
                f"Dispute {row['id']} is {row['status']}; it no longer accepts evidence.",
                code="dispute_closed",
                param="provider_dispute_id",
            )
        )
    if datetime.fromisoformat(row["response_due_by"]) < utcnow():
        raise _Reply(
            error(
                400,
                f"Dispute {row['id']} was due by {row['response_due_by']}; evidence is closed.",
                code="dispute_past_due",
                param="provider_dispute_id",
            )
        )
    return row


class _Reply(Exception):
    def __init__(self, response: web.Response):
        self.response = response


async def update_evidence(request: web.Request) -> web.Response:
    if request.content_type != "application/json":
        return error(415, "Send the body as application/json.", code="unsupported_media_type")
    try:
        body = json.loads(await request.read())
    except ValueError:
        return error(400, "The body is not valid JSON.", code="parameter_invalid", param="body")
    try:
        pid, evidence = validate_update_body(body)
        row = _open_dispute(request, pid)
    except Invalid as exc:
        return _invalid(exc)
    except _Reply as reply:
        return reply.response
    cfg = request.app[CONFIG_KEY]
    request.app[STORE_KEY].set_evidence(row["id"], evidence, merge=cfg.evidence_mode == "merge")
    return web.json_response(
        {
            "message": "Evidence updated successfully",
            "dispute_id": cfg.answer_dispute_id or row["id"],
            "provider_dispute_id": pid,
        }
    )


async def _read_small_part(part: Any, cap: int = 1024) -> str:
    data = bytearray()
    while chunk := await part.read_chunk(256):
        data += chunk
        if len(data) > cap:
            raise Invalid(part.name, f"Form field {part.name} is longer than {cap} bytes.")
    return data.decode("utf-8", errors="replace").strip()


async def _read_file_part(part: Any, max_bytes: int) -> bytes:
    """Stream the file part, stopping as soon as it passes `max_bytes`."""
    data = bytearray()
    while chunk := await part.read_chunk(65536):
        data += chunk
        if len(data) > max_bytes:
            raise _Reply(
                error(
                    413,
                    f"File exceeds the {max_bytes // (1024 * 1024)} MB limit.",
                    code="file_too_large",
                    param="file",
                )
            )
    return bytes(data)


async def upload_file(request: web.Request) -> web.Response:
    cfg = request.app[CONFIG_KEY]
    if request.content_type != "multipart/form-data":
        return error(415, "Send the upload as multipart/form-data.", code="unsupported_media_type")
    if request.content_length and request.content_length > cfg.max_file_bytes + 65536:
        return error(
            413,
            f"File exceeds the {cfg.max_file_bytes // (1024 * 1024)} MB limit.",
            code="file_too_large",
            param="file",
        )
    try:
        try:
            fields = await _read_upload_form(request, cfg.max_file_bytes)
        except (ValueError, HttpProcessingError) as exc:  # no boundary, bad part headers, truncated
            raise Invalid(
                "body", f"Malformed multipart/form-data body ({exc}).", "body_malformed"
            ) from None
        content, name = fields.get("file", (None, None))
        if content is None:
            raise Invalid("file", "Missing required param: file.", "parameter_missing")
        pid = fields.get("provider_dispute_id", (None, None))[0]
        if not pid:
            raise Invalid(
                "provider_dispute_id",
                "Missing required param: provider_dispute_id.",
                "parameter_missing",
            )
        mime = _check_file(content)
        row = _open_dispute(request, pid)
    except Invalid as exc:
        return _invalid(exc)
    except _Reply as reply:
        return reply.response
    stored = request.app[STORE_KEY].add_file(
        row["id"], name or f"upload{EXTENSIONS[mime]}", mime, content
    )
    return web.json_response(
        {
            "message": "File uploaded successfully",
            "dispute_id": row["id"],
            "provider_dispute_id": pid,
            "file": {
                "id": stored.id,
                "url": _file_url(request, stored.id),
                "name": stored.file_name,
            },
        }
    )


async def _read_upload_form(request: web.Request, max_bytes: int) -> dict[str, tuple[Any, Any]]:
    fields: dict[str, tuple[Any, Any]] = {}
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):  # a nested multipart: not a form field
            raise Invalid("body", "Nested multipart bodies are not accepted.", "body_malformed")
        if part.name == "file":
            fields["file"] = (await _read_file_part(part, max_bytes), part.filename)
        elif part.name == "provider_dispute_id":
            fields["provider_dispute_id"] = (await _read_small_part(part), None)
        else:
            raise Invalid(
                str(part.name), f"Received unknown parameter: {part.name}.", "parameter_unknown"
            )
    return fields


def _check_file(content: bytes) -> str:
    if not content:
        raise Invalid("file", "The file is empty.", "file_empty")
    mime = sniff(content[:SNIFF_BYTES])
    if mime is None:
        raise _Reply(
            error(
                415,
                "Unsupported file type: the content is not PDF, PNG or JPG.",
                code="unsupported_file_type",
                param="file",
            )
        )
    return mime


async def list_files(request: web.Request) -> web.Response:
    dispute_id = request.query.get("dispute_id", "").strip()
    try:
        if not dispute_id:
            raise Invalid("dispute_id", "Missing required param: dispute_id.", "parameter_missing")
        limit, offset = _page(request)
    except Invalid as exc:
        return _invalid(exc)
    store = request.app[STORE_KEY]
    if store.get_dispute(dispute_id) is None:
        return error(
            404, f"No such dispute: {dispute_id!r}.", code="resource_missing", param="dispute_id"
        )
    files = [_file_json(request, f) for f in store.list_files(dispute_id, limit, offset)]
    if request.app[CONFIG_KEY].endless_files:  # a broken API: every page full, forever
        files += [_filler_file(request, dispute_id, offset + i) for i in range(len(files), limit)]
    return web.json_response({"data": files})


def _filler_file(request: web.Request, dispute_id: str, n: int) -> dict[str, Any]:
    """A made-up file of a listing that never ends (SandboxConfig.endless_files)."""
    file_id = f"file_filler_{n}"
    return {
        "id": file_id,
        "object": "file",
        "created_at": "2026-01-01T00:00:00Z",
        "url": _file_url(request, file_id),
        "file_name": f"filler-{n}.pdf",
        "file_type": "application/pdf",
        "dispute_id": dispute_id,
    }


async def file_content(request: web.Request) -> web.Response:
    found = request.app[STORE_KEY].file_content(request.match_info["file_id"])
    if found is None:
        return error(404, "No such file.", code="resource_missing", param="file_id")
    meta, content = found
    return web.Response(body=content, content_type=meta.file_type)


async def openapi(request: web.Request) -> web.Response:
    text = resources.files("dispute_evidence.sandbox").joinpath("openapi.json").read_text("utf-8")
    return web.Response(text=text, content_type="application/json")


async def sandbox_state(request: web.Request) -> web.Response:
    """Test/benchmark inspection: every dispute's evidence, update count and files."""
    return web.json_response(
        {"disputes": request.app[STORE_KEY].snapshot(), "stats": request.app[STATS_KEY]}
    )


async def sandbox_faults(request: web.Request) -> web.Response:
    """Change fault probabilities of a running sandbox (demos, benchmarks)."""
    cfg = request.app[CONFIG_KEY]
    for key, value in (await request.json()).items():
        if key not in (
            "fail_rate",
            "fail_retry_after",
            "ambiguous_rate",
            "latency_rate",
            "hang_rate",
            "hang_seconds",
        ):
            return error(400, f"Unknown fault setting {key}.", param=key)
        setattr(cfg, key, float(value))
    return web.json_response({"ok": True})


async def sandbox_move_dispute(request: web.Request) -> web.Response:
    """Move a dispute as the provider would: {"status": "won", "response_due_by": "…"}."""
    body = await request.json()
    if unknown := set(body) - {"status", "response_due_by"}:
        return error(400, f"Unknown field {sorted(unknown)[0]}.", param=sorted(unknown)[0])
    pid = request.match_info["provider_dispute_id"]
    if not request.app[STORE_KEY].move_dispute(
        pid, body.get("status"), body.get("response_due_by")
    ):
        return error(404, f"No such dispute: provider_dispute_id {pid!r}.", code="resource_missing")
    return web.json_response({"ok": True})


def build_app(
    config: SandboxConfig | None = None, store: SandboxStore | None = None
) -> web.Application:
    """The sandbox application; `store` defaults to an in-memory one."""
    config = config or SandboxConfig()
    app = web.Application(
        middlewares=[json_errors, authenticate, rate_limit, strict_requests, inject_faults],
        client_max_size=JSON_BODY_LIMIT,
    )
    app[CONFIG_KEY] = config
    app[STORE_KEY] = store or SandboxStore()
    app[LIMITER_KEY] = SlidingWindowLimiter(config.rate_limit, config.rate_window)
    # by_key: admission times (monotonic seconds) per key, named key-1, key-2... in the order
    # of config.tokens (never the token itself): the per-key request log budgets are checked on
    app[STATS_KEY] = {
        "admitted": 0,
        "rate_limited": 0,
        "ambiguous": 0,
        "by_route": {},
        "by_key": {f"key-{i}": [] for i in range(1, len(app[CONFIG_KEY].tokens) + 1)},
    }
    app.router.add_get("/v1/disputes", list_disputes, allow_head=False)
    app.router.add_post("/v1/disputes/update-evidence", update_evidence)
    app.router.add_get("/v1/disputes/{dispute_id}", get_dispute, allow_head=False)
    app.router.add_post("/v1/files/upload", upload_file)
    app.router.add_get("/v1/files", list_files, allow_head=False)
    app.router.add_get("/v1/files/{file_id}/content", file_content, allow_head=False)
    app.router.add_get("/v1/openapi.json", openapi, allow_head=False)
    app.router.add_get("/_sandbox/state", sandbox_state, allow_head=False)
    app.router.add_post("/_sandbox/faults", sandbox_faults)
    app.router.add_post("/_sandbox/disputes/{provider_dispute_id}", sandbox_move_dispute)
    app.on_cleanup.append(_close_store)
    return app


async def _close_store(app: web.Application) -> None:
    app[STORE_KEY].close()
