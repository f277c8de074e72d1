"""Where docstrings, comments and strings mention a name the user renamed.

A docstring that says ``*func*`` or ``:param func:`` is about the parameter and follows its
new name; one that says "a multiple of *n*" is English that happens to share a parameter's
name (more-itertools' ``multiple`` → ``next_multiple``), and a string that is not the docstring
is data (scrapy's ``"INSERT INTO %s (domain, ...)"`` names a column, not the ``domain``
parameter). So a mention follows when it is marked up as code — emphasis, an inline literal, a
field list, an argument list entry, a doctest line — or when the name could not be an English
word (an underscore, a digit, a capital inside it).

Two kinds of string are code, and name module-level bindings as surely as a reference does:
an entry of ``__all__`` (``from m import *`` and the docs tools read it; a stale one is an
AttributeError at import) and a forward reference in an annotation (``other: "Node"``,
``list["Node"]``: type checkers and ``typing.get_type_hints`` evaluate it).
"""

from __future__ import annotations

import ast
import io
import re
import symtable
import tokenize

from .edits import ast_offset, line_starts, parse_python
from .proposal import Span

# inline literals and emphasis on one line: ``code``, `code`, *emphasis*
_MARKUP = re.compile(r"``[^`\n]+``|`[^`\n]+`|\*[^*\s][^*\n]*\*")
_FIELD = re.compile(r":\w+(?:\s+[\w.\[\], ]+?)?\s+$")  # ":param ", ":type ", ":param int "


def mentions(text: str, offset: int, old: str, new: str) -> list[Span]:
    """Return the mentions of ``old`` to rename in the docstring and comments of a function.

    The function is the innermost around ``offset``.
    """
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    starts, fn, body = line_starts(text), None, None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = ast_offset(text, starts, node.lineno, node.col_offset)
            b = ast_offset(text, starts, node.end_lineno, node.end_col_offset)
            if a <= offset < b and (body is None or b - a < body[1] - body[0]):
                fn, body = node, (a, b)
    if fn is None or body is None:
        return []
    doc = _docstring(text, starts, fn)
    word = re.compile(rf"(?<![\w]){re.escape(old)}(?![\w])")
    plain = "_" not in old and not any(c.isdigit() for c in old) and old[1:] == old[1:].lower()
    out = []
    for kind, a, b in _strings_and_comments(text, starts):
        if not (body[0] <= a and b <= body[1]) or (kind == "string" and (a, b) != doc):
            continue
        out += [Span(m.start(), m.end(), "rename",
                     f"'{old}' mentioned in a {'docstring' if kind == 'string' else kind}; "
                     f"renamed to '{new}'", (new,))
                for m in word.finditer(text, a, b)
                if not plain or _marked(text, m.start(), m.end(), a)]
    return out


def module_mentions(text: str, old: str, new: str) -> list[Span]:
    """Return the strings naming module-level ``old``: in ``__all__``, string annotations.

    An annotation evaluated where another binding of ``old`` is seen first (a parameter of
    that name, a class attribute beside the method) means that one and is left.
    """
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    starts, out = line_starts(text), []
    found = [(n, "__all__") for n in _all_strings(tree)] + \
        [(n, "an annotation") for n in _annotation_strings(tree, text, old)]
    for node, where in found:
        a = _plain_string(text, starts, node)
        if a is None:
            continue
        if where == "__all__":
            names = [0] if node.value == old else []
        else:
            try:
                expr = ast.parse(node.value, mode="eval")
            except SyntaxError:
                continue
            names = [n.col_offset for n in ast.walk(expr)
                     if isinstance(n, ast.Name) and n.id == old and n.lineno == 1]
        out += [Span(a + 1 + col, a + 1 + col + len(old), "rename",
                     f"'{old}' named in {where} on line {node.lineno}; renamed to '{new}'",
                     (new,)) for col in names]
    return out


