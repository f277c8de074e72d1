"""A hole where an import names its modules or names: the ones the file reads and never binds.

``import ???`` above code that reads ``math.pi`` wants ``math``; the model, which sees a window
of text around the hole and no module list, wrote ``os``. The names the file reads that no
scope binds (:func:`.checks.unbound`) and that name a module found from here (``import ???``)
or a name the module of ``from X import ???`` defines are the hole's mechanical candidates:
all of them at once first (``math, re``), then each alone, by where the file first reads
them. Modules and their names are read as :mod:`.namespaces` reads them, running no
module's code; a module ``X`` imports plainly (``import sys``) is not one of the names
``from X import`` is offered.
"""

from __future__ import annotations

import re
from pathlib import Path

from .checks import unbound
from .namespaces import is_module, namespace
from .syntax import placeholders

# what a line says before the hole: ``import a, `` / ``from pkg.mod import (b, ``
_IMPORT = re.compile(r"[ \t]*import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*")
_FROM = re.compile(r"[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?[ \t]*(?:\w+[ \t]*,[ \t]*)*")
_HOLE = "_remask_import_hole_"


def import_candidates(text: str, start: int, end: int, marker: str,
                      path: str | None = None) -> tuple[str, ...]:
    """The texts for the hole text[start:end] if it ends an import's list, else ()."""
    line = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", end)
    if text[end:len(text) if stop < 0 else stop].strip() not in ("", ")"):
        return ()  # the hole must end the list: ``import ??? as m`` names one module
    head = text[line:start]
    plain, named = _IMPORT.fullmatch(head), _FROM.fullmatch(head)
    if plain is None and named is None:
        return ()
    probe = placeholders(text[:start] + _HOLE + text[end:], marker)
    reads = [n for n in unbound(probe, path) if n != _HOLE]
    here = Path(path).absolute().parent if path else None
    if plain is not None:
        found = [n for n in reads if is_module(n, here)]
    else:
        ns = namespace(named.group(1), here)
        found = [] if ns is None else [n for n in reads if n in ns.names - ns.modules]
    found.sort(key=lambda n: re.search(rf"\b{n}\b", text).start())
    return (", ".join(found), *found) if len(found) > 1 else tuple(found)
