"""The HTTP face of the referee: a FastAPI application over `referee.service.Referee`.

FastAPI (on Starlette, served by uvicorn) because it generates the OpenAPI document from pydantic
models: the request body's schema is the contract's own event union (`events.models.Event`) and
the answers are the models below, so the document cannot drift from the code; Starlette alone
only builds one from hand-written docstring YAML. The event body is read raw and parsed by
`events.codec.parse_line`, the same function `paiju ingest` uses, so a line is refused here
with exactly the code ingest would give it (FastAPI's own validation would answer in its format).

Every answer is JSON; no answer carries a stack trace or a file path (errors are logged on the
server's stderr only).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import orjson
from fastapi import FastAPI, Header, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException

from events.errors import ContractError, ErrorCode
from events.models import AnyEvent, Event
from referee.auth import RateLimit, Tokens
from referee.journal import JournalFailed
from referee.live import LiveMatch
from referee.service import Answer, NotYours, Referee, read

log = logging.getLogger("paiju.referee")

MATCH_ID_PATTERN = r"^[A-Za-z0-9_.:\-]{1,128}$"
NDJSON = "application/x-ndjson"
MULTIPLEXED = "/v1/events"
UNAUTHORIZED = (401, "unauthorized", "a valid `Authorization: Bearer TOKEN` header is required", {"WWW-Authenticate": "Bearer"})


# ---------------------------------------------------------------------- answer models (OpenAPI)


class ErrorInfo(BaseModel):
    code: ErrorCode
    message: str


class EventAnswer(BaseModel):
    """The verdict on one event (one JSON object; one JSON line per event for an NDJSON batch).

    `match_id` is null only on `/v1/events` for a line whose match cannot be read."""

    match_id: str | None
    seq: int | None
    accepted: bool
    error: ErrorInfo | None
    status: Literal["finished", "incomplete"] | None
    turn: int | None
    phase: str | None


class MatchState(BaseModel):
    """The §6 replay result of the match's accepted events, the next seq and the game's view."""

    match_id: str
    game: str | None
    status: Literal["finished", "incomplete", "invalid"]
    events: int
    error: dict[str, Any] | None
    winners: list[int]
    deltas: list[int] | None
    items: list[dict[str, Any]]
    recorded_deltas: list[int] | None
    settlement_matches: bool | None
    chain_ok: bool | None
    next_seq: int
    view: dict[str, Any] | None


class LegalActions(BaseModel):
    match_id: str
    next_seq: int
    status: Literal["finished", "incomplete"]
    turn: int | None
    phase: str
    legal: list[dict[str, Any]]


class Problem(BaseModel):
    """A request refused before any event was read (auth, size, rate, route)."""

    error: dict[str, str]


class Health(BaseModel):
    status: Literal["ok", "failing"]
    matches: int
    open_matches: int


# ---------------------------------------------------------------------- helpers


def _json(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(_dumps(obj), status, headers, media_type="application/json")


def _problem(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return _json({"error": {"code": code, "message": message}}, status, headers)


def _dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept): orjson, a tenth of `json.dumps`'s cost per answer;
    `json.dumps` for what orjson refuses (an integer beyond 64 bits read back from a bad line)."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _problem_parts(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    return status, {"content-type": "application/json", **(headers or {})}, _dumps({"error": {"code": code, "message": message}})


def _event_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """The contract event union's JSON Schema with its definitions moved to OpenAPI components."""
    schema = TypeAdapter(Event).json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return schema, defs


_ANSWER = {"model": EventAnswer, "content": {NDJSON: {"schema": {"$ref": "#/components/schemas/EventAnswer"}}}}


