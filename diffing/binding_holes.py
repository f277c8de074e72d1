"""A hole where a name is bound: the names the code it binds for reads and nothing binds.

``with open(path, "w") as ???:`` above ``json.dump(obj, fh)`` wants ``fh``; the model, which
writes the usual name, wrote ``f`` and left ``fh`` unbound. A hole that is a binding's
target — a function's parameters (``def area(???)`` above ``math.pi * r ** 2``), a ``for``'s
or a comprehension's target, a ``with``'s or an ``except``'s ``as``, an assignment's target —
takes as mechanical candidates the names that the code it binds for reads and that no scope
binds (:func:`.checks.unbound`), by where they are first read: for parameters and loop
targets all of them at once first (``x, y``), then each alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from .checks import unbound
from .edits import parse_python
from .syntax import placeholders

_HOLE = "_remask_binding_hole_"
# what a binding's target has before it on its line, or after it: ``def f(``, ``for ``,
# ``as ``, ``lambda ``; ``, `` / ``)`` in a parameter list, ``=`` or ``:`` after a target
_BINDING_HEAD = re.compile(r"\b(?:def|for|as|lambda)\b")
_BINDING_TAIL = re.compile(r"[ \t]*(?:[,):]|=(?!=))")


def binding_candidates(text: str, start: int, end: int, marker: str,
                       path: str | None = None) -> tuple[str, ...]:
    """The texts for the hole text[start:end] if it is a binding's target, else ()."""
    head = text[text.rfind("\n", 0, start) + 1:start]
    if not _BINDING_HEAD.search(head) and not _BINDING_TAIL.match(text, end):
        return ()  # no binding's shape on the line: no whole-file parse (a completion a key)
    probe = placeholders(text[:start] + _HOLE + text[end:], marker)
    try:
        tree = parse_python(probe)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    found = _binding(tree)
    if found is None:
        return ()
    region, several = found
    reads = unbound(probe, path) - {_HOLE}
    if not reads:
        return ()
    loads = sorted((n for node in region for n in ast.walk(node) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load) and n.id in reads),
                   key=lambda n: (n.lineno, n.col_offset))
    names = list(dict.fromkeys(n.id for n in loads))
    names.sort(key=lambda n: n not in ("self", "cls"))  # a method's own parameter goes first
    if several and len(names) > 1:
        return (", ".join(names), *names)
    return tuple(names)


def _binding(tree: ast.Module) -> tuple[list[ast.AST], bool] | None:
    """What the hole's binding is for (the nodes that may read it), and if several names.

    Several: parameters, a loop's target. None where the hole binds nothing.
    """
    for node, body in _with_bodies(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                     *(a for a in (args.vararg, args.kwarg) if a is not None)]
            if any(a.arg == _HOLE for a in every):
                return ([node.body] if isinstance(node, ast.Lambda) else node.body), True
        elif isinstance(node, ast.For | ast.AsyncFor) and _is_hole(node.target):
            return [*node.body, *node.orelse], True
        elif isinstance(node, ast.comprehension) and _is_hole(node.target):
            return [*body, *node.ifs], True
        elif isinstance(node, ast.With | ast.AsyncWith) and any(
                _is_hole(item.optional_vars) for item in node.items):
            return node.body, False
        elif isinstance(node, ast.ExceptHandler) and node.name == _HOLE:
            return node.body, False
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_hole(t) for t in targets):
                return body, False
    return None


def _is_hole(target: ast.AST | None) -> bool:
    """Whether a binding's target is the hole itself (not ``x[???]`` or ``???.attr``)."""
    return isinstance(target, ast.Name) and target.id == _HOLE


def _with_bodies(tree: ast.Module) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Every node, with what follows it that its binding can reach.

    For a statement, the statements after it in its block; for a comprehension's generator,
    the element and the generators after it.
    """
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for i, child in enumerate(block):
                    if isinstance(child, ast.AST):
                        yield child, block[i + 1:]
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for i, gen in enumerate(node.generators):
                yield gen, [*elements, *node.generators[i + 1:]]
        elif isinstance(node, ast.Lambda):
            yield node, []
        stack.extend(ast.iter_child_nodes(node))
