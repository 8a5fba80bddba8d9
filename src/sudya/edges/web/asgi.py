"""The shape of Sudya's own ASGI middlewares: an HTTP request is theirs to handle (`http`),
anything else (the lifespan, a websocket) passes through untouched. Plain ASGI rather than
Starlette's BaseHTTPMiddleware, which runs the rest of the app in a task of its own and pipes
the body through a memory stream."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request (calling `self.app` for the rest of the app)."""
        raise NotImplementedError
