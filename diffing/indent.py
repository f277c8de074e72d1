"""Indentation for a hole that starts a line: which levels a statement there may take.

A hole at column 0 of an otherwise blank line (the cursor on an existing blank line: editors
strip a blank line's indentation, so that is where the cursor lands; a whole line cut out) leaves
the indentation to the model, and the model commits to it as one early token: ``return True``
inside the loop when it belongs after it. Which level is right is a question about the whole
candidate, so the Rewriter asks it of the whole candidate: each of the best one-line
candidates is also offered at every level the block structure allows (:func:`indent_levels`,
:func:`reindented`), Python's parser drops the illegal ones, and the model scores the rest.
"""

from __future__ import annotations

# How many of a fill's best candidates are copied. Every copy costs whole-file checks (a
# parse, Python's parser, then the ranking's scopes): copying all of them took a fill on a
# blank line of a 6,425-line file from 2.8 to 5.0 CPU-s. On the whole HumanEval single-line
# split every pick a copy changed (38, 12 of them now passing) re-indents one of the three
# best candidates.
COPIED = 3


def starts_blank_line(prefix: str, suffix: str) -> bool:
    """Whether a middle between ``prefix`` and ``suffix`` is a whole line of its own."""
    line_start = not prefix or prefix.endswith("\n")
    return line_start and (not suffix or suffix.startswith(("\n", "\r\n")))


def indent_levels(prefix: str, suffix: str) -> list[str]:
    """The indentations a statement on a blank line after ``prefix`` may take, nearest first.

    The previous code line's own, one level deeper when it opens a block, each shallower
    level of the blocks enclosing it, and the next code line's. Continuation and string
    lines give levels too; the parser, not this guess, is what rules them out.
    """
    levels: list[str] = []
    deepest: int | None = None
    for line in reversed(prefix.splitlines()):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        indent = indentation(line)
        if deepest is None:
            if body.endswith(":"):
                levels.append(indent + ("\t" if indent.startswith("\t") else "    "))
            levels.append(indent)
        elif len(indent) < deepest:
            levels.append(indent)
        deepest = len(indent) if deepest is None else min(deepest, len(indent))
        if not indent:
            break
    for line in suffix.splitlines():
        if line.strip() and not line.strip().startswith("#"):
            levels.append(indentation(line))
            break
    return list(dict.fromkeys(levels))


def reindented(candidate: str, levels: list[str]) -> list[str]:
    """``candidate`` (one line) at each of ``levels`` other than its own; none for a block."""
    own = indentation(candidate)
    body = candidate[len(own):]
    if "\n" in candidate.rstrip("\r\n") or not body.strip():
        return []
    return [level + body for level in levels if level != own]


def indentation(line: str) -> str:
    """The spaces and tabs ``line`` starts with."""
    return line[:len(line) - len(line.lstrip(" \t"))]
