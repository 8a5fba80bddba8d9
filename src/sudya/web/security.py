"""The Content-Security-Policy of every page, and the one page that needs a policy of its own.

The pages load scripts, styles and images from the app only: no inline `<script>`, no
`style=` attribute, no `on…=` handler, no `javascript:` link (the templates and static files
keep to it; htmx is told not to inject its indicator `<style>`, app.css has those rules).
The API's Swagger page (`/api/v1/docs`) still loads Swagger UI from FastAPI's CDN and starts
it with one inline script: it gets its own policy, which names that CDN and the script's hash
(not `'unsafe-inline'`), until the files are served from `static/`.
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; "
          "object-src 'none'")

# where FastAPI's get_swagger_ui_html takes Swagger UI from (its defaults)
SWAGGER_CDN = "https://cdn.jsdelivr.net"
SWAGGER_ICON = "https://fastapi.tiangolo.com"
INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def script_hashes(page: bytes) -> list[str]:
    """The CSP source of each inline script of a page: `'sha256-…'`."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
            for body in INLINE_SCRIPT.findall(page)]


def docs_policy(page: bytes) -> str:
    """The Swagger page's policy: its CDN, its own inline script, and the inline styles Swagger
    UI sets on its elements; nothing else from outside."""
    scripts = " ".join(["'self'", SWAGGER_CDN, *script_hashes(page)])
    return (f"default-src 'self'; script-src {scripts}; "
            f"style-src 'self' {SWAGGER_CDN} 'unsafe-inline'; "
            f"img-src 'self' data: {SWAGGER_ICON}; connect-src 'self'; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'self'; object-src 'none'")


def add_api_docs(app: FastAPI, path: str) -> None:
    """The Swagger page at `path` (in place of FastAPI's own, which sets no policy)."""

    @app.get(path, include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        page = get_swagger_ui_html(openapi_url=root + (app.openapi_url or ""),
                                   title=f"{app.title} - Swagger UI")
        page.headers["Content-Security-Policy"] = docs_policy(bytes(page.body))
        return page


__all__ = ["POLICY", "add_api_docs", "docs_policy", "script_hashes"]