def path_mentions(text: str, tree: ast.Module, paths: set[str], old: str, new: str,
                  why: str) -> list[Span]:
    """The strings naming module-level ``old`` by one of its dotted ``paths`` (``pkg.lib.old``).

    ``mock.patch("pkg.lib.old")``, ``monkeypatch.setattr("pkg.use.old", …)`` and entry
    points (``"pkg.lib:old"``) name it as surely as an import does; a stale one fails only
    when it runs. An attribute path under it (``"pkg.lib.Old.method"``) names it too.
    """
    wanted = {p: len(p) - len(old) for p in paths} | \
        {f"{p[:-len(old) - 1]}:{old}": len(p) - len(old) for p in paths}
    starts, out = line_starts(text), []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and old in node.value):
            continue
        col = next((c for p, c in wanted.items()
                    if node.value == p or node.value.startswith(f"{p}.")), None)
        a = None if col is None else _plain_string(text, starts, node)
        if a is not None:
            out.append(Span(a + 1 + col, a + 1 + col + len(old), "rename",
                            f"'{node.value}' on line {node.lineno}: {why}", (new,)))
    return out


def _plain_string(text: str, starts: list[int], node: ast.Constant) -> int | None:
    """Where a string constant's literal starts, if it is written as its value in quotes.

    A prefix, an escape, a triple quote or implicit concatenation: None, left alone.
    """
    a = ast_offset(text, starts, node.lineno, node.col_offset)
    b = ast_offset(text, starts, node.end_lineno, node.end_col_offset)
    quote = text[a:b][:1]
    return a if quote in ("'", '"') and text[a:b] == quote + node.value + quote else None


def all_entries(text: str, tree: ast.Module, name: str) -> list[tuple[int, int, str]]:
    """Edits ``(start, end, new text)`` taking ``name`` out of the lists and tuples of ``__all__``.

    An entry goes with the comma after it (before it, for the last one); a tuple left with one
    entry keeps a comma after it, so that it stays a tuple (``("x")`` is a string), and a
    tuple without brackets left with none becomes ``()`` (``__all__ = `` does not parse).
    """
    starts, out = line_starts(text), []
    wanted = {id(n) for n in _all_strings(tree) if n.value == name}

    def at(n: ast.expr, end: bool = False) -> int:
        return ast_offset(text, starts, *((n.end_lineno, n.end_col_offset) if end
                                          else (n.lineno, n.col_offset)))

    for box in ast.walk(tree):
        if not isinstance(box, ast.List | ast.Tuple):
            continue
        elts = box.elts
        for i, e in enumerate(elts):
            if id(e) not in wanted or _plain_string(text, starts, e) is None:
                continue
            if isinstance(box, ast.Tuple) and len(elts) == 2:
                kept = elts[1 - i]
                out.append((at(elts[0]), at(elts[1], True),
                            text[at(kept):at(kept, True)] + ","))
            elif i + 1 < len(elts):
                out.append((at(e), at(elts[i + 1]), ""))
            elif i:
                out.append((at(elts[i - 1], True), at(e, True), ""))
            else:  # the only one, and the comma a tuple or a list may have after it
                after = at(e, True)
                rest = text[after:].lstrip(" \t")
                end = after + (len(text) - after - len(rest) + 1 if rest.startswith(",") else 0)
                bare = isinstance(box, ast.Tuple) and text[at(box)] != "("
                out.append((at(e), end, "()" if bare else ""))  # ``__all__ = "x",``
    return out


