"""Small checks and bookkeeping the Rewriter applies to every candidate and proposal."""

from __future__ import annotations

import ast
import re
import symtable
import threading
import warnings
from functools import lru_cache
from pathlib import Path

from .deadcode import dropped_values, idle_statements, unreachable_statements
from .edits import ast_offset, line_starts, parse_python, python_source
from .flow import BUILTINS, reads_before_binding
from .namespaces import import_fails

_TITLES = {"rename": ("Rename {n} reference", "Rename {n} references"),
           "signature": ("Update {n} use of the signature", "Update {n} uses of the signature"),
           "dangling": ("Fix {n} dangling use", "Fix {n} dangling uses"),
           "hole": ("Fill hole", "Fill {n} holes"),
           "repair": ("Repair statement", "Repair {n} statements")}


def fresh(keys: list, pool: list) -> list:
    """Return the error keys not accounted for by ``pool`` (a multiset: each used once)."""
    left, out = list(pool), []
    for k in keys:
        if k in left:
            left.remove(k)
        else:
            out.append(k)
    return out


@lru_cache(maxsize=16)
def python_ok(text: str, path: str | None, after: int | None) -> bool:
    """Whether Python's own compiler accepts ``text`` (or first complains past ``after``).

    Tree-sitter is more lenient than CPython in places; a Python proposal must satisfy both.
    Non-Python files pass. Cached: one fill asks about the same whole file more than once.
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return True
    error = python_error(text)
    if error is None:
        return True
    if after is None or not error.lineno:
        return False
    return _blamed_line_start(text, error) > after


def python_blames_above(text: str, path: str | None, start: int) -> bool:
    """Whether Python's first complaint about ``text`` is on a line above the one ``start`` is on.

    Python reports an error its tokenizer finds (a bracket that does not match) before any
    parse error, wherever each is: mending such a line can let it see a broken statement
    above, which is then that statement's error, not the mended line's. Not a bracket or
    a triple-quoted string left open above: what closed it may be what the mend took away.
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return False
    error = python_error(text)
    if error is None or not error.lineno or any(
            m in error.msg for m in ("never closed", "does not match", "unmatched",
                                     "triple-quoted")):
        return False
    return _blamed_line_start(text, error) < text.rfind("\n", 0, start) + 1


def _blamed_line_start(text: str, error: SyntaxError) -> int:
    """Where the line Python's complaint names starts in ``text``."""
    starts = line_starts(text)
    return starts[min(error.lineno or 1, len(starts)) - 1]


def python_error(text: str) -> SyntaxError | None:
    """The error Python's compiler finds in ``text``, or None.

    Compiled, not only parsed: ``ast.parse`` accepts a ``return`` or ``yield`` outside a
    function, a ``break`` outside a loop, a ``nonlocal`` with nothing to bind, a repeated
    parameter — a fill written at the wrong indentation (``return True`` at column 0 below
    a function) — which the file then fails to import with. Compiling in C is also faster
    than building the tree (argparse.py: 15 ms against 29).
    """
    return _compiled(text)[0]


# ``catch_warnings`` swaps the process's warning filters: one compile at a time, and of what
# it records only the compiler's own (another thread's warnings land in the same list).
_RECORDING = threading.Lock()
_FILENAME = "<remask candidate>"


@lru_cache(maxsize=16)
def _compiled(text: str) -> tuple[SyntaxError | None, int]:
    """Python's compiler's error in ``text`` (or None) and how many warnings it gave.

    The warnings are counted, not shown (an invalid escape, ``is`` with a literal, a string
    called): the user's own are the same for every candidate, and a fill that adds one
    (``"lower"({"mixed"})``) is a fault.
    """
    error = None
    with _RECORDING, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compile(python_source(text), _FILENAME, "exec", dont_inherit=True)
        except SyntaxError as e:
            error = e
        except ValueError as e:  # a NUL byte
            error = SyntaxError(str(e))
        except RecursionError:  # nested deeper than the compiler goes: Python can't run it
            error = SyntaxError("too deeply nested for Python's compiler")
    return error, sum(w.filename == _FILENAME for w in caught)


