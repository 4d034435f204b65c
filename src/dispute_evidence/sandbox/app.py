"""The sandbox's aiohttp application: routes, auth, rate limit, fault injection.

Request pipeline (outermost first): JSON errors -> auth -> rate limit -> faults -> handler.
Every choice the spec leaves "not shown" is listed in docs/api-choices.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from dispute_evidence.filetypes import EXTENSIONS, SANDBOX_MAX_FILE_BYTES, SNIFF_BYTES, sniff
from dispute_evidence.sandbox.ids import utcnow
from dispute_evidence.sandbox.ratelimit import SlidingWindowLimiter, retry_after_header
from dispute_evidence.sandbox.seed import CLOSED_STATUSES
from dispute_evidence.sandbox.store import SandboxStore
from dispute_evidence.sandbox.validation import Invalid, validate_update_body

log = logging.getLogger("dispute_evidence.sandbox")
ACCESS_LOG_FORMAT = '%a "%r" %s %b %Tfs'  # request line has no body and no headers, so no token
JSON_BODY_LIMIT = 1024 * 1024
CONFIG_KEY: web.AppKey[SandboxConfig] = web.AppKey("config")
STORE_KEY: web.AppKey[SandboxStore] = web.AppKey("store")
LIMITER_KEY: web.AppKey[SlidingWindowLimiter] = web.AppKey("limiter")
STATS_KEY: web.AppKey[dict[str, int]] = web.AppKey("stats")
TOKEN_KEY: web.RequestKey[str] = web.RequestKey("token")


@dataclass
class SandboxConfig:
    """Everything the sandbox can be told; each fault has its own probability (0..1)."""

    tokens: tuple[str, ...] = ("sk_test_sandbox",)
    rate_limit: int = 5000
    rate_window: float = 3600.0
    evidence_mode: str = "replace"  # or "merge": top-level evidence sections are merged
    max_file_bytes: int = SANDBOX_MAX_FILE_BYTES
    fail_rate: float = 0.0  # 503 before doing anything
    ambiguous_rate: float = 0.0  # POSTs: commit the effect, then 502 or drop the connection
    latency_rate: float = 0.0
    latency_ms: tuple[int, int] = (20, 200)
    hang_rate: float = 0.0  # sleep hang_seconds, then 504 without doing anything
    hang_seconds: float = 35.0
    seed: int | None = None
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __repr__(self) -> str:  # tokens are secrets
        return f"SandboxConfig(tokens=<{len(self.tokens)} hidden>, rate_limit={self.rate_limit})"


def error(status: int, message: str, *, type_: str = "invalid_request_error", code: str | None = None,
          param: str | None = None, headers: dict[str, str] | None = None) -> web.Response:  # fmt: skip
    """A response carrying the spec's Error body."""
    body: dict[str, Any] = {"type": type_, "message": message}
    if code:
        body["code"] = code
    if param:
        body["param"] = param
    return web.json_response(body, status=status, headers=headers)


# -- middlewares ----------------------------------------------------------------
@web.middleware
async def json_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPMethodNotAllowed as exc:
        allow = ", ".join(sorted(exc.allowed_methods))
        return error(405, f"{request.method} is not allowed on {request.path}; use {allow}.",
                     code="method_not_allowed", headers={"Allow": allow})  # fmt: skip
    except web.HTTPNotFound:
        return error(404, f"Unrecognized request URL ({request.method} {request.path}).",
                     code="resource_missing")  # fmt: skip
    except web.HTTPRequestEntityTooLarge:
        return error(413, "Request body too large.", code="request_too_large")
    except web.HTTPException:
        raise
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error(500, "An internal error occurred.", type_="api_error", code="internal_error")


def _is_public(request: web.Request) -> bool:
    return request.path == "/v1/openapi.json" or not (
        request.path.startswith("/v1") or request.path.startswith("/_sandbox")
    )


