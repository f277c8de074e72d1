"""``unbound_names``: how many names a program reads that no scope they could come from binds;
``faults``: those, plus the reads no binding reaches yet and the statements no path reaches,
which a candidate ranks by; ``same_statement``: whether a fill keeps what a statement does;
``python_ok``: whether Python compiles a program."""

import threading
import warnings

import pytest

from remask.diffing.checks import faults, python_ok, same_statement, unbound_names


@pytest.mark.parametrize(("source", "count"), [
    ("def f(xs):\n    return len(xs)\n", 0),  # parameters and builtins are bound
    ("def f(xs):\n    return len(ys)\n", 1),  # a made-up name
    ("def f(xs):\n    return total + extra\n", 2),  # one per distinct name
    ("def f(xs):\n    print(total)\n    print(total)\n", 1),
    # what the removed line bound, the rest of the function still reads
    ("def f(xs):\n    pass\n    return total\n", 1),
    ("def f(xs):\n    total = sum(xs)\n    return total\n", 0),
    # Python's scopes: another function's name is not this one's ...
    ("def mean(values):\n    return values\ndef clamp(x):\n    return values\n", 1),
    ("class C:\n    size = 1\n    def m(self):\n        return size\n", 1),
    # ... an enclosing function's is, and so is a module name bound below the reader
    ("def f(xs):\n    def g():\n        return xs\n    return g\n", 0),
    ("def f():\n    return LIMIT\nLIMIT = 3\n", 0),
    ("def f():\n    global seen\n    seen = 1\ndef g():\n    return seen\n", 0),
    ("def f():\n    global seen\n    return seen\n", 1),  # declared, never bound
    # every way Python binds a name counts
    ("import os.path as p, sys\nfrom json import loads\np, sys, loads\n", 0),
    ("import os.path\nos.sep\n", 0),
    ("[y for y in range(3)]\n(z := 1)\nz\n", 0),
    ("try:\n    pass\nexcept OSError as err:\n    err\n", 0),
    ("class C:\n    pass\nC\n", 0),
    ("p = {}\nmatch p:\n    case {'k': v, **rest}:\n        v, rest\n"
     "    case [*xs]:\n        xs\n", 0),
    ("with open('f') as fh:\n    fh\nfor i, j in []:\n    i, j\n", 0),
    ("__name__, __file__\n", 0),
])
def test_counts_the_names_nothing_binds(source, count):
    assert unbound_names(source, "t.py") == count


@pytest.mark.parametrize(("source", "path"), [
    ("from os import *\nsep, made_up\n", "t.py"),  # a star import may bind anything
    ("return (\n", "t.py"),  # Python cannot parse it: nothing to say
    ("made_up()\n", "t.js"),  # not Python
])
def test_says_nothing_where_it_cannot_know(source, path):
    assert unbound_names(source, path) == 0


@pytest.mark.parametrize(("source", "ok"), [
    ("def f(x):\n    return x\n", True),
    ("def f(x):\n    y = x\nreturn y\n", False),  # a fill at column 0: parses, won't compile
    ("for x in y:\n    pass\nbreak\n", False),
    ("def f():\n    nonlocal x\n", False),
    ("def f(a, a):\n    pass\n", False),
    ("class C:\n    yield 1\n", False),
    ("def f(:\n", False),
    ('s = "\\d"\nassert (s, 1)\n', True),  # a warning is not an error
])
def test_python_ok_means_python_compiles_it(source, ok, recwarn):
    assert python_ok(source, "t.py", None) is ok
    assert python_ok(source, "t.js", None)  # not Python: nothing to say
    assert not recwarn.list  # the user's warnings are not printed by a check


def test_python_ok_can_ignore_errors_past_an_offset():
    source = "x = 1\ndef f():\n    pass\nreturn 2\n"
    assert python_ok(source, "t.py", source.index("def"))  # the error is on a later line
    assert not python_ok(source, "t.py", source.index("return"))


@pytest.mark.parametrize(("source", "count"), [
    ("x = x\n", 1),  # a ``???`` in ``x = ???`` filled with the name it assigns
    # all kinds add up: a read before its binding, a made-up name, a sum never read
    ("def f(n):\n    total += n\n    total = 0\n    return ys\n", 3),
    ("def f(n):\n    total = 0\n    total += n\n    return total\n", 0),
    # a ``return`` filled in above the code the function goes on with, and a made-up name
    ("def f(s):\n    return w\n    return s.split()[0]\n", 2),
    # a statement that does nothing, where a read nothing binds was
    ("def f(s):\n    pass\n    return s\n", 1),
    # what Python's compiler warns of: a string called
    ('def f(s):\n    b = "lower"({"mixed"})\n    return b\n', 1),
    ('def f(s):\n    b = "lower"\n    return b\n', 0),
])
def test_faults_count_unbound_reads_and_dead_statements(source, count):
    assert faults(source, "t.py", source.index("\n") + 1) == count
    assert faults(source, "t.js", source.index("\n") + 1) == 0  # not Python


def test_warnings_of_another_thread_are_not_the_candidates(recwarn):
    # The language server checks candidates on its model thread while other threads run; a
    # warning one of them gives during a compile used to be counted as the candidate's fault.
    clean = "def f(s):\n    return s\n" * 500  # a compile long enough to be interrupted
    stop = threading.Event()

    def warn() -> None:
        while not stop.is_set():
            warnings.warn("from another thread", UserWarning, stacklevel=1)

    other = threading.Thread(target=warn)
    other.start()
    try:
        counted = []
        for i in range(30):
            program = clean + f"x = {i}\n"  # a new text each time: no cached answer
            counted.append(faults(program, "t.py", 0))
    finally:
        stop.set()
        other.join()
    assert counted == [0] * 30


BODY = "def f(xs, log):\n    total = 0\n    if xs:\n        total += len(xs)\n    return total\n"


@pytest.mark.parametrize(("old", "new", "kept"), [
    ("len(xs)", "sum(xs)", True),  # other expressions, the same statement
    ("total += len(xs)", "pass", False),
    ("total += len(xs)", "total -= len(xs)", False),  # another operator
    ("total += len(xs)", "count += len(xs)", False),  # another target
    ("total += len(xs)", "log(xs)", False),
    ("total += len(xs)", "total += 1\n        total += 1", False),  # a statement more
    ("if xs", "if not xs", True),  # a compound statement's header
    ("if xs", "while xs", False),
    ("return total", "return", False),  # a value no longer returned
    ("return total", "return total + 1", True),
    ("total += len(xs)", "total += (", False),  # Python cannot parse it
])
def test_same_statement_keeps_what_the_statement_does(old, new, kept):
    at = BODY.index(old)
    program = BODY[:at] + new + BODY[at + len(old):]
    assert same_statement(BODY, program, at) is kept
