"""Resource methods and the requestor (response -> model or typed error)."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import aiohttp
from pydantic import BaseModel, SecretStr, ValidationError

from dispute_evidence.api.config import ApiSettings, api_environ, env_name
from dispute_evidence.api.errors import FileRejected, InvalidRequest, UnexpectedResponse
from dispute_evidence.api.models import (
    Dispute,
    DisputePage,
    Evidence,
    File,
    FilePage,
    UpdateEvidenceResult,
    UploadResult,
)
from dispute_evidence.api.pacer import RequestGate, RequestPacer
from dispute_evidence.api.transport import HttpTransport, RawResponse, Transport
from dispute_evidence.filetypes import CLIENT_MAX_FILE_BYTES, EXTENSIONS, sniff, sniff_path
from dispute_evidence.names import upload_name

M = TypeVar("M", bound=BaseModel)
MAX_PAGE = 100


def _parse(model: type[M], response: RawResponse) -> M:
    try:
        return model.model_validate_json(response.body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise UnexpectedResponse(
            f"The API's answer is not a valid {model.__name__}: {where}: {first['msg']}",
            status=response.status,
            request=response.request,
        ) from None


def _check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidRequest(f"limit must be between 1 and {MAX_PAGE}, got {limit}", param="limit")
    if offset < 0:
        raise InvalidRequest(f"offset must be at least 0, got {offset}", param="offset")


def check_evidence_file(
    path: Path, content: bytes | None = None, name: str | None = None
) -> tuple[str, int]:
    """(MIME type, size) of a file the API would take, or FileRejected naming the reason and
    the file by `name` (the name it goes to the API under; else the path's, which for a stored
    copy is only its hash)."""
    name = name or path.name
    try:
        if content is not None:
            size, mime = len(content), sniff(content[:16])
        else:
            size = path.stat().st_size
            mime = sniff_path(path) if size else None
    except OSError as exc:
        raise FileRejected(
            f"{name}: cannot read the file ({exc.strerror}).", param="file"
        ) from None
    if size == 0:
        raise FileRejected(f"{name}: the file is empty.", param="file")
    if size > CLIENT_MAX_FILE_BYTES:
        raise FileRejected(f"{name}: {size:,} bytes is over the 10 MB limit.", param="file")
    if mime is None:
        raise FileRejected(
            f"{name}: the content is not PDF, PNG or JPG (whatever the name says).",
            param="file",
        )
    return mime, size


class DisputeEvidenceClient:
    """Async client for every endpoint of the Dispute Evidence API.

    One instance per API key: its token bucket is shared by every concurrent call.
    Use as `async with DisputeEvidenceClient(...) as client:`. `transport=` replaces how an
    attempt is sent (default: aiohttp); tests pass `api.testing.MockTransport`.
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | SecretStr | None = None,
        *,
        settings: ApiSettings | None = None,
        pacer: RequestPacer | None = None,
        gate: RequestGate | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
        transport: HttpTransport | None = None,
        **overrides: Any,
    ) -> None:
        if settings is None:
            args = {
                k: v
                for k, v in {"base_url": base_url, "token": token, **overrides}.items()
                if v is not None
            }
            settings = ApiSettings.model_validate({**api_environ(os.environ), **args})
        if missing := settings.missing():
            raise ValueError(", ".join(f"{env_name(m)} is not set" for m in missing))
        self.settings = settings
        self._transport = Transport(settings, pacer=pacer, gate=gate, sleep=sleep, http=transport)

    def __repr__(self) -> str:
        return f"DisputeEvidenceClient(base_url={self.settings.base_url!r}, token=***)"

    @property
    def stats(self) -> Any:
        return self._transport.stats

    async def __aenter__(self) -> DisputeEvidenceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._transport.close()

    # -- disputes ---------------------------------------------------------------
    async def list_disputes(self, limit: int = 10, offset: int = 0) -> list[Dispute]:
        """One page of `GET /disputes`."""
        _check_page(limit, offset)
        r = await self._transport.request(
            "GET", "/disputes", idempotent=True, params={"limit": limit, "offset": offset}
        )
        return _parse(DisputePage, r).data

    async def iter_disputes(self, page_size: int = MAX_PAGE) -> AsyncIterator[Dispute]:
        """Every dispute, paging with limit/offset until a short page."""
        offset = 0
        while True:
            page = await self.list_disputes(page_size, offset)
            for dispute in page:
                yield dispute
            if len(page) < page_size:
                return
            offset += page_size

    async def get_dispute(self, dispute_id: str) -> Dispute:
        """`GET /disputes/{dispute_id}`."""
        r = await self._transport.request(
            "GET", f"/disputes/{quote(dispute_id, safe='')}", idempotent=True
        )
        return _parse(Dispute, r)

    async def update_evidence(
        self, provider_dispute_id: str, evidence: Evidence | dict[str, Any]
    ) -> UpdateEvidenceResult:
        """`POST /disputes/update-evidence` with the complete evidence.

        Treated as idempotent: it carries the full state, so repeating it converges.
        """
        ev = evidence if isinstance(evidence, Evidence) else Evidence.model_validate(evidence)
        body = {
            "provider_dispute_id": provider_dispute_id,
            "evidence": ev.model_dump(mode="json", exclude_none=True),
        }
        r = await self._transport.request(
            "POST", "/disputes/update-evidence", idempotent=True, json=body
        )
        return _parse(UpdateEvidenceResult, r)

    # -- files ------------------------------------------------------------------
    async def upload_file(
        self,
        provider_dispute_id: str,
        path: str | Path,
        file_name: str | None = None,
        *,
        content: bytes | None = None,
    ) -> UploadResult:
        """`POST /files/upload`, streaming from `path` after checking type and size locally;
        with `content`, exactly those bytes are sent (the caller has checked them).

        Not idempotent: a 5xx, timeout or dropped connection raises OutcomeUnknown.
        """
        path = Path(path)
        mime, _ = check_evidence_file(path, content, file_name)
        name = upload_name(file_name or path.name)  # no control characters in a header
        if not Path(name).suffix:
            name += EXTENSIONS[mime]

        def form() -> aiohttp.FormData:  # rebuilt per attempt: the file is re-opened
            # the name as given (UTF-8), not percent-encoded: the API keeps it verbatim and
            # listings must show the name we recorded; upload_name left nothing to escape
            data = aiohttp.FormData(quote_fields=False)
            data.add_field("provider_dispute_id", provider_dispute_id)
            # bytes over 1 MB as a stream: aiohttp warns that raw bytes block the event loop
            body = path.open("rb") if content is None else io.BytesIO(content)
            data.add_field("file", body, filename=name, content_type=mime)
            return data

        r = await self._transport.request(
            "POST",
            "/files/upload",
            idempotent=False,
            form=form,
            timeout=self.settings.upload_timeout,
        )
        return _parse(UploadResult, r)

    async def list_files(self, dispute_id: str, limit: int = 10, offset: int = 0) -> list[File]:
        """One page of `GET /files` for a dispute."""
        _check_page(limit, offset)
        params = {"dispute_id": dispute_id, "limit": limit, "offset": offset}
        r = await self._transport.request("GET", "/files", idempotent=True, params=params)
        return _parse(FilePage, r).data

    async def iter_files(self, dispute_id: str, page_size: int = MAX_PAGE) -> AsyncIterator[File]:
        """Every file of a dispute."""
        offset = 0
        while True:
            page = await self.list_files(dispute_id, page_size, offset)
            for f in page:
                yield f
            if len(page) < page_size:
                return
            offset += page_size
