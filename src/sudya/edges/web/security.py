"""The Content-Security-Policy of every page, and the one page that needs a policy of its own.

The pages load scripts, styles and images from the app only: no inline `<script>`, no
`style=` attribute, no `on…=` handler, no `javascript:` link (the templates and static files
keep to it; htmx is told not to inject its indicator `<style>`, app.css has those rules).
The API's Swagger page (`/api/v1/docs`) loads Swagger UI from the app's own `static/swagger-ui/`
(nothing from outside: venues have bad Wi-Fi) and starts it with FastAPI's one inline script:
it gets its own policy, which allows that script by its hash (not `'unsafe-inline'`) and the
inline styles Swagger UI sets on its elements; every other page keeps POLICY.
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

# Swagger UI 5 (npm swagger-ui-dist, Apache-2.0, vendored in static/swagger-ui/ like htmx):
# the 4.x that the PyPI swagger-ui-bundle ships cannot read the OpenAPI 3.1 FastAPI writes
SWAGGER_JS = "swagger-ui/swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui/swagger-ui.css"
FAVICON = "favicon.svg"
INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def script_hashes(page: bytes) -> list[str]:
    """The CSP source of each inline script of a page: `'sha256-…'`."""
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
            for body in INLINE_SCRIPT.findall(page)]


def docs_policy(page: bytes) -> str:
    """The Swagger page's policy: the app's own files, its own inline script, and the inline
    styles Swagger UI sets on its elements; nothing from outside."""
    scripts = " ".join(["'self'", *script_hashes(page)])
    return (f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'self'; object-src 'none'")


def add_api_docs(app: FastAPI, path: str) -> None:
    """The Swagger page at `path` (in place of FastAPI's own, which sets no policy)."""

    @app.get(path, include_in_schema=False)
    def api_docs(request: Request) -> HTMLResponse:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        assets = request.app.state.assets  # hashed names, cached for a year (web/assets.py)
        page = get_swagger_ui_html(openapi_url=root + (app.openapi_url or ""),
                                   title=f"{app.title} - Swagger UI",
                                   swagger_js_url=root + assets.url(SWAGGER_JS),
                                   swagger_css_url=root + assets.url(SWAGGER_CSS),
                                   swagger_favicon_url=root + assets.url(FAVICON))
        page.headers["Content-Security-Policy"] = docs_policy(bytes(page.body))
        return page


__all__ = ["POLICY", "add_api_docs", "docs_policy", "script_hashes"]