_BUILTINS = BUILTINS | {"__file__", "__name__", "__doc__", "__spec__",
                         "__package__", "__loader__", "__builtins__"}
_STAR_IMPORT = re.compile(r"^\s*from\s+\S+\s+import\s+\*", re.MULTILINE)


def unbound_names(text: str, path: str | None) -> int:
    """How many names ``text`` reads that no scope they could come from binds (:func:`unbound`).

    That is what a candidate gets plainly wrong: a name it makes up, a name of another
    function's, or a name the rest of the file reads that only the removed code bound.
    Ranking such candidates last, measured on the shipped pair (session 25; the whole
    HumanEval single-line split, each fill's candidates parse-first): pass@1 11.33% → 12.00%;
    on 600 single-line holes from the corpus's held-out files, edit similarity 0.537 → 0.549.
    """
    return len(unbound(text, path))


@lru_cache(maxsize=16)
def unbound(text: str, path: str | None) -> frozenset[str]:
    """The names ``text`` reads that no scope they could come from binds.

    Python's own compile-time scopes (``symtable``, in C: about half the time of an ``ast``
    walk): a name a function reads that is neither its own, nor an enclosing function's, nor
    bound at module level (or by a ``global`` statement), nor a builtin. Files Python cannot
    compile, non-Python files and files with a star import (which may bind anything) have
    none.
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return frozenset()
    try:
        top = symtable.symtable(python_source(text), str(path or "<text>"), "exec")
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    if _STAR_IMPORT.search(text):
        return frozenset()
    module, reads, tables = set(_BUILTINS), set(), [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for sym in table.get_symbols():
            name = sym.get_name()
            if table is top and sym.is_local() or sym.is_declared_global() and sym.is_assigned():
                module.add(name)
            elif sym.is_referenced() and sym.is_global() and not sym.is_local():
                reads.add(name)  # it must come from the module (or builtins)
    return frozenset(reads - module)


def failing_imports(text: str, path: str | None, start: int, end: int) -> list[str]:
    """The names imported in ``text[start:end]`` that surely fail when the file runs.

    ``from os import os`` raises ``ImportError``; so does ``import json.nosuch``. Only the
    names the range touches are judged (a fill's own), each as :func:`.namespaces.import_fails`
    judges it: a module another environment may have, or one that binds names as it runs,
    is never counted. A text Python cannot parse has none.
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return []
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    starts = line_starts(text)

    def span(node: ast.AST) -> tuple[int, int]:
        return (ast_offset(text, starts, node.lineno, node.col_offset),
                ast_offset(text, starts, node.end_lineno, node.end_col_offset))

    def touched(node: ast.AST) -> bool:
        a, b = span(node)
        return a <= end and b >= start

    here = Path(path).absolute().parent if path else None
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom) and touched(node):
            if isinstance(node, ast.Import):
                out += [a.name for a in node.names if touched(a) and "." in a.name
                        and import_fails(a.name, None, here)]
                continue
            module = "." * node.level + (node.module or "")
            whole = span(node)[0] <= end and span(node.names[0])[0] >= start  # its module's
            out += [f"{module}.{a.name}" for a in node.names if a.name != "*" and (
                whole or touched(a)) and import_fails(module, a.name, here)]
        else:
            todo.extend(c for c in ast.iter_child_nodes(node)
                        if isinstance(c, ast.stmt | ast.excepthandler | ast.match_case))
    return out