@web.middleware
async def authenticate(request: web.Request, handler: Any) -> web.StreamResponse:
    if _is_public(request):
        return await handler(request)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return error(401, "No API key provided. Send 'Authorization: Bearer <API_KEY>'.",
                     code="api_key_missing", headers={"WWW-Authenticate": "Bearer"})  # fmt: skip
    if token.strip() not in request.app[CONFIG_KEY].tokens:
        return error(401, "Invalid API key provided.", code="api_key_invalid",
                     headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})  # fmt: skip
    request[TOKEN_KEY] = token.strip()
    return await handler(request)


@web.middleware
async def rate_limit(request: web.Request, handler: Any) -> web.StreamResponse:
    token = request.get(TOKEN_KEY)
    if token is None or request.path.startswith("/_sandbox"):
        return await handler(request)
    wait = request.app[LIMITER_KEY].admit(token)
    if wait is not None:
        request.app[STATS_KEY]["rate_limited"] += 1
        return error(429, "Too many requests; retry after the time in Retry-After.",
                     code="rate_limited", headers={"Retry-After": retry_after_header(wait)})  # fmt: skip
    request.app[STATS_KEY]["admitted"] += 1
    return await handler(request)


QUERY_PARAMS = {"/v1/disputes": {"limit", "offset"}, "/v1/files": {"dispute_id", "limit", "offset"}}
LITERAL_PATHS = {"/v1/disputes/update-evidence": "POST"}  # never read as /disputes/{dispute_id}


@web.middleware
async def strict_requests(request: web.Request, handler: Any) -> web.StreamResponse:
    """Unknown query parameters are refused naming the parameter (as Stripe does), and a
    literal path answers only its own method instead of falling through to a template."""
    if (method := LITERAL_PATHS.get(request.path)) and request.method != method:
        raise web.HTTPMethodNotAllowed(request.method, [method])
    resource = request.match_info.route.resource
    checked = (
        resource is not None
        and request.path.startswith("/v1/")
        and request.path != "/v1/openapi.json"
    )
    if checked and (
        unknown := sorted(set(request.query) - QUERY_PARAMS.get(resource.canonical, set()))
    ):
        return error(400, f"Received unknown parameter: {unknown[0]!r}.", code="parameter_unknown",
                     param=unknown[0])  # fmt: skip
    return await handler(request)


@web.middleware
async def inject_faults(request: web.Request, handler: Any) -> web.StreamResponse:
    cfg = request.app[CONFIG_KEY]
    if not request.path.startswith("/v1") or request.match_info.http_exception is not None:
        return await handler(request)
    rng = cfg.rng
    if cfg.hang_rate and rng.random() < cfg.hang_rate:
        await asyncio.sleep(cfg.hang_seconds)
        return error(504, "Injected hang.", type_="api_error", code="injected_hang")
    if cfg.latency_rate and rng.random() < cfg.latency_rate:
        await asyncio.sleep(rng.uniform(*cfg.latency_ms) / 1000)
    if cfg.fail_rate and rng.random() < cfg.fail_rate:
        return error(
            503, "Injected failure; nothing was done.", type_="api_error", code="injected_failure"
        )
    response = await handler(request)
    if request.method == "POST" and cfg.ambiguous_rate and rng.random() < cfg.ambiguous_rate:
        request.app[STATS_KEY]["ambiguous"] += 1
        if rng.random() < 0.5 and request.transport is not None:
            request.transport.abort()  # the effect is committed; the client never hears
            return response  # written to a closed transport: dropped silently
        return error(502, "Injected bad gateway after the change was applied.",
                     type_="api_error", code="injected_ambiguous")  # fmt: skip
    return response


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
        "id": f.id, "object": "file", "created_at": f.created_at, "url": _file_url(request, f.id),
        "file_name": f.file_name, "file_type": f.file_type, "dispute_id": f.dispute_id,
    }  # fmt: skip


def _file_url(request: web.Request, file_id: str) -> str:
    return f"{request.scheme}://{request.host}/v1/files/{file_id}/content"


# -- handlers -------------------------------------------------------------------
async def list_disputes(request: web.Request) -> web.Response:
    try:
        limit, offset = _page(request)
    except Invalid as exc:
        return _invalid(exc)
    return web.json_response({"data": request.app[STORE_KEY].list_disputes(limit, offset)})


