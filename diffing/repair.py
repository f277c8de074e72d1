"""A statement that no longer parses → its repair unit, and the repairs that need no model.

Tree-sitter's ERROR nodes after a broken keystroke often swallow the rest of the file, so they
are poor at saying *where* to repair. The user's edit is better: the statement it landed in
(found in the text before the edit, which parsed) is the unit to re-denoise, minus the bytes
the user just typed, which stay fixed. Without a before text, Python's own compiler names the
line (or a line above it that may hold its error: ``suspect_units``). Mechanical repairs are
the classic error-correcting-parser moves — close what is open, drop an unmatched closer, add
a compound header's colon, indent a statement left outside its block, insert one missing
punctuation mark (or a ``for``'s ``in``) or drop one too many — each checked by
compiling; the Rewriter ranks them beside the model's candidates, smallest first, after the
fixes of the classic typos (``classic_repairs``, Python's "forgot a comma?", "does not
match" and "unexpected indent" among them), which go before any.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from dataclasses import dataclass, replace

from .checks import python_error
from .edits import ast_offset, line_starts, parse_python
from .proposal import Span

_PAIRS = {"(": ")", "[": "]", "{": "}"}
_COMPOUND = ("def", "class", "if", "elif", "else", "for", "while", "with", "try", "except",
             "finally", "async", "match", "case")
_INSERTABLE = ")]}:,([{\"'"
_LONE_EQUALS = re.compile(r"(?<![=<>!:+\-*/%&|^@])=(?!=)")
_IN = re.compile(r"\bin\b")
_FOR = re.compile(r"\bfor\b")
_ELSE_IF = re.compile(r"\belse[ \t]+if\b")
_PRINT = re.compile(r"[ \t]*print([ \t]+)(?![(=.\[,:)])([^\n]*?)[ \t]*$")
_FIRST_NAME = re.compile(r"[ \t]*[A-Za-z_]\w*")
_NOT_NONE = re.compile(r"(\w+|[)\]}'\"])[ \t]+(not)[ \t]+None\b")  # ``if v not None``


@dataclass(frozen=True)
class Unit:
    """One statement to repair: text[start:end], with text[frozen[0]:frozen[1]] kept fixed."""

    start: int
    end: int
    frozen: tuple[int, int] | None
    reason: str
    anchor: int | None = None  # where the break most likely is: the keystroke, or the parser
    # a line above the one Python blames, suspected of its error (``suspect_units``): the one
    # repair tried is ``fix`` in place of the unit, after which Python's first complaint must
    # lie past ``past`` (the end of the line it blamed)
    past: int | None = None
    fix: str | None = None

    def spans(self) -> list[Span]:
        """Return the unit minus the frozen bytes: the spans a front end shows."""
        if self.frozen is None or self.frozen[0] == self.frozen[1]:
            return [Span(self.start, self.end, "repair", self.reason)]
        a, b = self.frozen  # clipped: typed bytes outside the unit leave it whole
        parts = [(self.start, min(a, self.end)), (max(b, self.start), self.end)]
        return [Span(s, e, "repair", self.reason) for s, e in parts if s < e]

    def allows(self, start: int, end: int) -> bool:
        """Whether an edit of [start, end) stays inside the unit and off the frozen bytes."""
        if start < self.start or end > self.end:
            return False
        if self.frozen is None:
            return True
        a, b = self.frozen
        return end <= a or start >= b


def unit_from_edit(before: str, after: str, start: int, old_end: int, new_end: int,
                   cap: int) -> Unit | None:
    """Return the statement of ``before`` the edit at [start, old_end) is in, mapped to after."""
    try:
        tree = parse_python(before)
    except SyntaxError:
        return None
    starts, best = line_starts(before), None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        s = ast_offset(before, starts, node.lineno, node.col_offset)
        e = _header_end(before, starts, node)
        if s <= start and old_end <= e and (best is None or e - s < best[1] - best[0]):
            best = (s, e, node.lineno)
    if best is None:
        return None
    s, e, line = best
    e += (new_end - old_end)
    if e - s > cap:
        return None
    return Unit(s, e, (start, new_end), f"statement on line {line} no longer parses",
                new_end)


def units_from_errors(text: str, cap: int) -> list[Unit]:
    """Return the line Python's compiler blames, when there is no before text to locate the edit."""
    e = python_error(text)
    if e is None or not e.lineno:
        return []
    starts = line_starts(text)
    lineno = min(e.lineno, len(starts))
    at = starts[lineno - 1] + max((e.offset or 1) - 1, 0)
    unit = _line_unit(text, starts, lineno, f"line {lineno}: {e.msg}", at, cap)
    if e.msg == "unexpected indent":  # what is wrong is the indentation: the unit holds it
        unit = replace(unit, start=starts[lineno - 1])
    return [unit]