def _all_strings(tree: ast.Module) -> list[ast.Constant]:
    """The strings ``__all__`` is made of, in module-level statements (``if`` blocks too)."""
    out: list[ast.Constant] = []
    todo = list(tree.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        todo += [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt)]
        todo += [c for h in getattr(stmt, "handlers", ()) for c in h.body]
        value: ast.AST | None = None
        if isinstance(stmt, ast.Assign) and any(_is_all(t) for t in stmt.targets) or \
                isinstance(stmt, ast.AugAssign | ast.AnnAssign) and _is_all(stmt.target):
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute) and _is_all(stmt.value.func.value) \
                and stmt.value.func.attr in ("append", "extend", "insert", "remove"):
            value = ast.Tuple(elts=stmt.value.args)
        if value is not None:  # ``a.__all__ + ["x"]`` too
            out += [n for n in ast.walk(value)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return out


def _annotation_strings(tree: ast.Module, text: str, old: str) -> list[ast.Constant]:
    """The string constants of annotations where ``old`` means the module's binding.

    A def's parameter and return annotations are evaluated where the def is, a variable's
    where it is declared; a function scope that binds ``old`` hides the module's from all
    it encloses, a class body only from what is directly in it.
    """
    if not any(old in c.value for n in ast.walk(tree) for c in _strings(
            n.annotation if isinstance(n, ast.arg | ast.AnnAssign) else
            n.returns if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) else None)):
        return []  # the common case: no string annotation names it, no symbol table needed
    try:
        binds = _scopes_binding(symtable.symtable(text, "<remask>", "exec"), old)
    except (SyntaxError, ValueError, RecursionError):
        return []
    out: list[ast.Constant] = []

    def visit(node: ast.AST, hidden: bool, class_hides: bool) -> None:
        here = hidden or class_hides
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not isinstance(child, ast.ClassDef) and not here:
                    args = child.args
                    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                              args.vararg, args.kwarg]:
                        out.extend(_strings(a.annotation if a else None))
                    out.extend(_strings(child.returns))
                own = (child.name, child.lineno) in binds
                if isinstance(child, ast.ClassDef):
                    visit(child, hidden, own)
                else:
                    visit(child, hidden or own, False)
            elif isinstance(child, ast.AnnAssign):
                if not here:
                    out.extend(_strings(child.annotation))
            elif not isinstance(child, ast.arguments):
                visit(child, hidden, class_hides)

    visit(tree, False, False)
    return out


def _scopes_binding(table: symtable.SymbolTable, name: str) -> set[tuple[str, int]]:
    """``(name, line)`` of every function or class scope that binds ``name`` itself."""
    out = set()
    for child in table.get_children():
        try:
            sym = child.lookup(name)
        except KeyError:
            sym = None
        if sym is not None and (sym.is_local() or sym.is_parameter()) and not sym.is_global():
            out.add((child.get_name(), child.get_lineno()))
        out |= _scopes_binding(child, name)
    return out


def _strings(expr: ast.AST | None) -> list[ast.Constant]:
    """The string constants in an annotation: not ``Literal``'s values, not metadata."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr]
    if isinstance(expr, ast.Subscript) and _typing(expr.value) == "Literal":
        return []  # Literal["r", "w"]: values, not types
    if isinstance(expr, ast.Subscript) and _typing(expr.value) == "Annotated":
        elts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return _strings(elts[0])  # the rest is metadata
    if expr is None:
        return []
    return [s for c in ast.iter_child_nodes(expr) for s in _strings(c)]


def _typing(node: ast.expr) -> str:
    """The name a subscripted annotation goes by: ``Literal`` for ``typing.Literal[…]``."""
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else ""


def _is_all(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "__all__"


def _marked(text: str, a: int, b: int, token: int) -> bool:
    """Whether the mention at ``text[a:b]`` is marked up as code on its line.

    ``token`` is where its docstring or comment starts: a trailing comment's line is read
    from the ``#``.
    """
    ls = max(text.rfind("\n", 0, a) + 1, token)
    le = text.find("\n", b)
    line = text[ls:le if le >= 0 else len(text)]
    at, end = a - ls, b - ls
    before, after = line[:at], line[end:]
    if line.lstrip().startswith((">>>", "...")):
        return True  # a doctest line is code
    if any(m.start() < at and end < m.end() for m in _MARKUP.finditer(line)):
        return True
    if _FIELD.search(before) and after.startswith(":"):
        return True  # :param name: / :type name:
    stripped = before.strip().lstrip("#").strip()
    return not stripped.strip("*") and re.match(r"\*{0,2}\s*(\(|:)", after) is not None


def _docstring(text: str, starts: list[int], fn: ast.AST) -> tuple[int, int] | None:
    """Offsets of the function's docstring token, None if it has none."""
    first = fn.body[0] if fn.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return None
    node = first.value
    return (ast_offset(text, starts, node.lineno, node.col_offset),
            ast_offset(text, starts, node.end_lineno, node.end_col_offset))


def _strings_and_comments(text: str, starts: list[int]) -> list[tuple[str, int, int]]:
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT):
                a = starts[tok.start[0] - 1] + tok.start[1]
                b = starts[tok.end[0] - 1] + tok.end[1]
                out.append(("comment" if tok.type == tokenize.COMMENT else "string", a, b))
    except (tokenize.TokenError, SyntaxError):
        return []
    return out


__all__ = ["mentions"]
