"""What a module defines, read from its source without running it.

Two questions about imports need it: which names a ``from X import ???`` hole can take
(:mod:`.import_holes`), and whether a candidate's ``from X import y`` names something ``X``
has (:func:`.checks.failing_imports`; Python raises ``ImportError`` at the import
otherwise). Nothing is imported to answer, so no module's code runs: modules are found as
Python's finder finds them (``importlib.util.find_spec`` for a top-level name, beside a
script, then a package's folders), and a module's names are read from its source, star
imports followed. Of compiled modules only the interpreter's own (``math``, ``posix``) are
imported to read them: their code is the interpreter's, not a project's.

A module's source can bind more than it says (``globals().update``, a module
``__getattr__``, a star import of a compiled module outside the interpreter's): such a
namespace is not ``complete``, and only its names are used, never their absence. Over the
169,086 ``from X import n`` of this machine's standard library and site-packages, the 227
it says fail all fail when tried (session 52; they sit in ``try`` blocks for other
versions and platforms).
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import re
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# what lets a module bind names its statements do not show: its globals written to, a
# ``__getattr__``, an enum's ``_convert_`` (``ssl.CERT_REQUIRED``, ``signal.Signals``), its
# entry in ``sys.modules`` replaced
_GLOBALS = r"\b(?:globals|vars)\(\)"
_WRITTEN = r"\s*(?:\.update\(|\[[^]\n]*\]\s*=[^=])"
_DYNAMIC = re.compile(rf"{_GLOBALS}{_WRITTEN}|^exec\(|\bexec\(.*{_GLOBALS}"
                      r"|sys\.modules\[__name__\]|^def __getattr__\(|\._convert_\(", re.MULTILINE)
_ALIAS = re.compile(rf"^[ \t]*(\w+)\s*=\s*{_GLOBALS}\s*$", re.MULTILINE)


def _binds_dynamically(text: str) -> bool:
    """Whether a module's source binds names as it runs, beyond what its statements show.

    Its globals kept to write to later count (fontTools' ``namespace = globals()`` then
    ``namespace[name] = cls``); kept only to read (``os``'s ``_globals``) they do not.
    """
    return _DYNAMIC.search(text) is not None or any(
        re.search(rf"\b{re.escape(m.group(1))}{_WRITTEN}", text) for m in _ALIAS.finditer(text))


@dataclass(frozen=True)
class Namespace:
    """The names ``from module import …`` can take.

    ``modules`` are those of them the module binds by a plain ``import m``: importable
    through it, but not what a hole asking for the module's names wants. ``public`` is what
    ``from module import *`` takes (``__all__``, else the names without a leading ``_``).
    """

    names: frozenset[str]
    modules: frozenset[str] = frozenset()
    public: frozenset[str] = frozenset()
    complete: bool = True


_UNKNOWN = Namespace(frozenset(), complete=False)
_STAR_FILES = 32  # the most files one namespace reads through star imports
_MODULE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__",
                             "__package__", "__builtins__", "__cached__"})
# a module that is there and cannot be read without running it: a compiled one outside the
# interpreter's own, one a module puts in ``sys.modules`` as it runs (``six.moves``)
_OPAQUE = Path("<opaque>")


def is_module(name: str, here: Path | None) -> bool:
    """Whether ``import name`` finds a module: beside a script, or on ``sys.path``."""
    return _top_location(name, here) is not None


def _script_folder(here: Path | None) -> bool:
    """Whether ``here`` holds scripts, whose folder Python puts first on ``sys.path``.

    Not a package's folder, nor a folder inside one: ``werkzeug/sansio/response.py``'s
    ``from http import HTTPStatus`` is the standard library's, not ``sansio/http.py``.
    """
    return here is not None and not (here / "__init__.py").is_file() and \
        not (here.parent / "__init__.py").is_file()


def import_fails(module: str, name: str | None, here: Path | None) -> bool:
    """Whether ``from module import name`` (``import module`` for None) surely fails from here.

    Sure only where the module's top is found (another environment may have what this one
    lacks) and then the module is not (``json.nosuch``, ``.nosuch`` in a real package), or
    its namespace is complete and lacks the name.
    """
    dots = len(module) - len(module.lstrip("."))
    if dots and (here is None or not here.is_dir()) or not dots and not is_module(
            module.split(".")[0], here):
        return False
    ns = namespace(module, here)
    if ns is None:
        return True
    return name is not None and ns.complete and name not in ns.names


def namespace(module: str, here: Path | None) -> Namespace | None:
    """The names of ``module`` (``pkg.mod``, ``.sibling``) as a file in ``here`` imports it.

    None where the module is not found from here.
    """
    where = _locate(module, here)
    return None if where is None else _namespace(where, [_STAR_FILES])


def _namespace(where: Path | str, budget: list[int]) -> Namespace:
    """The namespace at a located module: a source path, or a compiled module's name.

    Star imports are followed to the modules they name, and theirs, reading at most
    ``budget[0]`` more files: ``transformers`` star-imports two thousand.
    """
    if where == _OPAQUE:
        return _UNKNOWN
    if isinstance(where, str):
        return _compiled_names(where)
    if budget[0] <= 0:
        return _UNKNOWN  # a star-import cycle, or more modules than are worth reading
    budget[0] -= 1
    source = where / "__init__.py" if where.is_dir() else where
    own = _read(source) if source.is_file() else _Source(frozenset(), frozenset())
    names, public, complete = set(own.names), own.public, own.complete
    for module, base in own.stars:
        found = _locate(module, base)
        if found is None:
            continue  # fails where it runs, or sits in a branch that does not run here
        star = _namespace(found, budget)
        names |= star.public
        complete &= star.complete
    names |= _MODULE_DUNDERS
    if where.is_dir():
        names |= _submodules(where) | {"__path__"}
    if public is None:
        public = frozenset(n for n in names if not n.startswith("_"))
    return Namespace(frozenset(names), own.modules, frozenset(public), complete)


@dataclass(frozen=True)
class _Source:
    """What one source file's own statements bind; ``stars`` are ``(module, folder)`` pairs."""

    names: frozenset[str]
    modules: frozenset[str]
    public: frozenset[str] | None = None
    stars: tuple[tuple[str, Path], ...] = ()
    complete: bool = True