def suspect_units(text: str, cap: int) -> list[Unit]:
    """Lines above the one Python blames that may hold its error, each with its one repair.

    Mended there, the blamed line would only pass the blame down a line, round after round.
    Each must move the blame past the blamed line; the blamed line's own error (a comma
    missing in a call over several lines) moves it up instead.
    """
    e = python_error(text)
    if e is None or not e.lineno:
        return []
    starts = line_starts(text)
    lineno = min(e.lineno, len(starts))
    blamed_end = starts[lineno] - 1 if lineno < len(starts) else len(text)
    out = [_left_open(text, starts, lineno, e.msg, cap)]
    if "unindent does not match" in e.msg:
        out.append(_first_too_deep(text, starts, lineno, cap))
    return [replace(u, past=blamed_end) for u in out if u is not None]


def _left_open(text: str, starts: list[int], lineno: int, msg: str, cap: int) -> Unit | None:
    """The line that left a bracket open over line ``lineno``, closed at its end.

    ``return f(`` above a ``def``: Python blames the ``def`` (or a keyword argument's ``=``
    on the line after).
    """
    opened: list[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text[:starts[lineno - 1]]).readline):
            if tok.type == tokenize.OP and tok.string in _PAIRS:
                opened.append(tok.start[0])
            elif tok.type == tokenize.OP and tok.string in _PAIRS.values() and opened:
                opened.pop()
    except (tokenize.TokenError, SyntaxError):  # the end inside a bracket, as expected
        pass
    if not opened:
        return None
    line = opened[-1]
    end = starts[line] - 1 if line < len(starts) else len(text)
    unit = _line_unit(text, starts, line,
                      f"line {line}: a bracket left open ({msg} on line {lineno})", end, cap)
    body = text[unit.start:unit.end]
    return replace(unit, fix=body + closers(body))


def _first_too_deep(text: str, starts: list[int], lineno: int, cap: int) -> Unit | None:
    """A block's first line indented deeper than the rest, given the second's indentation.

    Python blames the second line ("unindent does not match"), and indenting it only passes
    the blame to the third.
    """
    def code_line(n: int) -> tuple[int, str] | None:  # the nearest code line at or above n
        while n >= 1:
            end = starts[n] if n < len(starts) else len(text)
            line = text[starts[n - 1]:end].rstrip("\r\n")
            if line.strip() and not line.lstrip().startswith("#"):
                return n, line
            n -= 1
        return None

    blamed, above = code_line(lineno), code_line(lineno - 1)
    header = above and code_line(above[0] - 1)
    if not (blamed and above and header):
        return None
    own, deep, outer = (len(x[1]) - len(x[1].lstrip()) for x in (blamed, above, header))
    if not (header[1].rstrip().endswith(":") and outer < own < deep):
        return None
    line = above[0]
    unit = _line_unit(text, starts, line,
                      f"line {line}: indented deeper than the line below", starts[line - 1], cap)
    unit = replace(unit, start=starts[line - 1])
    return replace(unit, fix=blamed[1][:own] + text[unit.start:unit.end].lstrip(" \t"))


