"""HTML and PDF of a report view: one template per view type, the print stylesheet, WeasyPrint."""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Any

import jinja2
from babel.dates import format_date, format_datetime

from sudya import __version__
from sudya.app.report_views import (
    DqReportView,
    JudgeReportView,
    PlayerRecordView,
    RoundSheetView,
    SlipsView,
)
from sudya.app.views import View
from sudya.i18n.messages import page_catalogue  # the web app's catalogue too (locale/ru.po)

HERE = Path(__file__).resolve().parent
STYLESHEET = HERE / "report.css"
TEMPLATES: dict[type[View], str] = {JudgeReportView: "judge.html", SlipsView: "slips.html",
                                    PlayerRecordView: "record.html", DqReportView: "dq.html",
                                    RoundSheetView: "round.html"}


def register(view_type: type[View], template: str) -> None:
    """Another report: the template that renders views of this type."""
    TEMPLATES[view_type] = template


@functools.cache
def _env(lang: str) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, extensions=["jinja2.ext.i18n"],
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.install_gettext_translations(page_catalogue(lang), newstyle=True)  # type: ignore[attr-defined]
    env.filters["date"] = lambda d: "—" if d is None else format_date(d, "medium", locale=lang)
    env.filters["time"] = lambda t: "—" if t is None else format_datetime(
        t, "short", locale=lang)
    env.globals["version"] = __version__
    return env


@functools.cache
def stylesheet_hash() -> str:
    """The print stylesheet's content hash, to name its URL (cached for good by the web)."""
    return hashlib.sha256(STYLESHEET.read_bytes()).hexdigest()[:10]


def render_html(view: View, *, css_url: str | None = None,
                links: dict[str, str] | None = None) -> str:
    """The report as an HTML document in the view's language. `css_url`: where a browser
    loads the stylesheet (the PDF gets it directly); `links`: the page's own links (back,
    pdf, csv, json), left out of print."""
    template = TEMPLATES.get(type(view))
    if template is None:
        raise TypeError(f"no report template for {type(view).__name__}")
    lang = str(getattr(view, "lang", "ru"))
    context: dict[str, Any] = {"v": view, "lang": lang, "css_url": css_url,
                               "links": links or {}}
    return _env(lang).get_template(template).render(context)


def _no_fetch(url: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """A report loads nothing from anywhere (the venue may have no network)."""
    raise ValueError(f"reports load no resources: {url}")


def render_pdf(view: View) -> bytes:
    """The report as a PDF: the same document, the print stylesheet, fonts embedded."""
    from weasyprint import CSS, HTML  # type: ignore[import-untyped]  # heavy: when asked

    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    html = HTML(string=render_html(view), url_fetcher=_no_fetch)
    pdf: bytes = html.write_pdf(stylesheets=[CSS(string=STYLESHEET.read_text("utf-8"))])
    return pdf
