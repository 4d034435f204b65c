"""The sandbox over loopback: every endpoint, every error path, auth, bounds and modes."""

from __future__ import annotations

import asyncio
import io
import logging

import aiohttp
import pytest

from dispute_evidence.sandbox import SandboxConfig
from tests.conftest import TOKEN, seed_rows

PDF = b"%PDF-1.4\n% test receipt\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
JPG = b"\xff\xd8\xff\xe0" + b"\x00" * 32
EXE = b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 64
EVIDENCE = {
    "products": [
        {"product_title": "Linen shirt", "price": 49.5, "quantity": 2, "currency_code": "USD"}
    ],
    "merchant_profile": {
        "merchant_id": "m_1",
        "merchant_name": "Acme",
        "merchant_website": "https://acme.test",
    },
    "shipping_tracking_numbers": ["1Z999AA10123456784"],
    "additional_evidence": {"order_number": "1001"},
}


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def call(method: str, url: str, **kw) -> tuple[int, dict, dict]:
    async with aiohttp.ClientSession() as s, s.request(method, url, **kw) as r:
        return r.status, await r.json(content_type=None), dict(r.headers)


def upload_form(content: bytes, pid: str | None, name: str = "receipt.pdf") -> aiohttp.FormData:
    form = aiohttp.FormData(default_to_multipart=True)
    form.add_field(
        "file", io.BytesIO(content), filename=name, content_type="application/octet-stream"
    )
    if pid is not None:
        form.add_field("provider_dispute_id", pid)
    return form


async def first_dispute_id(base: str) -> str:
    _, body, _ = await call("GET", f"{base}/disputes?limit=1", headers=auth())
    return body["data"][0]["id"]


async def test_list_disputes_pages_in_stable_order(sandbox):
    base = sandbox.base_url
    status, body, _ = await call("GET", f"{base}/disputes", headers=auth())
    assert status == 200 and len(body["data"]) == 3
    assert all(d["object"] == "dispute" and d["id"].startswith("dis_") for d in body["data"])
    _, page2, _ = await call("GET", f"{base}/disputes?limit=2&offset=2", headers=auth())
    assert [d["id"] for d in page2["data"]] == [body["data"][2]["id"]]


@pytest.mark.parametrize(
    ("query", "param", "code"),
    [("limit=0", "limit", "parameter_out_of_range"), ("limit=101", "limit", "parameter_out_of_range"),
     ("offset=-1", "offset", "parameter_out_of_range"), ("limit=ten", "limit", "parameter_invalid_integer")],
)  # fmt: skip
async def test_paging_bounds_name_the_param(sandbox, query, param, code):
    status, body, _ = await call("GET", f"{sandbox.base_url}/disputes?{query}", headers=auth())
    assert status == 400
    assert (
        body["type"] == "invalid_request_error" and body["param"] == param and body["code"] == code
    )


async def test_get_dispute_and_unknown_dispute(sandbox):
    dispute_id = await first_dispute_id(sandbox.base_url)
    status, body, _ = await call("GET", f"{sandbox.base_url}/disputes/{dispute_id}", headers=auth())
    assert status == 200 and body["id"] == dispute_id and body["evidence"] == {}
    status, body, _ = await call("GET", f"{sandbox.base_url}/disputes/dis_nope", headers=auth())
    assert status == 404 and body["code"] == "resource_missing" and body["param"] == "dispute_id"


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic abc"}]
)
@pytest.mark.parametrize("method_path", [("GET", "/disputes"), ("GET", "/files?dispute_id=x"),
                                         ("POST", "/files/upload"), ("POST", "/disputes/update-evidence")])  # fmt: skip
async def test_missing_or_wrong_token_is_401(sandbox, headers, method_path):
    method, path = method_path
    status, body, hdrs = await call(method, sandbox.base_url + path, headers=headers)
    assert status == 401 and body["type"] == "invalid_request_error" and body["message"]
    assert hdrs["WWW-Authenticate"].startswith("Bearer")