def _read(source: Path) -> _Source:
    """A module's own top-level bindings, under its ``if``s and ``try``s too, not its defs'.

    ``os`` binds ``path`` under ``if 'posix' in _names`` and most of its functions by
    ``from posix import *``. Read again when the file changes: the language server outlives
    the edits to a module's neighbours.
    """
    try:
        stat = source.stat()
    except OSError:
        return _Source(frozenset(), frozenset(), complete=False)
    return _read_version(source, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1024)
def _read_version(source: Path, mtime_ns: int, size: int) -> _Source:
    """:func:`_read` of one version of the file (the cache's key has its time and size)."""
    try:
        text = source.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return _Source(frozenset(), frozenset(), complete=False)
    names: set[str] = set()
    modules: set[str] = set()
    stars: list[tuple[str, Path]] = []
    public: set[str] | None = None
    unread = False  # something adds to ``__all__`` what only running it says
    for node in _module_level(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                names.add(a.asname or a.name.split(".")[0])
                if a.asname is None:
                    modules.add(a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    stars.append(("." * node.level + (node.module or ""), source.parent))
                else:
                    names.add(a.asname or a.name)
        elif isinstance(node, ast.excepthandler) and node.name:
            names.add(node.name)
        else:
            listed = _all_listed(node)
            if listed is _UNREAD:
                unread = True
            elif listed is not None:
                public = (public or set()) | listed
            names.update(_stored(node))
    if public:
        names |= public  # listed, so bound somehow: by code this reading does not follow
    return _Source(frozenset(names), frozenset(modules - _bound_otherwise(tree, modules)),
                   None if public is None or unread else frozenset(public), tuple(stars),
                   not _binds_dynamically(text))


_UNREAD = frozenset({"<unread>"})


def _all_listed(node: ast.AST) -> frozenset[str] | None:
    """The names a statement adds to ``__all__`` (``=``, ``+=``, ``.extend``, ``.append``).

    None where it does not touch ``__all__``; ``_UNREAD`` where it adds what only running
    it says (``__all__.extend(_get_exports_list(posix))`` in ``os``).
    """
    value = None
    if isinstance(node, ast.Assign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = node.value
    elif isinstance(node, ast.Expr) and isinstance(call := node.value, ast.Call) and \
            isinstance(f := call.func, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id == "__all__" and f.attr in ("extend", "append") and len(call.args) == 1:
        value = ast.List([call.args[0]]) if f.attr == "append" else call.args[0]
    if value is None:
        return None
    try:
        listed = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREAD
    if not isinstance(listed, list | tuple | set) or not all(isinstance(n, str) for n in listed):
        return _UNREAD
    return frozenset(listed)


def _bound_otherwise(tree: ast.Module, modules: set[str]) -> set[str]:
    """Of the plainly imported ``modules``, those the module also binds to something else."""
    return {n for node in _module_level(tree.body) if not isinstance(node, ast.Import)
            for n in _stored(node) if n in modules}


def _stored(node: ast.AST) -> Iterator[str]:
    """The names a module-level statement stores to (its targets, a ``with``'s ``as``)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt | ast.excepthandler):
            continue  # their own turn comes in _module_level
        for n in ast.walk(child):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                yield n.id


def _module_level(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The module's statements, and those nested in its ifs, trys and withs, not in defs."""
    for node in body:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield from _module_level([c for c in ast.iter_child_nodes(node)
                                      if isinstance(c, ast.stmt | ast.excepthandler)])


def _submodules(folder: Path) -> frozenset[str]:
    """A package folder's modules and subpackages: ``from pkg import sub`` imports them."""
    try:
        return _listing(folder, folder.stat().st_mtime_ns)
    except OSError:
        return frozenset()


@lru_cache(maxsize=256)
def _listing(folder: Path, mtime_ns: int) -> frozenset[str]:
    """:func:`_submodules` of one version of the folder (adding a file changes its time)."""
    names = set()
    for p in folder.iterdir():
        compiled = next((x for x in importlib.machinery.EXTENSION_SUFFIXES
                         if p.name.endswith(x)), None)
        if compiled:
            names.add(p.name[:-len(compiled)])
        elif p.suffix == ".py" and p.stem != "__init__":
            names.add(p.stem)
        elif (p / "__init__.py").is_file():
            names.add(p.name)
    return frozenset(names)


def _compiled_names(name: str) -> Namespace:
    """The interpreter's own compiled module, imported to read its names."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return _UNKNOWN
    names = frozenset(dir(module))
    public = getattr(module, "__all__", None)
    return Namespace(names, public=frozenset(public) if public is not None else
                     frozenset(n for n in names if not n.startswith("_")))


def _locate(module: str, here: Path | None) -> Path | str | None:
    """Where ``module`` is: a package's folder, a module's ``.py``, or a compiled name."""
    if _compiled_stdlib(module):
        return module
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:  # relative: from the file's own package
        if here is None:
            return None
        base = here
        for _ in range(dots - 1):
            base = base.parent
    else:
        if not parts:
            return None
        top = _top_location(parts[0], here)
        if top is None:
            return None
        if isinstance(top, str) or top == _OPAQUE:
            return top
        base, parts = top, parts[1:]
    for part in parts:
        if base == _OPAQUE or base.is_file():
            # a module's attribute, or what it puts in sys.modules as it runs: os.path, six.moves
            stdlib = not dots and module.split(".")[0] in sys.stdlib_module_names
            return (_stdlib_submodule(module) if stdlib else None) or _OPAQUE
        base = _find(base, part)
        if base is None:
            return None
    return base


def _find(folder: Path, name: str) -> Path | None:
    """Module ``name`` in ``folder``, looked for as Python's finder looks.

    A package first, then a compiled module, a source, a namespace folder.
    """
    if (folder / name / "__init__.py").is_file():
        return folder / name
    if any((folder / (name + suffix)).is_file()
           for suffix in importlib.machinery.EXTENSION_SUFFIXES):
        return _OPAQUE  # matplotlib.ft2font, torch._C (beside a folder of its stubs)
    if (folder / f"{name}.py").is_file():
        return folder / f"{name}.py"
    return folder / name if (folder / name).is_dir() else None


def _stdlib_submodule(module: str) -> Path | None:
    """A standard-library module's submodule that is not a file under it (``os.path``).

    ``find_spec`` of a dotted name imports its parent; the standard library's are safe to.
    """
    if module.split(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return _source_of(spec) if spec is not None else None


def _compiled_stdlib(name: str) -> bool:
    """Whether ``name`` is one of the interpreter's own compiled modules (``sys``, ``math``)."""
    if name in sys.builtin_module_names:
        return True
    spec = _spec(name) if name.isidentifier() else None
    dynload = sysconfig.get_config_var("DESTSHARED")  # lib-dynload, in a venv too
    return spec is not None and spec.origin is not None and dynload is not None and \
        Path(spec.origin).parent == Path(dynload)


def _top_location(name: str, here: Path | None) -> Path | str | None:
    """Where a top-level module lives: a package's folder, or a module's ``.py``."""
    if _script_folder(here):
        if (here / name / "__init__.py").is_file():
            return here / name
        if (here / f"{name}.py").is_file():
            return here / f"{name}.py"
    spec = _spec(name)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    source = _source_of(spec)
    if source is not None and source.name == "__init__.py":
        return source.parent  # a package whose finder fills in its path later (distutils)
    return source or _OPAQUE


def _source_of(spec: importlib.machinery.ModuleSpec) -> Path | None:
    """A module's ``.py``: its origin, or for a frozen one (os, posixpath) the stdlib's file."""
    if spec.origin == "frozen":  # _frozen_importlib_external has no file of that name
        source = Path(sysconfig.get_paths()["stdlib"]) / f"{spec.name.replace('.', '/')}.py"
        return source if source.is_file() else None
    return Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """``find_spec`` of a top-level name (which imports nothing), None where it fails."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
