"""Limits on what a request may carry, checked before any route reads it.

- A body larger than its limit is refused with 413 as soon as it is known to be too large:
  1 MB for JSON, 2 MB for anything else (the largest form is the deck comparison page: two
  lists of at most 20,000 characters, about 120 kB each once URL-encoded).
- A JSON body for the API must be plain data (`sudya.adapters.scenario_file.plain`): no NaN or
  Infinity, no lone surrogates or control characters, numbers a database can hold, at most
  100 levels deep. Anything else is 422 naming the field, before FastAPI echoes the value
  back in its own error and fails to encode it (a 500).
- No NUL character in the path, the query or a form: PostgreSQL stores none, and a query
  or an insert holding one fails in the database (a 500).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from sudya.adapters.scenario_file import PlainDataError, json_error, plain
from sudya.edges.web import i18n
from sudya.edges.web.asgi import HttpMiddleware

MAX_JSON_BODY = 1_000_000
MAX_OTHER_BODY = 2_000_000
# handlers that read their body themselves and answer in their own documented shape
RAW_JSON_PATHS = frozenset({"/api/v1/replay"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this content type as JSON (it does when none is given):
    application/json or application/…+json, whatever the parameters (read as `email.message`
    reads a content type, without building a message for every request)."""
    if not content_type:
        return True
    main, _, subtype = content_type.split(";", 1)[0].strip().lower().partition("/")
    return main == "application" and (subtype == "json" or subtype.endswith("+json"))


def json_problem(body: bytes) -> tuple[list[str | int], str, str] | None:
    """Where, what and what kind of problem a JSON body has, or None when it is plain JSON."""
    try:
        plain(orjson.loads(body))
    except orjson.JSONDecodeError as exc:
        return ["body"], f"malformed JSON (line {exc.lineno}): {json_error(exc)}", "json_invalid"
    except PlainDataError as exc:
        return ["body", *exc.loc], exc.text(), "value_error"
    return None


class RequestLimits(HttpMiddleware):
    """ASGI middleware: body size limits (413) and plain JSON for the API (422)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        api = path.startswith("/api/")
        if "\x00" in path or _has_nul(scope.get("query_string", b"")):
            await self.refuse(send, api, 422, ["path" if "\x00" in path else "query"],
                              _nul(api), "nul_character")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        has_body = "content-length" in headers or "transfer-encoding" in headers
        if not has_body:
            await self.app(scope, receive, send)
            return
        json_body = api and is_json(headers.get("content-type"))
        limit = MAX_JSON_BODY if json_body else MAX_OTHER_BODY
        declared = headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            await self.refuse(send, api, 413, ["body"], _too_large(limit, api), "too_large")
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self.refuse(send, api, 413, ["body"], _too_large(limit, api),
                                  "too_large")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        form = headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
        if form and _has_nul(body):
            await self.refuse(send, api, 422, ["body"], _nul(api), "nul_character")
            return
        if json_body and body and path not in RAW_JSON_PATHS:
            problem = json_problem(body)
            if problem is not None:
                await self.refuse(send, api, 422, *problem)
                return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # later: the disconnect, for streaming responses

        await self.app(scope, replay, send)

    async def refuse(self, send: Send, api: bool, status: int, loc: list[str | int],
                     msg: str, kind: str) -> None:
        """The API's error shape (`detail`: loc, msg, type); plain text for the pages."""
        if api:
            body = json.dumps({"detail": [{"loc": loc, "msg": msg, "type": kind}]},
                              ensure_ascii=False).encode()
            content_type = b"application/json"
        else:
            body = msg.encode()
            content_type = b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", content_type),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _has_nul(encoded: bytes) -> bool:
    """Whether URL-encoded bytes hold a NUL, raw or as %00."""
    return b"\x00" in encoded or b"%00" in encoded


def _nul(api: bool) -> str:
    if api:
        return "the request holds a NUL character (U+0000)"
    return i18n.gettext("The request holds a NUL character (U+0000).")


def _too_large(limit: int, api: bool) -> str:
    if api:  # the API speaks English, like its other errors
        return f"the body is too large (at most {limit:,} bytes)"
    return i18n.gettext("The request is too large (at most %(n)s bytes).", n=f"{limit:,}")


__all__ = ["RequestLimits", "MAX_JSON_BODY", "MAX_OTHER_BODY", "is_json", "json_problem"]
