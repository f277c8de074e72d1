"""A hole where an import names its modules or names: the ones the file reads and never binds.

``import ???`` above code that reads ``math.pi`` wants ``math``; the model, which sees a window
of text around the hole and no module list, wrote ``os``. The names the file reads that no
scope binds (:func:`.checks.unbound`) and that name a module found from here (``import ???``)
or a name the module of ``from X import ???`` defines are the hole's mechanical candidates:
all of them at once first (``math, re``), then each alone, by where the file first reads
them. Nothing is imported to find them, so no module's code runs: top-level modules are
found by ``importlib.util.find_spec`` and among the file's neighbours, a dotted module by
walking its package's folders, and a module's names are read from its source (``__all__``
where it says, else its top-level bindings and, for a package, its submodules); of
compiled modules only the interpreter's own (``math``, ``sys``) are imported to read them.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import sysconfig
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from .checks import unbound
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
        found = [n for n in reads if _is_module(n, here)]
    else:
        names = _names_of(named.group(1), here)
        found = [n for n in reads if n in names]
    found.sort(key=lambda n: re.search(rf"\b{n}\b", text).start())
    return (", ".join(found), *found) if len(found) > 1 else tuple(found)


def _is_module(name: str, here: Path | None) -> bool:
    """Whether ``import name`` finds a module: beside the file, or on ``sys.path``."""
    if here is not None and ((here / f"{name}.py").is_file() or
                             (here / name / "__init__.py").is_file()):
        return True
    return _spec(name) is not None


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """``find_spec`` of a top-level name (which imports nothing), None where it fails."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _names_of(module: str, here: Path | None) -> frozenset[str]:
    """The names ``from module import …`` can take, read without importing ``module``."""
    if _compiled_stdlib(module):
        return frozenset(dir(importlib.import_module(module)))
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:  # relative: from the file's own package
        if here is None:
            return frozenset()
        base = here
        for _ in range(dots - 1):
            base = base.parent
    else:
        if not parts:
            return frozenset()
        top = _top_location(parts[0], here)
        if top is None:
            return frozenset()
        base, parts = top, parts[1:]
    for part in parts:
        base = base / part
    if base.is_dir():
        return _source_names(base / "__init__.py") | {
            p.stem if p.suffix == ".py" else p.name for p in base.iterdir()
            if p.suffix == ".py" and p.stem != "__init__" or (p / "__init__.py").is_file()}
    return _source_names(base.with_suffix(".py"))


def _compiled_stdlib(name: str) -> bool:
    """Whether ``name`` is one of the interpreter's own compiled modules (``sys``, ``math``).

    Those are imported to read their names: their code is the interpreter's, not a project's.
    """
    if name in sys.builtin_module_names:
        return True
    spec = _spec(name) if name.isidentifier() else None
    dynload = sysconfig.get_config_var("DESTSHARED")  # lib-dynload, in a venv too
    return spec is not None and spec.origin is not None and dynload is not None and \
        Path(spec.origin).parent == Path(dynload)


def _top_location(name: str, here: Path | None) -> Path | None:
    """Where a top-level module lives: a package's folder, or a module's path minus ``.py``."""
    if here is not None:
        if (here / name / "__init__.py").is_file():
            return here / name
        if (here / f"{name}.py").is_file():
            return here / name
    spec = _spec(name)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    origin = spec.origin if spec.origin and spec.origin.endswith(".py") else \
        str(Path(sysconfig.get_paths()["stdlib"]) / f"{name}.py")  # a frozen module: os
    return Path(origin).with_suffix("")


@lru_cache(maxsize=64)
def _source_names(source: Path) -> frozenset[str]:
    """A module's names from its source: ``__all__`` if a literal, else what its top binds.

    Bindings under an ``if`` or a ``try`` count (``os`` binds ``path`` under ``if 'posix' in
    _names``); a function's or a class's own do not.
    """
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()
    names = set()
    for node in _module_level(tree.body):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return frozenset(ast.literal_eval(node.value))
            except ValueError:
                pass
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(names)


def _module_level(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The module's statements, and those nested in its ifs, trys and withs, not in defs."""
    for node in body:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield from _module_level([c for c in ast.iter_child_nodes(node)
                                      if isinstance(c, ast.stmt | ast.excepthandler)])