@lru_cache(maxsize=16)
def faults(text: str, path: str | None, at: int) -> int:
    """What a candidate at ``at`` is ranked by: reads finding nothing, code idle or unreached.

    ``unbound_names`` (a name no scope binds), plus the reads of the body holding ``at``
    that no binding of theirs reaches yet (:func:`.flow.reads_before_binding`: ``x = x``
    where a ``???`` was, ``total += n`` above the ``total = 0`` it needs), which scopes alone
    count as bound, plus the statements of that body no path reaches
    (:func:`.deadcode.unreachable_statements`: a ``return`` filled in above code the function
    goes on with). Each was measured on the shipped bundle through the ``Rewriter``, paired:
    reads before binding (session 32) took the whole HumanEval single-line split 16.17% →
    16.26% (+1 / −0), multi-line (500 tasks) 4.00% both; unreachable statements (session
    33) 16.26% → 16.65% (+4 / −0) and 4.00% → 4.20% (+1 / −0), edit similarity on 600
    held-out lines 0.593 → 0.598. Plus the statements of that function that do nothing
    (:func:`.deadcode.idle_statements`: a ``pass`` beside code, ``x = x``, a line echoed),
    the values it builds and never uses (:func:`.deadcode.dropped_values`: ``return 0``
    below the loop that summed ``total``), and the warnings Python's compiler gives for the
    whole text (a string called: ``"lower"({"mixed"})``).
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return 0
    try:
        return (unbound_names(text, path) + reads_before_binding(text, at)
                + unreachable_statements(text, at) + idle_statements(text, at)
                + dropped_values(text, at) + _compiled(text)[1])
    except RecursionError:  # a tree deeper than the walks over it go: nothing to rank by
        return 0


def same_statement(text: str, program: str, at: int) -> bool:
    """Whether ``program`` (``text`` refilled from ``at``) keeps the statement at ``at`` as it was.

    The same kind of statement binding the same targets (a ``return`` still returning a
    value), and as many statements in the file: what a fix for a read the edit left dangling
    may change is the statement's expressions, not what it does. Read from the model's fills
    for such reads in the 192 real edits (session 38): every one the developers wrote keeps
    the statement (``execute(attrname, value, **pipeargs)`` → ``execute(match_condition or
    attrname, value)``), while those the model wrote that lowered the faults did it by doing
    something else: ``pass`` for an assignment, a ``super().__init__(...)`` call turned into
    ``self._cached_benc = self._cached_benc``, a ``return`` turned into five assignments.
    Text Python cannot parse keeps nothing.
    """
    kept = _statement_shape(text, at)
    return kept is not None and kept == _statement_shape(program, at)


@lru_cache(maxsize=16)
def _statement_shape(text: str, at: int) -> tuple | None:
    """How many statements ``text`` has, and the shape of the innermost one holding ``at``.

    Cached: a span's text is asked about once per candidate. None where Python cannot parse.
    """
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return None
    starts, found, count = line_starts(text), None, 0
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            count += 1
            s = ast_offset(text, starts, node.lineno, node.col_offset)
            e = ast_offset(text, starts, node.end_lineno or node.lineno, node.end_col_offset or 0)
            if s <= at < e and (found is None or s >= found[0]):
                found = (s, _shape(node))
    return count, found and found[1]


def _shape(node: ast.stmt) -> tuple:
    """A statement's kind and what it binds (or, for a ``return``, whether it returns a value)."""
    def dump(e: ast.AST | None) -> str:
        return "" if e is None else ast.dump(e)
    match node:
        case ast.Assign(targets=targets):
            bound = [dump(t) for t in targets]
        case ast.AugAssign(target=t, op=op):
            bound = [dump(t), type(op).__name__]
        case ast.AnnAssign(target=t) | ast.For(target=t) | ast.AsyncFor(target=t):
            bound = [dump(t)]
        case ast.With(items=items) | ast.AsyncWith(items=items):
            bound = [dump(i.optional_vars) for i in items]
        case ast.Return(value=value):
            bound = [value is None]
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | \
                ast.ClassDef(name=name):
            bound = [name]
        case _:
            bound = []
    return (type(node).__name__, *bound)


def title(kind: str, n: int) -> str:
    """Return a proposal's title: "Rename 2 references", "Update 1 use of the signature", ..."""
    one, many = _TITLES[kind]
    return (one if n == 1 else many).format(n=n)


def merge_traces(traces: list[dict]) -> dict:
    """Sum the engine traces of every call behind one proposal."""
    out = {"forward_passes": 0, "tokens_processed": 0, "tokens_committed": 0, "seconds": 0.0,
           "steps": 0}
    for t in traces:
        for k in out:
            out[k] += t.get(k, 0)
    out["seconds"] = round(out["seconds"], 4)
    out["calls"] = len(traces)
    return out