async def get_dispute(request: web.Request) -> web.Response:
    dispute = request.app[STORE_KEY].get_dispute(request.match_info["dispute_id"])
    if dispute is None:
        return error(404, f"No such dispute: {request.match_info['dispute_id']!r}.",
                     code="resource_missing", param="dispute_id")  # fmt: skip
    return web.json_response(dispute)


def _open_dispute(request: web.Request, pid: str) -> Any:
    """The stored dispute row for `pid` if it can still take evidence, else raise a response."""
    row = request.app[STORE_KEY].dispute_by_provider_id(pid)
    if row is None:
        raise _Reply(error(404, f"No such dispute: provider_dispute_id {pid!r}.",
                           code="resource_missing", param="provider_dispute_id"))  # fmt: skip
    if row["status"] in CLOSED_STATUSES:
        raise _Reply(error(400, f"Dispute {row['id']} is {row['status']}; it no longer accepts evidence.",
                           code="dispute_closed", param="provider_dispute_id"))  # fmt: skip
    if datetime.fromisoformat(row["response_due_by"]) < utcnow():
        raise _Reply(error(400, f"Dispute {row['id']} was due by {row['response_due_by']}; evidence is closed.",
                           code="dispute_past_due", param="provider_dispute_id"))  # fmt: skip
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
            "dispute_id": row["id"],
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
            raise _Reply(error(413, f"File exceeds the {max_bytes // (1024 * 1024)} MB limit.",
                               code="file_too_large", param="file"))  # fmt: skip
    return bytes(data)


async def upload_file(request: web.Request) -> web.Response:
    cfg = request.app[CONFIG_KEY]
    if request.content_type != "multipart/form-data":
        return error(415, "Send the upload as multipart/form-data.", code="unsupported_media_type")
    if request.content_length and request.content_length > cfg.max_file_bytes + 65536:
        return error(413, f"File exceeds the {cfg.max_file_bytes // (1024 * 1024)} MB limit.",
                     code="file_too_large", param="file")  # fmt: skip
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
    return web.json_response({
        "message": "File uploaded successfully", "dispute_id": row["id"], "provider_dispute_id": pid,
        "file": {"id": stored.id, "url": _file_url(request, stored.id), "name": stored.file_name},
    })  # fmt: skip


async def _read_upload_form(request: web.Request, max_bytes: int) -> dict[str, tuple[Any, Any]]:
    fields: dict[str, tuple[Any, Any]] = {}
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
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
        raise _Reply(error(415, "Unsupported file type: the content is not PDF, PNG or JPG.",
                           code="unsupported_file_type", param="file"))  # fmt: skip
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
    files = store.list_files(dispute_id, limit, offset)
    return web.json_response({"data": [_file_json(request, f) for f in files]})


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
        if key not in ("fail_rate", "ambiguous_rate", "latency_rate", "hang_rate", "hang_seconds"):
            return error(400, f"Unknown fault setting {key}.", param=key)
        setattr(cfg, key, float(value))
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
    app[STATS_KEY] = {"admitted": 0, "rate_limited": 0, "ambiguous": 0}
    app.router.add_get("/v1/disputes", list_disputes, allow_head=False)
    app.router.add_post("/v1/disputes/update-evidence", update_evidence)
    app.router.add_get("/v1/disputes/{dispute_id}", get_dispute, allow_head=False)
    app.router.add_post("/v1/files/upload", upload_file)
    app.router.add_get("/v1/files", list_files, allow_head=False)
    app.router.add_get("/v1/files/{file_id}/content", file_content, allow_head=False)
    app.router.add_get("/v1/openapi.json", openapi, allow_head=False)
    app.router.add_get("/_sandbox/state", sandbox_state, allow_head=False)
    app.router.add_post("/_sandbox/faults", sandbox_faults)
    app.on_cleanup.append(_close_store)
    return app


async def _close_store(app: web.Application) -> None:
    app[STORE_KEY].close()
