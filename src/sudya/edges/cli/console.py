"""The console the `sudya` commands print their tables and lines to (rich).

Its own module, imported by the commands that print: importing rich is about 0.1 s of a
start, and `sudya replay`, which writes JSON only, does without it.
"""

from __future__ import annotations

from rich.console import Console

# rulebook texts contain brackets (`[level * attacks]`): never read them as markup
out = Console(soft_wrap=True, markup=False, highlight=False)