def _line_unit(text: str, starts: list[int], lineno: int, reason: str, at: int,
               cap: int) -> Unit:
    """Line ``lineno``'s code as a unit (indentation and line break left out)."""
    s = starts[lineno - 1]
    end = starts[lineno] if lineno < len(starts) else len(text)
    line = text[s:end].rstrip("\r\n")
    s += len(line) - len(line.lstrip())
    e_ = min(s + len(line.strip()), s + cap)
    return Unit(s, e_, None, reason, min(max(at, s), e_))


def mechanical_repairs(text: str, unit: Unit, budget: int = 800) -> list[tuple[int, int, str]]:
    """Return single edits (start, end, new_text) in ``text`` coordinates that may repair the unit.

    The closers/colon/stray-closer moves come first, then the statement indented as a block
    above it is (a ``return`` left at column 0 below its function), then every
    one-character insertion of punctuation at a token boundary, nearest the unit's anchor
    first (the keystroke that broke it, or where the compiler complained), bounded by
    ``budget``; the caller compiles each in this order and ranks equal-size repairs by it.
    """
    body = text[unit.start:unit.end]
    _, stray, _ = _scan(body)
    out: list[tuple[int, int, str]] = []
    tail = len(body.rstrip())
    if _is_header(body) and body[:tail].endswith(":"):
        tail -= 1  # close brackets before a header's colon
    closing = closers(body[:tail]) + (":" if _is_header(body) and not
                                      body.rstrip().endswith(":") else "")
    if closing:
        out.append((unit.start + tail, unit.start + tail, closing))
    for i, _ in stray:  # swapped for the closer it wants: ``classic_repairs``
        out.append((unit.start + i, unit.start + i + 1, ""))
    out += [(unit.start, unit.start, more) for more in _deeper(text, unit.start)]
    # ``for i range(3):``, ``[b for b xs]``: the one keyword a ``for`` cannot do without
    insertable = [*_INSERTABLE, "in "] if len(_FOR.findall(body)) > len(_IN.findall(body)) \
        else list(_INSERTABLE)
    first = _FIRST_NAME.match(body)  # ``print: "x"`` parses (an annotation) but mends nothing
    named = first.end() if first and not _is_header(body) else -1
    anchor = (unit.anchor if unit.anchor is not None else unit.end) - unit.start
    for i in sorted(range(len(body) + 1), key=lambda i: (abs(i - anchor), -i)):
        if i < len(body) and body[i] in ",;":  # ``[1,, 2]``, ``x = 1;;``: one too many
            out.append((unit.start + i, unit.start + i + 1, ""))
        if i not in (0, len(body)) and body[i - 1].isalnum() and body[i].isalnum():
            continue
        for ch in insertable:
            if ch == "in " and not (i and body[i - 1] in " \t"):
                continue  # a word of its own: ``for s in xs``, not ``forin  s xs``
            if not (ch == ":" and named >= 0 and not body[named:i].strip() and i >= named):
                out.append((unit.start + i, unit.start + i, ch))
    seen, uniq = set(), []
    for ed in out:
        if ed not in seen and unit.allows(ed[0], ed[1]):
            seen.add(ed)
            uniq.append(ed)
    return uniq[:budget]


