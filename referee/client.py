"""A thin client of the referee's HTTP API (`paiju serve`), over httpx: sync and async.

    with RefereeClient("http://127.0.0.1:8480", token="t1") as ref:
        answer = ref.send(event)             # one event (a model, a dict or a JSON line)
        answers = ref.send_batch(mid, lines)  # NDJSON: one answer per event
        answers = ref.send_batch(None, events)  # several matches in one request (`/v1/events`)
        ref.match(mid), ref.legal(mid), ref.health()

Answers are the service's JSON objects (`referee.app.EventAnswer`); a refused event is an answer
with `accepted: false`, not an exception. `RefereeError` is raised for a request the service
refused as a whole (401, 404, 413, 429, 503) with the service's code and message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import httpx

from events.codec import event_to_json
from events.models import AnyEvent

NDJSON = "application/x-ndjson"


class RefereeError(RuntimeError):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def _line(event: AnyEvent | dict[str, Any] | str | bytes) -> tuple[str, bytes]:
    """(match_id, the JSON line) of an event given as a model, a dict or a line."""
    if isinstance(event, bytes | str):
        raw = event.encode("utf-8") if isinstance(event, str) else event
        try:
            mid = json.loads(raw).get("match_id")
        except (ValueError, AttributeError):
            mid = None
        return (mid if isinstance(mid, str) else ""), raw
    if isinstance(event, dict):
        return str(event.get("match_id", "")), json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
    return event.match_id, event_to_json(event).encode("utf-8")


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _check(r: httpx.Response, answers: bool = False) -> None:
    """Return for a 200 (or a refused event's 409/422 answer when `answers`); else raise RefereeError."""
    if r.status_code == 200:
        return
    try:
        body = r.json()
    except ValueError:
        body = {}
    if answers and r.status_code in (409, 422) and isinstance(body, dict) and "accepted" in body:
        return
    err = body.get("error", {}) if isinstance(body, dict) else {}
    raise RefereeError(r.status_code, str(err.get("code", "http_error")), str(err.get("message", r.text[:200])))


def _path(match_id: str) -> str:
    return f"/v1/matches/{match_id}"


def _events_path(match_id: str | None) -> str:
    """A batch of one match's events, or of any matches' (`None`: the multiplexed `/v1/events`)."""
    return "/v1/events" if match_id is None else _path(match_id) + "/events"


class RefereeClient:
    """Synchronous client (one keep-alive connection)."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout: float = 30.0) -> None:
        self.http = httpx.Client(base_url=base_url, headers=_headers(token), timeout=timeout)

    def __enter__(self) -> RefereeClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def send(self, event: AnyEvent | dict[str, Any] | str | bytes, match_id: str | None = None) -> dict[str, Any]:
        mid, raw = _line(event)
        r = self.http.post(_path(match_id or mid) + "/events", content=raw, headers={"Content-Type": "application/json"})
        _check(r, answers=True)
        return r.json()  # type: ignore[no-any-return]

    def send_batch(self, match_id: str | None, events: Iterable[AnyEvent | dict[str, Any] | str | bytes]) -> list[dict[str, Any]]:
        body = b"".join(_line(e)[1] + b"\n" for e in events)
        r = self.http.post(_events_path(match_id), content=body, headers={"Content-Type": NDJSON})
        _check(r)
        return [json.loads(x) for x in r.text.splitlines() if x]

    def match(self, match_id: str) -> dict[str, Any]:
        r = self.http.get(_path(match_id))
        _check(r)
        return r.json()  # type: ignore[no-any-return]

    def legal(self, match_id: str) -> dict[str, Any]:
        r = self.http.get(_path(match_id) + "/legal")
        _check(r)
        return r.json()  # type: ignore[no-any-return]

    def health(self) -> dict[str, Any]:
        return self.http.get("/healthz").json()  # type: ignore[no-any-return]


class AsyncRefereeClient:
    """Asynchronous client (a pool of keep-alive connections), for many matches at once."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout: float = 30.0, connections: int = 100) -> None:
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self.http = httpx.AsyncClient(base_url=base_url, headers=_headers(token), timeout=timeout, limits=limits)

    async def __aenter__(self) -> AsyncRefereeClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.http.aclose()

    async def send(self, event: AnyEvent | dict[str, Any] | str | bytes, match_id: str | None = None) -> dict[str, Any]:
        mid, raw = _line(event)
        r = await self.http.post(_path(match_id or mid) + "/events", content=raw, headers={"Content-Type": "application/json"})
        _check(r, answers=True)
        return r.json()  # type: ignore[no-any-return]

    async def send_batch(self, match_id: str | None, events: Iterable[AnyEvent | dict[str, Any] | str | bytes]) -> list[dict[str, Any]]:
        body = b"".join(_line(e)[1] + b"\n" for e in events)
        r = await self.http.post(_events_path(match_id), content=body, headers={"Content-Type": NDJSON})
        _check(r)
        return [json.loads(x) for x in r.text.splitlines() if x]

    async def match(self, match_id: str) -> dict[str, Any]:
        r = await self.http.get(_path(match_id))
        _check(r)
        return r.json()  # type: ignore[no-any-return]