def create_app(referee: Referee, tokens: Tokens, *, max_body: int = 4 << 20, rate: RateLimit | None = None,
               on_start: Any = None, on_stop: Any = None) -> Any:  # fmt: skip
    """The ASGI application (the FastAPI app behind the event route's fast path, `.fastapi`).

    `on_start`/`on_stop` run in the server's event loop (SIGHUP, the publisher).
    """
    limiter = rate or RateLimit(0)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if on_start is not None:
            on_start(asyncio.get_running_loop())
        yield
        if on_stop is not None:
            on_stop()

    app = FastAPI(title="paiju referee", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Live referee: checks each event of a match as the game server sends it (events.md).")  # fmt: skip

    metrics = referee.metrics
    pacer = referee.gc_pacer

    def owned(authorization: str | None, match_id: str) -> LiveMatch | Response:
        """The token's match, or the 401/404 answer."""
        owner = tokens.owner(authorization)
        if owner is None:
            return _problem(*UNAUTHORIZED)
        m = referee.get(owner, match_id)
        if m is None:
            return _problem(404, "not_found", f"no match {match_id} for this token")
        return m

    @app.post(
        "/v1/matches/{match_id}/events",
        summary="Send one event (JSON) or a batch (NDJSON, one answer line per event)",
        response_model=None,
        responses={200: _ANSWER, 409: _ANSWER, 422: _ANSWER, 401: {"model": Problem}, 404: {"model": Problem},
                   413: {"model": Problem}, 429: {"model": Problem}, 503: {"model": Problem}},
        openapi_extra={"requestBody": {"required": True, "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Event"}},
            NDJSON: {"schema": {"type": "string", "description": "events as JSON Lines, one per line"}},
        }}},
    )
    async def post_events(
        request: Request,
        match_id: Annotated[str, Path(pattern=MATCH_ID_PATTERN)],
        authorization: Annotated[str | None, Header()] = None,
    ) -> Response:
        # served by `fast_events` below; FastAPI reaches this only if that path is bypassed
        return await _via_fastapi(request, match_id, authorization)

    async def handle_events(match_id: str | None, authorization: str | None, content_type: str | None,
                            content_length: str | None, chunks: AsyncIterator[bytes]) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
        """POST /v1/matches/{match_id}/events, or /v1/events when `match_id` is None → (HTTP status, headers, body)."""
        t0 = time.perf_counter()
        owner = tokens.owner(authorization)
        if owner is None:
            return _problem_parts(*UNAUTHORIZED)
        if content_length is not None and content_length.isdigit() and int(content_length) > max_body:
            return _problem_parts(413, "too_large", f"the body exceeds {max_body} bytes")
        buf = bytearray()
        async for c in chunks:
            buf += c
            if len(buf) > max_body:
                return _problem_parts(413, "too_large", f"the body exceeds {max_body} bytes")
        body = bytes(buf)
        batch = (content_type or "").split(";")[0].strip().lower() == NDJSON
        lines = [ln for ln in (x.strip() for x in body.split(b"\n")) if ln] if batch else [body.strip()]
        if not lines:
            lines = [b""]
        wait = limiter.take(owner, len(lines))
        if wait > 0:
            return _problem_parts(429, "rate_limited", "too many events for this token; slow down",
                                  {"Retry-After": str(max(1, round(wait)))})  # fmt: skip
        if referee.journal.failed is not None:
            return _problem_parts(503, "unavailable", "the journal cannot be written; nothing can be acknowledged")
        parsed: list[AnyEvent | ContractError | None]
        if match_id is None:  # multiplexed: every line's match is checked before any line is applied
            parsed = [read(ln) for ln in lines]
            other = referee.foreign(owner, parsed)  # type: ignore[arg-type]
            if other is not None:
                return _problem_parts(404, "not_found", f"no match {other} for this token")
        elif not referee.may_write(owner, match_id):
            return _problem_parts(404, "not_found", f"no match {match_id} for this token")
        else:
            parsed = [None] * len(lines)
        try:
            answers: list[Answer] = [referee.submit(owner, match_id, ln, p) for ln, p in zip(lines, parsed, strict=True)]
        except NotYours:  # only if the match changed hands between the check and the event: never in one loop
            return _problem_parts(404, "not_found", f"no match {match_id} for this token")
        if pacer is not None:
            pacer.tick(len(lines))
        try:
            await referee.journal.durable()
        except JournalFailed:
            return _problem_parts(503, "unavailable", "the journal cannot be written; nothing was acknowledged")
        observe(time.perf_counter() - t0)
        if batch:
            return 200, {"content-type": NDJSON}, b"".join([_dumps(a.body) + b"\n" for a in answers])
        return answers[0].http, {"content-type": "application/json"}, _dumps(answers[0].body)

    @app.post(
        "/v1/events",
        summary="Send the events of several matches at once (NDJSON, one answer line per event, in order)",
        description="Multiplexed: each line names its own match. Every match named must be this token's "
                    "(or new), else the whole request is 404 and nothing is applied. For one referee per game "
                    "server: a proxy routing by the match id in the path cannot route this request.",
        response_model=None,
        responses={200: _ANSWER, 409: _ANSWER, 422: _ANSWER, 401: {"model": Problem}, 404: {"model": Problem},
                   413: {"model": Problem}, 429: {"model": Problem}, 503: {"model": Problem}},
        openapi_extra={"requestBody": {"required": True, "content": {
            NDJSON: {"schema": {"type": "string", "description": "events of any matches as JSON Lines, one per line"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Event"}},
        }}},
    )  # fmt: skip
    async def post_multiplexed(request: Request, authorization: Annotated[str | None, Header()] = None) -> Response:
        # served by `fast_events` below; FastAPI reaches this only if that path is bypassed
        return await _via_fastapi(request, None, authorization)

    async def _via_fastapi(request: Request, match_id: str | None, authorization: str | None) -> Response:
        async def chunks() -> AsyncIterator[bytes]:
            async for c in request.stream():
                yield c

        status, headers, body = await handle_events(match_id, authorization, request.headers.get("content-type"),
                                                    request.headers.get("content-length"), chunks())  # fmt: skip
        return Response(body, status, headers)

    observe = metrics.latency.labels("events").observe

    @app.get("/v1/matches/{match_id}", summary="The §6 replay result of the match so far and the game's view",
             response_model=MatchState, responses={401: {"model": Problem}, 404: {"model": Problem}})  # fmt: skip
    async def get_match(
        match_id: Annotated[str, Path(pattern=MATCH_ID_PATTERN)],
        authorization: Annotated[str | None, Header()] = None,
    ) -> Response:
        m = owned(authorization, match_id)
        if isinstance(m, Response):
            return m
        return _json({**m.result(), "next_seq": m.next_seq, "view": m.view()})

    @app.get("/v1/matches/{match_id}/legal", summary="The actions the rules allow now",
             response_model=LegalActions, responses={401: {"model": Problem}, 404: {"model": Problem}})  # fmt: skip
    async def get_legal(
        match_id: Annotated[str, Path(pattern=MATCH_ID_PATTERN)],
        authorization: Annotated[str | None, Header()] = None,
    ) -> Response:
        m = owned(authorization, match_id)
        if isinstance(m, Response):
            return m
        turn, phase = m.turn_phase()
        return _json({"match_id": match_id, "next_seq": m.next_seq, "status": m.status(), "turn": turn,
                      "phase": phase, "legal": m.legal()})  # fmt: skip

    @app.get("/healthz", summary="Liveness: ok while the journal can be written", response_model=Health,
             responses={503: {"model": Health}})  # fmt: skip
    async def healthz() -> Response:
        ok = referee.journal.failed is None
        return _json({"status": "ok" if ok else "failing", "matches": len(referee.matches),
                      "open_matches": referee.n_open}, 200 if ok else 503)  # fmt: skip

    @app.get("/metrics", summary="Prometheus text format", response_class=Response,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})  # fmt: skip
    async def metrics_endpoint() -> Response:
        referee.report_metrics()
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return _problem(422, "bad_field", f"{where}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        return _problem(exc.status_code, "not_found" if exc.status_code == 404 else "http_error", str(exc.detail))

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return _problem(500, "internal", "internal error (logged on the server)")

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            event, defs = _event_schema()
            comps = doc.setdefault("components", {}).setdefault("schemas", {})
            comps.update(defs)
            comps["Event"] = event
            doc["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
            doc["security"] = [{"bearer": []}]
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    prefix, suffix = "/v1/matches/", "/events"
    match_re = re.compile(MATCH_ID_PATTERN)

    async def fast_events(scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The event route as a plain ASGI handler: the same `handle_events`, without FastAPI's
        per-request routing and dependency solving; every other request goes to FastAPI."""
        path: str = scope.get("path", "")
        if pacer is not None:
            pacer.tick()
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        match_id: str | None
        if path == MULTIPLEXED:
            match_id = None
        elif path.startswith(prefix) and path.endswith(suffix) and match_re.fullmatch(path[len(prefix):-len(suffix)]):
            match_id = path[len(prefix):-len(suffix)]
        else:
            await app(scope, receive, send)  # every other route, and FastAPI's own 422 for a bad match id
            return
        hdr: dict[bytes, bytes] = dict(scope["headers"])

        async def chunks() -> AsyncIterator[bytes]:
            while True:
                msg = await receive()
                if msg["type"] != "http.request":
                    return
                yield msg.get("body", b"")
                if not msg.get("more_body", False):
                    return

        def h(name: bytes) -> str | None:
            v = hdr.get(name)
            return None if v is None else v.decode("latin-1")

        try:
            status, headers, body = await handle_events(match_id, h(b"authorization"), h(b"content-type"),
                                                        h(b"content-length"), chunks())  # fmt: skip
        except Exception:
            log.exception("internal error on POST %s", path)
            status, headers, body = _problem_parts(500, "internal", "internal error (logged on the server)")
        raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        raw_headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": body})

    fast_events.fastapi = app  # type: ignore[attr-defined]
    return fast_events  # type: ignore[return-value]