def classic_repairs(text: str, unit: Unit) -> list[tuple[int, int, str]]:
    """The typos every Python programmer knows the fix of, as edits (start, end, new_text).

    The caller takes the first that compiles before any smaller repair: each also parses
    another way that means something else, and a smaller edit would win — ``if x = 1:``
    takes a ``:`` as a walrus, ``else if y:`` loses its ``else`` to an indent, ``print "x"``
    takes a ``,`` and becomes a tuple that prints nothing, a ``def`` left without a body
    takes the next ``def`` into it as its body.
    """
    body = text[unit.start:unit.end]
    head = body.split(None, 1)[0] if body.strip() else ""
    out = [(unit.start + a, unit.start + b, t) for a, b, t in _classic(body, head)]
    comma = _forgotten_comma(text)
    if comma is not None:
        out.append((comma, comma, ","))
    # ``f(x] + 1``: dropped, the ``]`` leaves ``f(x + 1``, which a later round closes at the end
    out += [(unit.start + i, unit.start + i + 1, wanted) for i, wanted in _scan(body)[1]
            if wanted is not None]
    indent = body[:len(body) - len(body.lstrip(" \t"))]
    if indent and text.rfind("\n", 0, unit.start) + 1 == unit.start:  # ``unexpected indent``
        out += [(unit.start, unit.start + len(indent), less) for less in _shallower(text, unit)]
    out = [ed for ed in out if unit.allows(ed[0], ed[1])]
    line = text.rfind("\n", 0, unit.start) + 1
    own, header_end = text[line:unit.start], len(text[:line].rstrip())
    above = text[:header_end].rsplit("\n", 1)[-1]
    if (head in ("def", "class", "async") or body.startswith("@")) and not own.strip() \
            and above.endswith(":") and above[:len(above) - len(above.lstrip())] == own \
            and (unit.frozen is None or not unit.frozen[0] < header_end < unit.frozen[1]):
        # the header above has no block, and this def is no body of it: it was meant empty
        # (``pass`` goes under the header, in the blank lines before the unit)
        out.append((header_end, header_end, f"\n{own}{_step(own)}pass"))
    return out


def _forgotten_comma(text: str) -> int | None:
    """Where Python's "Perhaps you forgot a comma?" wants one.

    After the first of the two expressions it marks (``f(g(1) 2)``), which may end a line
    (``2`` in a call over three lines).
    """
    e = python_error(text)
    if e is None or "forgot a comma" not in e.msg or not e.lineno or not e.end_lineno:
        return None
    starts = line_starts(text)
    if e.end_lineno > len(starts):
        return None
    a = starts[e.lineno - 1] + (e.offset or 1) - 1
    b = starts[e.end_lineno - 1] + (e.end_offset or 1) - 1
    marked = text[a:b]
    rows = line_starts(marked)  # tokenize's (row, column) in characters, as an index
    depth, last = 0, None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(marked).readline):
            if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.COMMENT, tokenize.ENDMARKER):
                continue
            at = rows[tok.start[0] - 1] + tok.start[1]
            if last is not None and depth == 0 and at > last:
                return a + last
            if tok.type == tokenize.OP and tok.string in _PAIRS:
                depth += 1
            elif tok.type == tokenize.OP and tok.string in _PAIRS.values():
                depth -= 1
            last = rows[tok.end[0] - 1] + tok.end[1]
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def statement_keyword(body: str) -> str | None:
    """The keyword ``body`` starts with (``return``, ``raise``, ``for``), or None.

    A repair mends a statement; one that starts with another keyword, or none, is another
    statement: asked to mend ``return x +* y`` the model wrote ``p = 0``, and ``raise E from``
    became ``return``.
    """
    first = _FIRST_NAME.match(body)
    word = first.group().strip() if first else ""
    return word if keyword.iskeyword(word) else None


def _step(own: str) -> str:
    """One level of indentation as the code around writes it."""
    return "\t" if "\t" in own else "    "


def _classic(body: str, head: str) -> list[tuple[int, int, str]]:
    out = []
    if head in ("if", "elif", "while", "assert"):
        out += [(m.start(), m.end(), "==") for m in _LONE_EQUALS.finditer(body)]
    out += [(m.start(), m.end(), "elif") for m in _ELSE_IF.finditer(body)]
    if head == "def" and "(" not in body and ":" in body:  # ``def f:``
        out.append((body.index(":"), body.index(":"), "()"))
    # ``v not None`` is ``v is not None`` (after a keyword, ``not None`` is an expression);
    # every one in the statement in one edit, as the caller takes one edit
    nots = [m.start(2) for m in _NOT_NONE.finditer(body) if not keyword.iskeyword(m.group(1))]
    if nots:
        ends = [*nots[1:], nots[-1]]
        out.append((nots[0], nots[-1], "".join(f"is {body[i:j]}" for i, j in
                                              zip(nots, ends, strict=True))))
    m = _PRINT.match(body)  # Python 2's print statement
    if m:
        out.append((m.start(1), m.end(2), f"({m.group(2)})"))
    return out


