"""``remask repair FILE`` end to end through ``main`` with the real bundled model."""

from __future__ import annotations

import json
import os

import pytest

from remask.cli import main

BROKEN = "def f(x):\n    return foo(x, 1\n\n\nprint(f(2))\n"


def run(capsys, *argv):
    code = main(["repair", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_diff_by_default_and_file_untouched(tmp_path, capsys):
    path = tmp_path / "b.py"
    path.write_text(BROKEN)
    code, out, err = run(capsys, path)
    assert code == 0, err
    assert out.startswith(f"--- a/{path}") and "+    return foo(x, 1)" in out
    assert path.read_text() == BROKEN


def test_json_has_the_whole_text_and_spans(tmp_path, capsys):
    path = tmp_path / "b.py"
    path.write_text(BROKEN)
    code, out, _ = run(capsys, path, "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == {"path", "text", "spans", "trace"}
    assert data["text"] != BROKEN and data["text"].endswith("\n\n\nprint(f(2))\n")
    [span] = data["spans"]
    assert BROKEN[span["start"]:span["end"]].startswith("return foo(") and span["reason"]


def test_write_replaces_atomically_keeping_mode_crlf_and_text(tmp_path, capsys):
    path = tmp_path / "b.py"
    text = "# grüße 😀\r\ndef f(x):\r\n\treturn [x, 1\r\n"
    path.write_bytes(text.encode())
    os.chmod(path, 0o640)
    code, _, err = run(capsys, path, "--write")
    assert code == 0, err
    new = path.read_bytes().decode()
    assert new.startswith("# grüße 😀\r\ndef f(x):\r\n\treturn [x, 1") and "]" in new
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_valid_file_gives_exit_0_and_no_write(tmp_path, capsys):
    path = tmp_path / "ok.py"
    path.write_text("x = 1\n")
    before = path.stat().st_mtime_ns
    code, out, err = run(capsys, path, "--write")
    assert code == 0 and out == "" and "no syntax errors" in err
    assert path.stat().st_mtime_ns == before
    code, out, err = run(capsys, path, "--json")  # the object --json promises, all the same
    assert code == 0 and json.loads(out) == {"path": str(path), "text": "x = 1\n", "spans": [],
                                             "trace": {}}


@pytest.mark.parametrize("setup, extra", [
    (lambda p: None, []),  # missing
    (lambda p: p.write_bytes(b"\x00\x01binary"), []),
    (lambda p: p.write_bytes(b"x = '\xff'\n"), []),  # not UTF-8
    (lambda p: p.mkdir(), []),
    (lambda p: p.write_text(BROKEN), ["--candidates", "0"]),
    (lambda p: p.write_text(BROKEN), ["--model", "/nonexistent"]),
], ids=["missing", "binary", "not-utf8", "directory", "candidates", "model"])
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, capsys, setup, extra):
    path = tmp_path / "b.py"
    setup(path)
    snapshot = path.read_bytes() if path.is_file() else None
    code, out, err = run(capsys, path, "--write", *extra)
    assert code == 2 and out == ""
    assert err.startswith("remask repair: ") and err.count("\n") == 1
    assert (path.read_bytes() if path.is_file() else None) == snapshot


def test_a_file_without_syntax_errors_needs_no_model(tmp_path, capsys):
    src = tmp_path / "ok.py"
    src.write_text("x = 1\n")
    assert main(["repair", str(src), "--model", str(tmp_path / "no-model")]) == 0
    assert "no syntax errors" in capsys.readouterr().err
    assert src.read_text() == "x = 1\n"



@pytest.mark.parametrize(("text", "fixed"), [
    # parses, but ``return`` is outside the function: Python won't compile it
    ("def f(x):\n    y = x + 1\nreturn y\n", "def f(x):\n    y = x + 1\n    return y\n"),
    ("def f(x):\n    if x:\n        pass\n    # x\nreturn 1\n",
     "def f(x):\n    if x:\n        pass\n    # x\n    return 1\n"),  # the smallest that compiles
    ("for x in y:\nbreak\n", "for x in y:\n    break\n"),  # a header with no block
])
def test_a_statement_left_outside_its_block_is_indented_into_it(tmp_path, capsys, text, fixed):
    assert repaired(tmp_path, capsys, text) == fixed


def repaired(tmp_path, capsys, text: str) -> str:
    """What ``remask repair --write`` leaves in a file that held ``text`` (it must succeed)."""
    path = tmp_path / "r.py"
    path.write_text(text)
    code, _, err = run(capsys, path, "--write")
    assert code == 0, err
    return path.read_text()


@pytest.mark.parametrize("line", ["    return x +", "    y = x *", "    return x and"])
def test_a_statement_cut_short_is_completed(tmp_path, capsys, line):
    # No punctuation mark mends these, and the statement re-denoised at its own length came
    # back as junk (`"""`): "no repair that parses". The rest of the line, as inline
    # completion writes it, does.
    path = tmp_path / "cut.py"
    text = f"def f(x, y):\n{line}\n"
    path.write_text(text)
    code, out, err = run(capsys, path, "--json")
    assert code == 0, err
    new = json.loads(out)["text"]
    assert new.startswith(f"def f(x, y):\n{line}") and len(new) > len(text)
    compile(new, "cut.py", "exec")


@pytest.mark.parametrize(("text", "fixed"), [
    # ":" made it a walrus, which parses: a test's "=" is a comparison
    ("def f(x):\n    if x = 1:\n        return 0\n    return x\n",
     "def f(x):\n    if x == 1:\n        return 0\n    return x\n"),
    # the model deleted the header, which left an indented block: "repaired", and broken
    ("for i range(3):\n    print(i)\n", "for i in range(3):\n    print(i)\n"),
    # the model wrote `out = []` in place of the return
    ("def f(xs):\n    return [(a, b) for a in xs for b xs if a < b]\n",
     "def f(xs):\n    return [(a, b) for a in xs for b in xs if a < b]\n"),
    # `in ` went in after `for` as well as before `xs`, and `forin  s` came first
    ("def f(xs):\n    return '-'.join(s.replace('a', 'b')\n                    for s xs)\n",
     "def f(xs):\n    return '-'.join(s.replace('a', 'b')\n                    for s in xs)\n"),
    # an indent took the place of "else" (another meaning); "," made a tuple that prints nothing
    ("if x:\n    pass\nelse if y:\n    pass\n", "if x:\n    pass\nelif y:\n    pass\n"),
    ('print "hello"\n', 'print("hello")\n'),
    ("def f:\n    return 1\n", "def f():\n    return 1\n"),
    ("xs = [1,, 2]\n", "xs = [1, 2]\n"),  # the model made up a value to go between
    # the model wrote `p`; `not None` after a keyword is left alone
    ("def f(d):\n    return {k: v for k, v in d.items() if v not None}\n",
     "def f(d):\n    return {k: v for k, v in d.items() if v is not None}\n"),
    ("def f(a, b):\n    if a not None and b(0) not None or not None:\n        return 1\n",
     "def f(a, b):\n    if a is not None and b(0) is not None or not None:\n        return 1\n"),
    # the next def was indented into the one left without a body
    ("def f(x):\n\ndef g():\n    return 2\n", "def f(x):\n    pass\n\ndef g():\n    return 2\n"),
])
def test_the_classic_typos_get_their_classic_repair(tmp_path, capsys, text, fixed):
    assert repaired(tmp_path, capsys, text) == fixed


TWO_BROKEN = (
    "import json\n\n\nclass Store:\n    def load(self, path)\n        with open(path) as f:\n"
    "            return json.load(f)\n\n    def total(self, items, key='price'):\n"
    "        s = 0\n        for it in items{colon}\n            s += it[key]\n        return s\n\n"
    "    def names(self, items):\n"
    "        return [it['name'] for it in items if it.get('name'{closer}\n")


@pytest.mark.parametrize(("colon", "closer"), [
    # a bracket that does not match is reported before the missing colon above it: mended,
    # it let Python blame the colon's line, above the unit, and the mend was refused
    (":", "]"),
    ("", ")]"),  # two missing colons, one after the other: repaired before as now
    # and tree-sitter's ERROR for the colon wraps the whole file, the mended unit with it
    ("", "]"),
])
def test_every_broken_statement_is_repaired_where_each_alone_would_be(tmp_path, capsys,
                                                                       colon, closer):
    text = TWO_BROKEN.format(colon=colon, closer=closer)
    fixed = TWO_BROKEN.format(colon=":", closer=")]").replace("load(self, path)",
                                                             "load(self, path):")
    assert repaired(tmp_path, capsys, text) == fixed


def test_a_broken_statement_below_does_not_block_the_one_above(tmp_path, capsys):
    # tree-sitter wraps the class from the first def on in an ERROR for the second missing
    # colon: it lay over the first one's unit however well mended
    text = ("import time\n\n\nclass Clock:\n\n"
            "    def __init__(self, now=time.time, sleep=time.sleep)\n"
            "        self.now = now\n        self.sleep = sleep\n\n"
            "    def wait(self, s):\n        self.sleep(s)\n\n    def ticks(self)\n"
            "        return int(self.now())\n")
    fixed = text.replace("sleep=time.sleep)\n", "sleep=time.sleep):\n").replace(
        "ticks(self)\n", "ticks(self):\n")
    assert repaired(tmp_path, capsys, text) == fixed


@pytest.mark.parametrize(("text", "fixed"), [
    # deleting "]" or adding ")" leaves it broken; the model rewrote the whole statement
    ("def ext(p, sep):\n    dot = p.rfind(sep]\n    return p[dot:]\n",
     "def ext(p, sep):\n    dot = p.rfind(sep)\n    return p[dot:]\n"),
    # with a colon missing above, Python blames it once the "]" is gone: deleting it, the
    # smaller edit, passed, and a later round closed ``len(xs + 1`` at the end
    ("for x in xs\n    total(x)\n\nn = len(xs] + 1\n",
     "for x in xs:\n    total(x)\n\nn = len(xs) + 1\n"),
])
def test_a_closer_that_does_not_match_is_swapped_for_the_one_wanted(tmp_path, capsys, text,
                                                                    fixed):
    assert repaired(tmp_path, capsys, text) == fixed


@pytest.mark.parametrize(("text", "fixed"), [
    # with a second one open below, Python blames the def after the first ("invalid
    # syntax"), not the bracket; mended there, the call became ``get(\n\n ),pass``
    ("class C:\n    def a(self, line):\n        self.put(line)\n        return self.get(\n\n"
     "    # more\n\n    def b(self, x):\n        y = x + 1\n        return (x, y\n\n"
     "    def c(self):\n        return 1\n",
     "class C:\n    def a(self, line):\n        self.put(line)\n        return self.get()\n\n"
     "    # more\n\n    def b(self, x):\n        y = x + 1\n        return (x, y)\n\n"
     "    def c(self):\n        return 1\n"),
    # an assignment below it is blamed as a keyword argument's "=": mended there, the next
    # line was blamed, and so on (``sorted)(caps)``, before session 50; today the blamed
    # line's own rounds also come right)
    ("def show(caps):\n    print(\n    keys = sorted(caps)\n    for k in keys:\n"
     "        print(k)\n\n\ndef main(caps):\n    show(caps\n    return 0\n",
     "def show(caps):\n    print()\n    keys = sorted(caps)\n    for k in keys:\n"
     "        print(k)\n\n\ndef main(caps):\n    show(caps)\n    return 0\n"),
])
def test_a_bracket_left_open_is_closed_where_it_was_opened(tmp_path, capsys, text, fixed):
    assert repaired(tmp_path, capsys, text) == fixed


@pytest.mark.parametrize(("text", "fixed"), [
    ("x = f(a b)\n", "x = f(a, b)\n"),
    ("d = {'a b': 1 'c': 2}\n", "d = {'a b': 1, 'c': 2}\n"),
    # closing the call after ``1,`` moved the blame past the line (the ``3)`` below)
    ("total = f(1,\n          2\n          3)\n", "total = f(1,\n          2,\n          3)\n"),
])
def test_a_comma_python_says_is_missing_goes_where_it_says(tmp_path, capsys, text, fixed):
    assert repaired(tmp_path, capsys, "def f(*a):\n    return a\n\n\n" + text) == \
        "def f(*a):\n    return a\n\n\n" + fixed


@pytest.mark.parametrize(("text", "fixed"), [
    # the unit began after the indentation, so nothing could take it away
    ("def f(x):\n    y = x + 1\n        z = y * 2\n    return z\n",
     "def f(x):\n    y = x + 1\n    z = y * 2\n    return z\n"),
    ("def f(x):\n    if x:\n        y = 1\n            z = 2\n    return 0\n",
     "def f(x):\n    if x:\n        y = 1\n        z = 2\n    return 0\n"),
])
def test_a_line_indented_too_deep_takes_the_line_above_s_indentation(tmp_path, capsys, text,
                                                                     fixed):
    assert repaired(tmp_path, capsys, text) == fixed


def test_a_block_s_first_line_indented_too_deep_takes_the_next_line_s_indentation(tmp_path,
                                                                                capsys):
    # Python blames the second line ("unindent does not match"); indented to match the first,
    # it passed the blame to the third, and so on past the five rounds
    block = "".join(f"            n{i} = len(data) + {i}\n" for i in range(6))
    text = ("def f(x):\n    with open(x) as fh:\n        try:\n            # the first, too deep\n"
            "                data = fh.read()\n" + block +
            "        except OSError:\n            return None\n    return n5\n")
    fixed = text.replace("                data", "            data")
    assert repaired(tmp_path, capsys, text) == fixed


def test_a_repair_that_leaves_the_file_broken_is_not_offered(tmp_path, capsys):
    # five rounds mend five statements; the sixth stays broken, so none is offered
    text = "".join(f"if x > {i}\n    y = {i}\n" for i in range(6))
    path = tmp_path / "six.py"
    path.write_text(text)
    code, out, err = run(capsys, path, "--write")
    assert code == 1 and out == "" and "no repair that parses" in err
    assert path.read_text() == text
    five = "".join(f"if x > {i}\n    y = {i}\n" for i in range(5))
    assert repaired(tmp_path, capsys, five) == five.replace("\n    y", ":\n    y")


def test_a_hole_is_no_error_to_stay_broken(tmp_path, capsys):
    # the whole file must compile after a repair, with each ``???`` read as a name
    text = "def f(x):\n    if x > 0\n        return ???\n    return 0\n"
    assert repaired(tmp_path, capsys, text) == text.replace("x > 0\n", "x > 0:\n")


KEYWORDS = """\
def keep(d):
    return {k: v for k, v in d.items() if v not None}


def scale(x, y):
    return x +* y


def first(xs):
    for x in xs:
        if x > 0
            return x
    raise ValueError("none") from
"""


def test_a_repair_keeps_each_statement_s_keyword(tmp_path, capsys):
    # the model mended three of these by writing other statements: `p`, `p = 0`, `return`
    path = tmp_path / "kw.py"
    path.write_text(KEYWORDS)
    code, out, err = run(capsys, path, "--json")
    if code == 0:
        new = json.loads(out)["text"]
        compile(new, "kw.py", "exec")
        assert [ln.split()[0] for ln in new.splitlines() if ln.strip()] == \
            [ln.split()[0] for ln in KEYWORDS.splitlines() if ln.strip()]
    else:
        assert code == 1 and "no repair that parses" in err
