"""The sandbox's real responses conform to the OpenAPI 3.1 document it serves."""

from __future__ import annotations

import re

import aiohttp
import jsonschema

from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN
from tests.integration.sandbox.test_sandbox_http import EVIDENCE, EXE, PDF, auth, upload_form


def _operation(doc: dict, method: str, path: str) -> tuple[dict, bool]:
    """The documented operation for (method, path) and whether the method is documented there.

    A literal path wins over a template (update-evidence vs {dispute_id}); for a method the
    path does not support, the path's own operation documents the 405.
    """
    templates = sorted(doc["paths"], key=lambda t: "{" in t)
    for template in templates:
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path):
            item = doc["paths"][template]
            if method.lower() in item:
                return item[method.lower()], True
    for template in templates:
        if re.match("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$", path):
            return next(iter(doc["paths"][template].values())), False
    raise AssertionError(f"{method} {path} is not in the OpenAPI document")


async def _check(session, doc, method, base, path, **kw) -> int:
    async with session.request(method, base + path, **kw) as r:
        body = await r.json(content_type=None)
        op, supported = _operation(doc, method, path.split("?")[0])
        assert supported or r.status == 405, (
            f"{method} {path}: undocumented method answered {r.status}"
        )
        assert str(r.status) in op["responses"], f"{method} {path}: {r.status} not documented"
        schema = op["responses"][str(r.status)]["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator({**schema, "components": doc["components"]}).validate(body)
        if r.status == 429:
            assert "Retry-After" in r.headers
        return r.status


async def test_every_operation_and_error_matches_the_document(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), rate_limit=40, rate_window=60))
    base = sb.base_url
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{base}/openapi.json") as r:
            doc = await r.json()
        assert doc["openapi"].startswith("3.1") and doc["info"]["version"] == "1.0.0"
        seen = set()
        h = auth()

        async def check(method, path, **kw):
            seen.add(
                (
                    method,
                    re.sub(r"dis_\w+", "{id}", path.split("?")[0]),
                    await _check(s, doc, method, base, path, **kw),
                )
            )

        await check("GET", "/disputes?limit=2", headers=h)
        await check("GET", "/disputes?limit=500", headers=h)
        await check("GET", "/disputes")
        async with s.get(f"{base}/disputes?limit=1", headers=h) as r:
            did = (await r.json())["data"][0]["id"]
        await check("GET", f"/disputes/{did}", headers=h)
        await check("GET", "/disputes/dis_missing", headers=h)
        await check("DELETE", f"/disputes/{did}", headers=h)
        await check(
            "POST",
            "/disputes/update-evidence",
            headers=h,
            json={"provider_dispute_id": "dp_test_0", "evidence": EVIDENCE},
        )
        await check(
            "POST",
            "/disputes/update-evidence",
            headers=h,
            json={"provider_dispute_id": "dp_test_0", "evidence": {"x": 1}},
        )
        await check(
            "POST",
            "/disputes/update-evidence",
            headers=h,
            json={"provider_dispute_id": "dp_zz", "evidence": {}},
        )
        await check("POST", "/disputes/update-evidence", headers=h, data="x")
        await check("POST", "/files/upload", headers=h, data=upload_form(PDF, "dp_test_0"))
        await check("POST", "/files/upload", headers=h, data=upload_form(EXE, "dp_test_0"))
        await check("POST", "/files/upload", headers=h, data=upload_form(PDF, None))
        await check("POST", "/files/upload", headers=h, data=upload_form(PDF, "dp_zz"))
        await check("GET", "/files/upload", headers=h)
        await check("GET", f"/files?dispute_id={did}", headers=h)
        await check("GET", "/files?dispute_id=dis_missing", headers=h)
        await check("GET", "/files", headers=h)
        await check("GET", f"/files?dispute_id={did}")
        await check("PUT", "/files", headers=h)
        for _ in range(40):
            await check("GET", "/disputes?limit=1", headers=h)
    statuses = {st for *_, st in seen}
    assert {200, 400, 401, 404, 405, 415, 429} <= statuses
