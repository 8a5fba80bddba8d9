"""The console the `sudya` commands print their tables and lines to (rich).

Its own module, imported by the commands that print: importing rich is about 0.1 s of a
start, and `sudya replay`, which writes JSON only, does without it.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

# a table piped to a file or another program is never cut to 80 columns (the terminal's own
# width otherwise, or COLUMNS where set)
PIPED_WIDTH = 240
_width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else PIPED_WIDTH
# rulebook texts contain brackets (`[level * attacks]`): never read them as markup
out = Console(soft_wrap=True, markup=False, highlight=False, width=_width)