async def test_several_tokens_are_accepted(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=("tok_a", "tok_b")))
    for tok in ("tok_a", "tok_b"):
        status, _, _ = await call("GET", f"{sb.base_url}/disputes", headers=auth(tok))
        assert status == 200


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("DELETE", "/files", "GET"), ("PUT", "/disputes", "GET"), ("GET", "/files/upload", "POST"),
    # the literal path wins over /disputes/{dispute_id}: no GET of a dispute named "update-evidence"
    ("PATCH", "/disputes/update-evidence", "POST"), ("GET", "/disputes/update-evidence", "POST"),
    ("POST", "/disputes/dis_x", "GET"),
])  # fmt: skip
async def test_unsupported_methods_are_405_with_error_body(sandbox, method, path, allow):
    status, body, hdrs = await call(method, sandbox.base_url + path, headers=auth())
    assert status == 405 and body["code"] == "method_not_allowed" and hdrs["Allow"] == allow


async def test_unknown_query_parameter_is_400_naming_it(sandbox):
    status, body, _ = await call(
        "GET", f"{sandbox.base_url}/disputes?limit=5&status=won", headers=auth()
    )
    assert (status, body["code"], body["param"]) == (400, "parameter_unknown", "status")
    status, body, _ = await call(
        "GET", f"{sandbox.base_url}/disputes?offset={2**70}", headers=auth()
    )
    assert (status, body) == (200, {"data": []})  # past the data, however far: an empty page


async def test_malformed_multipart_is_400_not_500(sandbox):
    headers = {**auth(), "Content-Type": "multipart/form-data"}  # no boundary
    status, body, _ = await call(
        "POST", f"{sandbox.base_url}/files/upload", headers=headers, data=b"x"
    )
    assert (status, body["code"], body["param"]) == (400, "body_malformed", "body")


async def test_unknown_path_is_404_error_body(sandbox):
    status, body, _ = await call("GET", f"{sandbox.base_url}/refunds", headers=auth())
    assert (
        status == 404
        and body["type"] == "invalid_request_error"
        and "/v1/refunds" in body["message"]
    )


async def test_update_evidence_replaces_by_default(sandbox):
    url = f"{sandbox.base_url}/disputes/update-evidence"
    status, body, _ = await call(
        "POST", url, headers=auth(), json={"provider_dispute_id": "dp_test_0", "evidence": EVIDENCE}
    )
    assert (
        status == 200
        and body["provider_dispute_id"] == "dp_test_0"
        and body["dispute_id"].startswith("dis_")
    )
    await call("POST", url, headers=auth(), json={"provider_dispute_id": "dp_test_0",
                                                  "evidence": {"shipping_tracking_numbers": ["X1"]}})  # fmt: skip
    _, dispute, _ = await call(
        "GET", f"{sandbox.base_url}/disputes/{body['dispute_id']}", headers=auth()
    )
    assert dispute["evidence"] == {"shipping_tracking_numbers": ["X1"]}


async def test_update_evidence_merge_mode(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), evidence_mode="merge"))
    url = f"{sb.base_url}/disputes/update-evidence"
    _, body, _ = await call(
        "POST", url, headers=auth(), json={"provider_dispute_id": "dp_test_0", "evidence": EVIDENCE}
    )
    await call("POST", url, headers=auth(), json={"provider_dispute_id": "dp_test_0",
                                                  "evidence": {"shipping_tracking_numbers": ["X1"]}})  # fmt: skip
    _, dispute, _ = await call(
        "GET", f"{sb.base_url}/disputes/{body['dispute_id']}", headers=auth()
    )
    assert dispute["evidence"]["shipping_tracking_numbers"] == ["X1"]
    assert dispute["evidence"]["products"] == EVIDENCE["products"]


