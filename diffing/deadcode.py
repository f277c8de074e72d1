"""Code a candidate leaves dead: statements no path reaches or that do nothing, values dropped.

Each is what the model writes where it has nothing better (a ``return`` above the code the
function goes on with, ``n = n``, the line above a hole echoed, ``return 0`` below the loop
that summed ``total``) and what people hardly ever write, so :func:`.checks.faults` counts
them. Each reads the function holding the
offset, parsed once for :mod:`.flow` and here alike (:func:`.flow.innermost_def`).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator

from .flow import innermost_def

_TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def unreachable_statements(text: str, at: int) -> int:
    """How many statements of the body holding ``at`` no path reaches.

    Those after a ``return``, ``raise``, ``break`` or ``continue`` in their own block: a
    fill that ends a block early (``return words`` above the ``return words[0]`` the
    function goes on with) silences the code after it, which is seldom what was removed and
    never what a user who wrote that code meant. Only statements straight after one count,
    not those an ``if`` whose every branch returns leaves behind. Parsed as
    :func:`.flow.reads_before_binding` parses (the same parse, cached); text that does not parse
    counts 0.
    """
    found = innermost_def(text, at)
    return 0 if found is None else sum(
        next((len(stmts) - i - 1 for i, s in enumerate(stmts) if isinstance(s, _TERMINAL)), 0)
        for stmts in _blocks(found[3]))


def idle_statements(text: str, at: int) -> int:
    """How many statements of the function holding ``at`` do nothing.

    A ``pass`` beside other code, ``x = x`` (``self.a = self.a``), an assignment the same
    as the one just before it, an expression that calls nothing (``total``, ``out.append``,
    ``state == "mixed"``): the model writes them where it has nothing to say (a block of one
    line echoed, a read it cannot answer dropped for ``pass``, a name it should have used),
    and code people write hardly ever holds them — in a third of the corpus's files, 21
    such ``pass``es, 6 repeated assignments and no self-assignment in a function among 900k
    statements; in 3,000 files 250 expressions calling nothing among 492k statements
    (session 39), nearly all tests raising on purpose (``1 / 0``) or touching an attribute.
    Module level counts 0 (``name = name`` re-exports there); so does text that does not
    parse.
    """
    found = innermost_def(text, at)
    if found is None or isinstance(found[3], ast.Module):
        return 0
    idle = 0
    for stmts in _blocks(found[3]):
        code = [s for s in stmts if not (isinstance(s, ast.Expr)
                                         and isinstance(s.value, ast.Constant))]
        idle += sum(isinstance(s, ast.Pass) for s in code) if len(code) > 1 else 0
        idle += sum(isinstance(s, ast.Expr) and _pure(s.value) for s in stmts)
        idle += sum(isinstance(s, ast.Assign) and len(s.targets) == 1
                    and _same(s.targets[0], s.value) for s in stmts)
        idle += sum(isinstance(b, ast.Assign | ast.AugAssign | ast.AnnAssign) and _same(a, b)
                    for a, b in itertools.pairwise(stmts))
    return idle


_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


def _pure(value: ast.expr) -> bool:
    """Whether an expression statement does nothing: no call, no ``await``, not a docstring."""
    return not isinstance(value, ast.Constant) and \
        not any(isinstance(n, _EFFECTS) for n in ast.walk(value))


def dropped_values(text: str, at: int) -> int:
    """How many values the function holding ``at`` builds and then never uses.

    A local made on the spot (``total = 0``, ``out = []``, ``seen = set()``) and afterwards
    only updated (``total += v``, ``out.append(x)``, ``seen[k] = v``, ``n = n + 1``) has
    one purpose, to be read; a fill that reads it nowhere (``return 0`` where ``return
    total / len(values)`` was removed) drops the function's work. People almost never write
    that: 57 such locals in 56k functions of 3,000 corpus files (session 39). Locals bound
    any other way (a parameter, a loop or ``with`` target, unpacking, an import, a call's
    result, ``global``) do not count, nor do ``_``-names, nor functions that call
    ``locals``, ``vars``, ``eval`` or ``exec``. Text that does not parse counts 0.
    """
    found = innermost_def(text, at)
    if found is None or isinstance(found[3], ast.Module):
        return 0
    fn = found[3]
    made, other = set(), {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    plain, idle = set(), set()  # ids of Name nodes: plain targets, reads that use nothing
    for node in _own_nodes(fn):  # a parent before its children: its targets are known
        match node:
            case ast.Name(ctx=ast.Store()) if id(node) not in plain:
                other.add(node.id)  # a loop target, unpacking, ``:=``, ``as``
            case ast.Global(names=names) | ast.Nonlocal(names=names):
                other.update(names)
            case ast.Import(names=names) | ast.ImportFrom(names=names):
                other.update((a.asname or a.name).split(".")[0] for a in names)
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | \
                    ast.ClassDef(name=name) | ast.ExceptHandler(name=str() as name):
                other.add(name)
            case ast.Call(func=ast.Name(id="locals" | "vars" | "eval" | "exec")):
                return 0
            case ast.Assign(targets=[ast.Name(id=name) as target], value=value) | \
                    ast.AnnAssign(target=ast.Name(id=name) as target, value=ast.expr() as value):
                plain.add(id(target))
                if reads := _reads_of(name, value):
                    idle.update(reads)  # ``n = n + 1``: an update
                else:
                    (made if _fresh(value) else other).add(name)
            case ast.AugAssign(target=ast.Name(id=name) as target, value=value):
                plain.add(id(target))
                idle.update(_reads_of(name, value))
            case ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name() as base))):
                idle.add(id(base))  # ``out.append(x)`` as a statement: an update
            case ast.Expr(value=ast.Name() as base) | \
                    ast.Expr(value=ast.Attribute(value=ast.Name() as base)):
                idle.add(id(base))  # ``total`` alone: read, and dropped again
        for target in _targets(node):
            if isinstance(target, ast.Subscript | ast.Attribute) and \
                    isinstance(target.value, ast.Name):
                idle.add(id(target.value))  # ``seen[k] = v``, ``acc.n = 1``: updates
    used = set()
    for node in ast.walk(fn):  # nested functions read it too
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store) \
                and id(node) not in idle:
            used.add(node.id)
    return sum(not name.startswith("_") for name in made - other - used)


_MAKERS = frozenset({"list", "dict", "set", "frozenset", "tuple", "str", "bytes", "bytearray",
                     "int", "float"})
_LITERALS = (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
             ast.DictComp, ast.JoinedStr)


def _fresh(value: ast.expr) -> bool:
    """Whether ``value`` is made on the spot (a literal, an empty container), not fetched."""
    match value:
        case ast.UnaryOp(operand=operand):
            return _fresh(operand)
        case ast.BinOp(left=left, right=right):
            return _fresh(left) and _fresh(right)
        case ast.Call(func=ast.Name(id=maker)):
            return maker in _MAKERS
    return isinstance(value, _LITERALS)


def _reads_of(name: str, value: ast.expr) -> set[int]:
    """The ids of ``value``'s reads of ``name``: in ``n = n + 1`` they only update ``n``."""
    return {id(n) for n in ast.walk(value) if isinstance(n, ast.Name) and n.id == name}


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment or ``del`` statement writes to."""
    match node:
        case ast.Assign(targets=targets) | ast.Delete(targets=targets):
            return targets
        case ast.AugAssign(target=target) | ast.AnnAssign(target=target):
            return [target]
    return []


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s own scope, each before its children.

    Nested functions, classes and lambdas are not entered.
    """
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                          | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _blocks(owner: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list under ``owner``: bodies, ``else``s, ``finally``s."""
    for node in ast.walk(owner):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts


def _same(a: ast.AST, b: ast.AST) -> bool:
    """Whether two nodes are the same code, a target and a read of it alike."""
    return ast.dump(a).replace("Store()", "Load()") == ast.dump(b).replace("Store()", "Load()")