def _shallower(text: str, unit: Unit) -> list[str]:
    """The indentations of the blocks above the unit's line that are shallower than its own.

    Nearest first: the code line above (a line pasted one level too deep), then each block
    around it.
    """
    body = text[unit.start:unit.end]
    bound = len(body) - len(body.lstrip(" \t"))
    out: list[str] = []
    for line in reversed(text[:unit.start].splitlines()):
        code = line.strip()
        if not code or code.startswith("#"):
            continue
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if len(indent) < bound:
            out.append(indent)
            bound = len(indent)
        if not bound:
            break
    return out


def _deeper(text: str, at: int) -> list[str]:
    """What indents the statement at ``at`` as each block above it is indented, nearest first.

    The lines above that are indented deeper, up to the nearest that is not (the block's
    header); one level inside that header where it ends with a colon and nothing lies
    between. Nothing where ``at`` is not the first code on its line.
    """
    line_start = text.rfind("\n", 0, at) + 1
    own = text[line_start:at]
    if own.strip():
        return []
    out: list[str] = []
    for line in reversed(text[:line_start].splitlines()):
        code = line.strip()
        if not code or code.startswith("#"):
            continue
        indent = line[:len(line) - len(code)]
        if len(indent) <= len(own):
            if not out and code.endswith(":") and indent.startswith(own):
                out.append(indent[len(own):] + ("\t" if "\t" in indent else "    "))
            break
        if indent.startswith(own) and indent[len(own):] not in out:
            out.append(indent[len(own):])
    return out[:3]


def closers(code: str) -> str:
    """What closes every quote and bracket ``code`` leaves open, innermost first.

    ``code`` is a statement cut short (a line being typed and its proposed rest): the text
    that would end it where it stops, without the colon a compound header also needs.
    """
    opened, _, quote = _scan(code)
    return (quote or "") + "".join(_PAIRS[c] for c in reversed(opened))


def line_ending(line: str) -> str:
    """What ends ``line`` (cut short, as typing leaves it): closers, then a header's colon."""
    body = line.rstrip()
    if not body or _is_header(body) and body.endswith(":"):
        return ""
    return closers(body) + (":" if _is_header(body) else "")


def _is_header(body: str) -> bool:
    return body.lstrip().split(" ")[0].rstrip(":") in _COMPOUND


def balanced(code: str) -> bool:
    """Whether ``code`` closes every bracket it opens, and none it did not (strings aside)."""
    stack, stray, _ = _scan(code)
    return not stack and not stray


def _scan(body: str) -> tuple[list[str], list[tuple[int, str | None]], str | None]:
    """Return open brackets left unclosed, unmatched closers, an unterminated quote.

    Each unmatched closer comes as its position and the closer the bracket open there wants
    (None where none is open).
    """
    stack: list[str] = []
    stray: list[tuple[int, str | None]] = []
    quote: str | None = None
    i = 0
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 1
            elif body.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif c == "#":
            nl = body.find("\n", i)
            i = len(body) if nl < 0 else nl
        elif c in "'\"":
            quote = c * 3 if body.startswith(c * 3, i) else c
            i += len(quote) - 1
        elif c in _PAIRS:
            stack.append(c)
        elif c in ")]}":
            if stack and _PAIRS[stack[-1]] == c:
                stack.pop()
            else:
                stray.append((i, _PAIRS[stack[-1]] if stack else None))
        i += 1
    return stack, stray, quote


def _header_end(text: str, starts: list[int], node: ast.stmt) -> int:
    """Return the end of a simple statement, or of a compound statement's header (its colon)."""
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        first = ast_offset(text, starts, body[0].lineno, body[0].col_offset)
        return text.rfind(":", 0, first) + 1
    return ast_offset(text, starts, node.end_lineno, node.end_col_offset)