@pytest.mark.parametrize(("body", "status", "param"), [
    ({"evidence": {}}, 400, "provider_dispute_id"),
    ({"provider_dispute_id": "dp_test_0"}, 400, "evidence"),
    ({"provider_dispute_id": "dp_test_0", "evidence": {"colour": "red"}}, 400, "evidence.colour"),
    ({"provider_dispute_id": "dp_test_0", "evidence": {"products": [{"product_title": "x", "price": "9.99",
      "quantity": 1, "currency_code": "USD"}]}}, 400, "evidence.products[0].price"),
    ({"provider_dispute_id": "dp_test_0", "evidence": {"products": [{"product_title": "x", "price": 9,
      "quantity": 1, "currency_code": "usd"}]}}, 400, "evidence.products[0].currency_code"),
    ({"provider_dispute_id": "dp_test_0", "evidence": {"shipping_tracking_numbers": "1Z"}}, 400,
     "evidence.shipping_tracking_numbers"),
    ({"provider_dispute_id": "dp_missing", "evidence": {}}, 404, "provider_dispute_id"),
])  # fmt: skip
async def test_update_evidence_rejects_bad_bodies_naming_param(sandbox, body, status, param):
    got, err, _ = await call(
        "POST", f"{sandbox.base_url}/disputes/update-evidence", headers=auth(), json=body
    )
    assert got == status and err["param"] == param and err["message"]


async def test_update_evidence_refuses_non_json_and_closed_or_past_due(sandbox_factory):
    rows = seed_rows(1)
    rows.append({**seed_rows(1, "dp_closed_")[0], "status": "lost"})
    rows.append({**seed_rows(1, "dp_late_")[0], "response_due_by": "2020-01-01T00:00:00Z"})
    sb = sandbox_factory(rows=rows)
    url = f"{sb.base_url}/disputes/update-evidence"
    status, body, _ = await call("POST", url, headers=auth(), data="provider_dispute_id=x")
    assert status == 415 and body["code"] == "unsupported_media_type"
    status, body, _ = await call(
        "POST", url, headers=auth(), json={"provider_dispute_id": "dp_closed_0", "evidence": {}}
    )
    assert status == 400 and body["code"] == "dispute_closed"
    status, body, _ = await call(
        "POST", url, headers=auth(), json={"provider_dispute_id": "dp_late_0", "evidence": {}}
    )
    assert status == 400 and body["code"] == "dispute_past_due"


@pytest.mark.parametrize(
    ("content", "mime"), [(PDF, "application/pdf"), (PNG, "image/png"), (JPG, "image/jpeg")]
)
async def test_upload_and_list_files(sandbox, content, mime):
    status, body, _ = await call("POST", f"{sandbox.base_url}/files/upload", headers=auth(),
                                 data=upload_form(content, "dp_test_1", "proof.bin"))  # fmt: skip
    assert (
        status == 200
        and body["file"]["name"] == "proof.bin"
        and body["file"]["id"].startswith("file_")
    )
    status, listed, _ = await call(
        "GET", f"{sandbox.base_url}/files?dispute_id={body['dispute_id']}", headers=auth()
    )
    assert status == 200
    (f,) = listed["data"]
    assert (
        f["file_type"] == mime and f["object"] == "file" and f["dispute_id"] == body["dispute_id"]
    )
    async with aiohttp.ClientSession() as s, s.get(f["url"], headers=auth()) as r:
        assert await r.read() == content


async def test_spoofed_exe_renamed_pdf_is_415(sandbox):
    status, body, _ = await call("POST", f"{sandbox.base_url}/files/upload", headers=auth(),
                                 data=upload_form(EXE, "dp_test_0", "invoice.pdf"))  # fmt: skip
    assert status == 415 and body["code"] == "unsupported_file_type" and body["param"] == "file"


