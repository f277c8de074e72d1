"""Moving a def or class to another module: the cut, the paste and the imports it takes along.

``remask moved pkg/a.py::total pkg/b.py`` with ``total`` still in ``a.py`` makes the move
before following it (:mod:`.symbol_moves`): the def, with its decorators and the comment
lines right above it, leaves ``a.py`` for ``b.py`` (at its end, or above the first statement
that needs it as the module runs). The module-level names it reads go with it: a name
``a.py`` imports is imported in ``b.py`` the same way (a relative import respelled from
there), and a name ``a.py`` defines is imported from ``a.py``. Imports in ``a.py`` that only
the def read are dropped. No model: every line is the user's own.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .cycles import eager
from .edits import bound_within, docstring_of
from .modules import Binding, bindings, resolve, spell, type_checking
from .scopes import scope_index

__all__ = ["Relocated", "relocate"]


@dataclass(frozen=True)
class Relocated:
    """Both modules' texts once the def moved, and the names it took imports for."""

    old: str
    new: str
    imported: tuple[str, ...]


@dataclass(frozen=True)
class Module:
    """One side of the move: its text, dotted name, and whether a package's ``__init__``."""

    text: str
    name: str
    package: bool


def relocate(old: Module, new: Module, name: str) -> Relocated | str:
    """Move module-level def or class ``name`` from ``old`` into ``new``; else why not.

    Where in ``new`` it goes is :func:`_paste`'s to say.
    """
    try:
        old_tree, new_tree = ast.parse(old.text), ast.parse(new.text)
    except SyntaxError as e:
        return f"does not parse (line {e.lineno})"
    nodes = [s for s in old_tree.body if isinstance(
        s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and s.name == name]
    if not nodes:
        return f"defines no {name} at its top level (one inside an if or a try is not moved)"
    lines = old.text.splitlines(keepends=True)
    blocks = [(_first_line(n, lines), n.end_lineno) for n in nodes]  # ``@overload``s: all
    code = "\n\n".join("".join(lines[a:b]).rstrip("\n") for a, b in blocks) + "\n"
    ours, theirs = bindings(old_tree.body), bindings(new_tree.body)
    needed = sorted(set().union(*map(_reads, nodes)) & ours.keys() - {name})
    runtime, typing, took = [], [], []
    for n in needed:
        b, there = ours[n], theirs.get(n)
        if there is not None and (b.typing or not there.typing):
            continue  # the new module binds it already: taken as the same
        (typing if b.typing else runtime).extend(_imports_for(n, b, old, new))
        took.append(n)
    if typing and "TYPE_CHECKING" not in theirs:
        runtime.append("from typing import TYPE_CHECKING")
    old_text = old.text
    for a, b in reversed(blocks):
        cut = old_text.splitlines(keepends=True)
        rest, after = "".join(cut[:a]).rstrip("\n"), "".join(cut[b:]).lstrip("\n")
        old_text = f"{rest}\n\n\n{after}" if rest and after else (rest + "\n" if rest else after)
    old_text = _drop_unused(old_text, [n for n in needed if any(
        isinstance(st, ast.Import | ast.ImportFrom) for st in ours[n].stmts)])
    new_text = _add_imports(_add_typing(new.text, new_tree, typing), list(dict.fromkeys(runtime)))
    if typing and _future_annotations(old_tree) and not _future_annotations(new_tree):
        # its annotations name what only type checkers import: they must stay unevaluated
        new_text = _add_future(new_text)
    return Relocated(old_text, _paste(new_text, code, name, nodes), tuple(took))


def _paste(text: str, code: str, name: str, nodes: list[ast.stmt]) -> str:
    """``code`` into the module, at its end or above the first statement needing it.

    That is a statement that reads ``name`` as the module runs (``class Parser`` whose
    annotations name it), where what ``code`` itself reads as it runs is bound above it.
    """
    if not text.strip():
        return code
    tree = ast.parse(text)
    lazy = _future_annotations(tree)
    users = [i for i, st in enumerate(tree.body) if name in _run_reads(st, lazy)]
    needs = set().union(*(_run_reads(n, lazy) for n in nodes))
    binders = [i for i, st in enumerate(tree.body) if needs & set(bindings([st]))]
    if not users or binders and max(binders) >= users[0]:
        return f"{text.rstrip(chr(10))}\n\n\n{code}"
    lines = text.splitlines(keepends=True)
    at = _first_line(tree.body[users[0]], lines)
    above = "".join(lines[:at]).rstrip("\n")
    return f"{above}\n\n\n{code}\n\n" + "".join(lines[at:]) if above else \
        f"{code}\n\n" + "".join(lines[at:])


def _run_reads(stmt: ast.stmt, lazy: bool) -> set[str]:
    """The names and attribute names ``stmt`` reads as the module runs it.

    ``lazy``: the module leaves annotations unevaluated; else a def's, and its class's
    methods', are read as it is defined.
    """
    parts = list(eager(stmt))
    if not lazy:
        fns = _defined_with(stmt)
        parts += [a.annotation for f in fns for a in (*f.args.args, *f.args.kwonlyargs,
                                                      *f.args.posonlyargs) if a.annotation]
        parts += [f.returns for f in fns if f.returns is not None]
    out = set()
    for part in parts:
        for n in ast.walk(part):
            if isinstance(n, ast.Name):
                out.add(n.id)
            elif isinstance(n, ast.Attribute):
                out.add(n.attr)
    return out


def _defined_with(stmt: ast.stmt) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The def ``stmt`` is, or the methods its class body defines (nested classes too)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return [stmt]
    if isinstance(stmt, ast.ClassDef):
        return [f for inner in stmt.body for f in _defined_with(inner)]
    return []


def _first_line(node: ast.stmt, lines: list[str]) -> int:
    """The index of ``node``'s first line: its decorators', or a comment right above them."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    return first


def _future_annotations(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and
               any(a.name == "annotations" for a in s.names) for s in tree.body)


def _add_future(text: str) -> str:
    """``from __future__ import annotations`` first in the module (after its docstring)."""
    body = ast.parse(text).body
    lines = text.splitlines(keepends=True)
    doc = docstring_of(body)
    at = doc.end_lineno if doc is not None else 0
    gap = "\n" if doc is not None else ""
    return "".join(lines[:at]) + gap + "from __future__ import annotations\n" + \
        ("\n" if at < len(lines) and lines[at].strip() else "") + "".join(lines[at:])


def _reads(node: ast.AST) -> set[str]:
    """The names ``node`` reads and binds nowhere inside itself (what it needs from outside)."""
    loads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and
             isinstance(n.ctx, ast.Load)}
    return loads - (bound_within(node) - {getattr(node, "name", "")})


def _imports_for(name: str, binding: Binding, old: Module, new: Module) -> list[str]:
    """The import statements binding ``name`` in the new module as ``binding`` did in the old.

    Every ``import email.parser``, ``import email.message`` binding ``email`` goes (the def
    may read either); a name the old module binds otherwise is imported from it.
    """
    out = []
    for stmt in binding.stmts:
        if isinstance(stmt, ast.Import):
            out += [f"import {a.name}" + (f" as {a.asname}" if a.asname else "")
                    for a in stmt.names if (a.asname or a.name.split(".")[0]) == name]
        elif isinstance(stmt, ast.ImportFrom) and not out:
            source = resolve(stmt, old.name, old.package)
            a = next(a for a in stmt.names if (a.asname or a.name) == name)
            if source is not None:
                spelled = spell(source, stmt.level > 0, new.name, new.package)
                out.append(f"from {spelled} import {a.name}" +
                           (f" as {a.asname}" if a.asname else ""))
    if out:
        return list(dict.fromkeys(out))
    relative = bool(re.search(r"^from \.", new.text, re.MULTILINE))
    return [f"from {spell(old.name, relative, new.name, new.package)} import {name}"]


def _add_typing(text: str, tree: ast.Module, imports: list[str]) -> str:
    """``imports`` for type checkers only.

    In the module's ``if TYPE_CHECKING:`` block, or a new one below its imports.
    """
    if not imports:
        return text
    lines = text.splitlines(keepends=True)
    block = next((s for s in tree.body if isinstance(s, ast.If) and type_checking(s.test)),
                 None)
    if block is not None:
        indent = " " * block.body[0].col_offset
        at = block.body[-1].end_lineno
        return "".join(lines[:at]) + "".join(f"{indent}{i}\n" for i in imports) + \
            "".join(lines[at:])
    body = "if TYPE_CHECKING:\n" + "".join(f"    {i}\n" for i in imports)
    last = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    at = last[-1].end_lineno if last else 0
    return "".join(lines[:at]) + ("\n" if at else "") + body + \
        ("\n" if at < len(lines) else "") + "".join(lines[at:])


def _add_imports(text: str, imports: list[str]) -> str:
    """``imports`` below the module's last top-level import (or its docstring, or atop it)."""
    if not imports:
        return text
    tree = ast.parse(text)
    block = "\n".join(sorted(imports, key=lambda i: (i.startswith("from "), i)))
    body = tree.body
    last = [s for s in body if isinstance(s, ast.Import | ast.ImportFrom)]
    lines = text.splitlines(keepends=True)
    if last:
        at = last[-1].end_lineno
        return "".join(lines[:at]) + block + "\n" + "".join(lines[at:])
    doc = docstring_of(body)
    if doc is not None:
        at = doc.end_lineno
        return "".join(lines[:at]) + "\n" + block + "\n" + "".join(lines[at:])
    if not body:
        return block + "\n" + text
    top = isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    return block + ("\n\n\n" if top else "\n\n") + text  # as PEP 8 spaces them


def _drop_unused(text: str, names: list[str]) -> str:
    """Take out of the module's top-level imports those of ``names`` it no longer reads."""
    index = scope_index(text)
    if index is None:
        return text
    read = {o.name for o in index.occurrences if not o.binding}
    if re.search(r"^__all__\b", text, re.MULTILINE):
        read |= set(re.findall(r"['\"](\w+)['\"]", text))  # listed to export: still used
    unused = set(names) - read
    if not unused:
        return text
    lines = text.splitlines(keepends=True)
    for stmt in sorted((s for s in index.tree.body if isinstance(s, ast.Import | ast.ImportFrom)),
                       key=lambda s: -s.lineno):
        keep = [a for a in stmt.names if (a.asname or a.name).split(".")[0] not in unused]
        if len(keep) == len(stmt.names) or stmt.lineno != stmt.end_lineno:
            continue  # nothing of it unused, or written over several lines: left
        line = lines[stmt.lineno - 1]
        if not keep:
            lines[stmt.lineno - 1] = ""
            continue
        names_text = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
        head = line[:stmt.col_offset] + ("import " if isinstance(stmt, ast.Import) else
                                         line[stmt.col_offset:line.index(" import ") + 8])
        lines[stmt.lineno - 1] = head + names_text + "\n"
    return "".join(lines).lstrip("\n")  # no blank lines atop where the first import went
