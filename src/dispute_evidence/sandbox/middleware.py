"""The sandbox's request pipeline, outermost first: JSON errors -> auth -> rate limit ->
strict requests -> fault injection -> handler."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from dispute_evidence.sandbox.app_config import CONFIG_KEY, LIMITER_KEY, STATS_KEY, TOKEN_KEY, error
from dispute_evidence.sandbox.ratelimit import retry_after_header

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

log = logging.getLogger("dispute_evidence.sandbox")
LOGIN_PAGE = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in</body></html>"


# -- middlewares ----------------------------------------------------------------
@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPMethodNotAllowed as exc:
        allow = ", ".join(sorted(exc.allowed_methods))
        return error(
            405,
            f"{request.method} is not allowed on {request.path}; use {allow}.",
            code="method_not_allowed",
            headers={"Allow": allow},
        )
    except web.HTTPNotFound:
        return error(
            404,
            f"Unrecognized request URL ({request.method} {request.path}).",
            code="resource_missing",
        )
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
async def authenticate(request: web.Request, handler: Handler) -> web.StreamResponse:
    if _is_public(request):
        return await handler(request)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return error(
            401,
            "No API key provided. Send 'Authorization: Bearer <API_KEY>'.",
            code="api_key_missing",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if token.strip() not in request.app[CONFIG_KEY].tokens:
        return error(
            401,
            "Invalid API key provided.",
            code="api_key_invalid",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
    request[TOKEN_KEY] = token.strip()
    return await handler(request)


@web.middleware
async def rate_limit(request: web.Request, handler: Handler) -> web.StreamResponse:
    token = request.get(TOKEN_KEY)
    if token is None or request.path.startswith("/_sandbox"):
        return await handler(request)
    wait = request.app[LIMITER_KEY].admit(token)
    if wait is not None:
        request.app[STATS_KEY]["rate_limited"] += 1
        return error(
            429,
            "Too many requests; retry after the time in Retry-After.",
            code="rate_limited",
            headers={"Retry-After": retry_after_header(wait)},
        )
    stats = request.app[STATS_KEY]
    stats["admitted"] += 1
    route = request.match_info.route.resource
    key = f"{request.method} {route.canonical if route is not None else request.path}"
    stats["by_route"][key] = stats["by_route"].get(key, 0) + 1
    label = f"key-{request.app[CONFIG_KEY].tokens.index(token) + 1}"
    stats["by_key"].setdefault(label, []).append(time.monotonic())
    return await handler(request)


QUERY_PARAMS = {"/v1/disputes": {"limit", "offset"}, "/v1/files": {"dispute_id", "limit", "offset"}}
LITERAL_PATHS = {"/v1/disputes/update-evidence": "POST"}  # never read as /disputes/{dispute_id}


@web.middleware
async def strict_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
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
        unknown := sorted(
            set(request.query) - QUERY_PARAMS.get(resource.canonical if resource else "", set())
        )
    ):
        return error(
            400,
            f"Received unknown parameter: {unknown[0]!r}.",
            code="parameter_unknown",
            param=unknown[0],
        )
    return await handler(request)


@web.middleware
async def inject_faults(request: web.Request, handler: Handler) -> web.StreamResponse:
    cfg = request.app[CONFIG_KEY]
    if not request.path.startswith("/v1") or request.match_info.http_exception is not None:
        return await handler(request)
    if cfg.html_reads and request.method == "GET":  # a proxy's login page in front of it
        return web.Response(text=LOGIN_PAGE, content_type="text/html")
    rng = cfg.rng
    if cfg.hang_rate and rng.random() < cfg.hang_rate:
        await asyncio.sleep(cfg.hang_seconds)
        return error(504, "Injected hang.", type_="api_error", code="injected_hang")
    if cfg.latency_rate and rng.random() < cfg.latency_rate:
        await asyncio.sleep(rng.uniform(*cfg.latency_ms) / 1000)
    if cfg.fail_rate and rng.random() < cfg.fail_rate:
        wait = {"Retry-After": f"{cfg.fail_retry_after:.0f}"} if cfg.fail_retry_after else None
        return error(
            503,
            "Injected failure; nothing was done.",
            type_="api_error",
            code="injected_failure",
            headers=wait,
        )
    response = await handler(request)
    if request.method == "POST" and cfg.ambiguous_rate and rng.random() < cfg.ambiguous_rate:
        request.app[STATS_KEY]["ambiguous"] += 1
        if rng.random() < 0.5 and request.transport is not None:
            request.transport.abort()  # the effect is committed; the client never hears
            return response  # written to a closed transport: dropped silently
        return error(
            502,
            "Injected bad gateway after the change was applied.",
            type_="api_error",
            code="injected_ambiguous",
        )
    return response