async def test_oversize_file_is_413_while_streaming(sandbox_factory):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), max_file_bytes=64 * 1024))

    async def chunks():  # a body with no Content-Length: the limit must hold while streaming
        yield PDF
        for _ in range(100):
            yield b"\x00" * 4096

    form = aiohttp.FormData()
    form.add_field("provider_dispute_id", "dp_test_0")
    form.add_field("file", chunks(), filename="big.pdf", content_type="application/pdf")
    try:
        status, body, _ = await call(
            "POST", f"{sb.base_url}/files/upload", headers=auth(), data=form
        )
    except aiohttp.ClientError:  # the server may close before the body is all sent
        status, body = 413, {"code": "file_too_large"}
    assert status == 413 and body["code"] == "file_too_large"
    assert sb.snapshot()["dp_test_0"]["files"] == []


async def test_oversize_by_content_length_is_refused_before_reading(sandbox):
    big = PDF + b"\x00" * (10 * 1024 * 1024 + 70_000)
    status, body, _ = await call("POST", f"{sandbox.base_url}/files/upload", headers=auth(),
                                 data=upload_form(big, "dp_test_0"))  # fmt: skip
    assert status == 413 and body["param"] == "file"


@pytest.mark.parametrize(("form_fields", "status", "param"), [
    ({"provider_dispute_id": "dp_test_0"}, 400, "file"),
    ({"file": PDF}, 400, "provider_dispute_id"),
    ({"file": b"", "provider_dispute_id": "dp_test_0"}, 400, "file"),
    ({"file": PDF, "provider_dispute_id": "dp_nope"}, 404, "provider_dispute_id"),
    ({"file": PDF, "provider_dispute_id": "dp_test_0", "note": "hi"}, 400, "note"),
])  # fmt: skip
async def test_upload_field_errors(sandbox, form_fields, status, param):
    form = aiohttp.FormData(default_to_multipart=True)
    for k, v in form_fields.items():
        if k == "file":
            form.add_field(k, v, filename="r.pdf", content_type="application/pdf")
        else:
            form.add_field(k, v)
    got, body, _ = await call("POST", f"{sandbox.base_url}/files/upload", headers=auth(), data=form)
    assert got == status and body["param"] == param


async def test_concurrent_uploads_all_land_once(sandbox):
    async with aiohttp.ClientSession(headers=auth()) as s:

        async def one(i: int) -> int:
            async with s.post(
                f"{sandbox.base_url}/files/upload",
                data=upload_form(PDF + bytes([i]), "dp_test_2", f"r{i}.pdf"),
            ) as r:
                return r.status

        statuses = await asyncio.gather(*(one(i) for i in range(40)))
    assert statuses == [200] * 40
    files = sandbox.snapshot()["dp_test_2"]["files"]
    assert sorted(f["file_name"] for f in files) == sorted(f"r{i}.pdf" for i in range(40))
    assert len({f["sha256"] for f in files}) == 40


async def test_list_files_errors(sandbox):
    status, body, _ = await call("GET", f"{sandbox.base_url}/files", headers=auth())
    assert status == 400 and body["param"] == "dispute_id"
    status, body, _ = await call(
        "GET", f"{sandbox.base_url}/files?dispute_id=dis_nope", headers=auth()
    )
    assert status == 404 and body["param"] == "dispute_id"


async def test_access_log_has_one_line_per_request_and_no_token(sandbox, caplog):
    caplog.set_level(logging.INFO, logger="dispute_evidence.sandbox.access")
    await call("GET", f"{sandbox.base_url}/disputes?limit=1", headers=auth())
    await call("POST", f"{sandbox.base_url}/disputes/update-evidence", headers=auth(),
               json={"provider_dispute_id": "dp_test_0", "evidence": EVIDENCE})  # fmt: skip
    await asyncio.sleep(0.05)
    lines = [r.getMessage() for r in caplog.records if r.name == "dispute_evidence.sandbox.access"]
    assert len(lines) == 2 and "GET /v1/disputes?limit=1" in lines[0]
    assert all(TOKEN not in line and "Linen shirt" not in line for line in lines)
    assert TOKEN not in repr(sandbox.config)


async def test_binds_to_loopback_by_default(sandbox):
    assert sandbox.base_url.startswith("http://127.0.0.1:") and sandbox.base_url.endswith("/v1")
