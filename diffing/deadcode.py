"""Code a candidate leaves dead: statements no path reaches, statements that do nothing.

Both are what the model writes where it has nothing better (a ``return`` above the code the
function goes on with, ``n = n``, the line above a hole echoed) and what people hardly
ever write, so :func:`.checks.faults` counts them. Each reads the function holding the
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

    A ``pass`` beside other code, ``x = x`` (``self.a = self.a``), and an assignment the
    same as the one just before it: the model writes them where it has nothing to say (a
    block of one line echoed, a read it cannot answer dropped for ``pass``), and code people
    write hardly ever holds them — in a third of the corpus's files, 21 such ``pass``es, 6
    repeated assignments and no self-assignment in a function among 900k statements.
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
        idle += sum(isinstance(s, ast.Assign) and len(s.targets) == 1
                    and _same(s.targets[0], s.value) for s in stmts)
        idle += sum(isinstance(b, ast.Assign | ast.AugAssign | ast.AnnAssign) and _same(a, b)
                    for a, b in itertools.pairwise(stmts))
    return idle


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
