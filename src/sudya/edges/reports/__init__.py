"""Reports on paper: the judge report, penalty slips, a player's record (and the DQ report).

One Jinja2 template per report renders its typed view (`sudya.app.report_views`, built by
`services.reports`) as an HTML document: the web page shows it, and WeasyPrint prints the same
document to PDF with the print stylesheet (`report.css`, DejaVu fonts for Cyrillic). The CSV
and JSON exports come from the same view. The CLI and the web app both call this package,
which imports neither of them nor the services.
"""

from sudya.edges.reports.exports import judge_csv
from sudya.edges.reports.render import STYLESHEET, render_html, render_pdf, stylesheet_hash

__all__ = ["STYLESHEET", "judge_csv", "render_html", "render_pdf", "stylesheet_hash"]
