import ast
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from remask.cli import main
from remask.diffing.checks import unbound_names
from remask.diffing.syntax import parse

EXAMPLE = Path(__file__).parents[1] / "examples" / "stats.py"


def test_fill_reports_json_with_the_whole_file(tmp_path, capsys):
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    before = src.read_bytes()
    code = main(["fill", str(src), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"path", "text", "holes", "trace"}
    assert len(out["holes"]) == 2
    assert src.read_bytes() == before  # without --write nothing is written
    if code == 0:
        assert "???" not in out["text"]
        assert not parse(out["text"]).has_errors()
    else:
        assert code == 1
        assert any(h["text"] is None for h in out["holes"])
    # every byte outside the holes is kept: rebuild the file from the original and the fills
    text, pos, rebuilt = before.decode(), 0, []
    for hole in out["holes"]:
        rebuilt += [text[pos:hole["start"]], hole["text"] if hole["text"] is not None
                    else text[hole["start"]:hole["end"]]]
        pos = hole["end"]
    expected = "".join(rebuilt) + text[pos:]
    assert out["text"] == expected


def test_write_is_all_or_nothing(tmp_path):
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    src.chmod(0o640)
    before = src.read_bytes()
    code = main(["fill", str(src), "--write"])
    after = src.read_bytes()
    assert (src.stat().st_mode & 0o777) == 0o640
    if code == 0:
        assert b"???" not in after and not parse(after.decode()).has_errors()
    else:
        assert code == 1 and after == before
    assert not list(tmp_path.glob(".*remask"))  # no temp files left behind


def test_a_file_saved_while_the_model_worked_is_not_overwritten(tmp_path, capsys):
    # The command reads the file, denoises for seconds, then writes: a save made in between
    # (here by the --verify command, which runs after the fill, before the write) was lost.
    src = tmp_path / "a.py"
    src.write_text("x = ???\n")
    saved = "x = 'saved by the user'\n"
    (tmp_path / "save.py").write_text(f"open({str(src)!r}, 'w').write({saved!r})\n")
    assert main(["fill", str(src), "--write", "--verify", "python save.py"]) == 2
    err = capsys.readouterr().err
    assert err == f"remask fill: {src}: not written (changed on disk since it was read); " \
                  "file left as it was\n"
    assert src.read_text() == saved
    assert not list(tmp_path.glob(".*remask"))


def test_markers_in_strings_and_comments_are_left_as_written(tmp_path, capsys):
    # `print("what???")` came back as `print("whate")`
    src = tmp_path / "ask.py"
    text = 'def ask():\n    print("what???")\n    # TODO: ??? later\n    return ???\n'
    src.write_text(text)
    assert main(["fill", str(src), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [h["start"] for h in out["holes"]] == [text.rindex("???")]
    assert out["text"].startswith(text[:text.rindex("???")])


POINT = """\
import os


def read_config(path, default=???):
    # Read a config file; return default when it is missing.
    if not os.path.exists(path):
        return default
    with open(path) as fh:
        return [line.strip() for line in fh if ???]


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Point(self.x + other.x, ???)

    def norm(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5


def greet(name):
    print(f"hello {???}")
"""
REPORT = """\
def report(user, count):
    total = count * 2
    print(f"{???} has {count} items")
    return f"total: {???}"


def describe(path, size):
    msg = f"file {path} is {???} bytes"
    return msg
"""


@pytest.mark.parametrize("text", [POINT, REPORT])
def test_a_hole_in_an_f_strings_braces_is_filled_with_one_field(tmp_path, capsys, text):
    # the model writes the field's braces again: `{name!r}` made f"hello {{name!r}}", which
    # prints the braces, and `{count}` made f"total: {{count}}"
    src = tmp_path / "fields.py"
    src.write_text(text)
    main(["fill", str(src), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert any(h["text"] is not None for h in out["holes"])
    for before, after in zip(_f_strings(text.replace("???", "x")), _f_strings(out["text"]),
                             strict=True):
        assert after == before  # the same text parts: each hole still one field
    # written again, the braces come off (`{name!r}` → `name!r`): no fill took a made-up `x`
    assert unbound_names(out["text"], None) == 0


def _f_strings(text: str) -> list[list[str | None]]:
    """Each f-string's parts: its text, and None for each field."""
    return [[v.value if isinstance(v, ast.Constant) else None for v in n.values]
            for n in ast.walk(ast.parse(text)) if isinstance(n, ast.JoinedStr)]


def test_no_hole_is_success_and_changes_nothing(tmp_path, capsys):
    src = tmp_path / "ok.py"
    src.write_text("x = 1\n")
    assert main(["fill", str(src), "--write"]) == 0
    assert src.read_text() == "x = 1\n"
    assert "no '???' holes" in capsys.readouterr().err


@pytest.mark.parametrize("content,message", [
    (b"x = '\xff'\n", "not UTF-8"),
    (b"\x00\x01\x02binary", "binary file"),
])
def test_unreadable_input_exits_2_with_one_line(tmp_path, content, message):
    src = tmp_path / "bad.py"
    src.write_bytes(content)
    proc = subprocess.run([sys.executable, "-m", "remask.cli", "fill", str(src), "--write"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert src.read_bytes() == content


def test_missing_file_and_missing_model_exit_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "remask.cli", "fill", str(tmp_path / "nope.py")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "no such file" in proc.stderr
    src = tmp_path / "a.py"
    src.write_text("x = ???\n")
    proc = subprocess.run([sys.executable, "-m", "remask.cli", "fill", str(src), "--model",
                           str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 2 and "cannot load model" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert src.read_text() == "x = ???\n"


def test_threads_sets_torch_and_a_bad_count_exits_2(tmp_path, capsys):
    import torch

    src = tmp_path / "a.py"
    src.write_text("x = 1\n")  # no hole: the model loads, nothing is denoised
    before = torch.get_num_threads()
    try:
        assert main(["fill", str(src), "--threads", "1"]) == 0
        assert torch.get_num_threads() == 1
        capsys.readouterr()
        src.write_text("x = ???\n")
        assert main(["fill", str(src), "--write", "--threads", "0"]) == 2
    finally:
        torch.set_num_threads(before)
    err = capsys.readouterr().err
    assert "--threads must be from 1 to" in err and err.count("\n") == 1
    assert src.read_text() == "x = ???\n"
    # far more than the machine has crashed inside OpenMP (SIGSEGV)
    assert main(["fill", str(src), "--write", "--threads", "100000"]) == 2
    assert "--threads must be from 1 to" in capsys.readouterr().err


def test_the_step_budget_reaches_every_fill(tmp_path, capsys):
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    main(["fill", str(src), "--json", "--steps", "1"])
    trace = json.loads(capsys.readouterr().out)["trace"]
    assert 0 < trace["steps"] <= trace["calls"]  # one denoising step per sampler call at most
    main(["fill", str(src), "--json"])
    trace = json.loads(capsys.readouterr().out)["trace"]
    assert trace["steps"] > trace["calls"]  # unbudgeted (a line's budget of 4) it takes more


def test_verify_finds_two_holes_that_each_need_their_second_candidate(tmp_path, capsys):
    """Trying one hole's alternatives at a time, with the other at its top pick, never
    reaches a combination where both differ from their top."""
    src = tmp_path / "prog.py"
    src.write_text("def stats(xs):\n    total = ???\n    n = ???\n    return total / n\n")
    assert main(["fill", str(src), "--json"]) == 0
    tops = [h["text"] for h in json.loads(capsys.readouterr().out)["holes"]]
    (tmp_path / "check.py").write_text(
        "import sys\nlines = open('prog.py').read().splitlines()\n"
        f"sys.exit(lines[1] == '    total = ' + {tops[0]!r}\n"
        f"         or lines[2] == '    n = ' + {tops[1]!r})\n")
    assert main(["fill", str(src), "--json", "--verify", "python check.py"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [h["text"] != top for h, top in zip(out["holes"], tops, strict=True)] == [True, True]
    assert out["trace"]["verified"] == "alternative" and out["trace"]["verify_runs"] <= 5


@pytest.mark.parametrize("argv, message", [
    (["--steps", "0"], "--steps must be at least 1"),
    (["--samples", "-1"], "--samples must be from 0 to"),
    (["--samples", "100000"], "--samples must be from 0 to"),  # memory gone before a step
    (["--candidates", "0"], "--candidates must be from 1 to"),
    (["--candidates", "100000"], "--candidates must be from 1 to"),
])
def test_a_bad_budget_exits_2_with_one_line(tmp_path, capsys, argv, message):
    src = tmp_path / "a.py"
    src.write_text("x = ???\n")
    assert main(["fill", str(src), "--write", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert src.read_text() == "x = ???\n"


@pytest.mark.parametrize("flag", ["--threshold", "--line-threshold"])
def test_a_threshold_outside_0_1_exits_2_naming_the_flag(tmp_path, capsys, flag):
    src = tmp_path / "a.py"
    src.write_text("x = ???\n")
    assert main(["fill", str(src), "--write", flag, "0"]) == 2
    err = capsys.readouterr().err
    assert f"{flag} must be in (0, 1]" in err and err.count("\n") == 1
    assert src.read_text() == "x = ???\n"


def test_verify_takes_the_first_ranked_candidate_its_command_passes(tmp_path, capsys):
    """The command runs on a copy with each ranked fill in; the user's file is untouched."""
    src = tmp_path / "prog.py"
    src.write_text("def mean(xs):\n    total = sum(xs)\n    return ???\n")
    assert main(["fill", str(src), "--json"]) == 0
    top = json.loads(capsys.readouterr().out)["text"]
    (tmp_path / "top.txt").write_text(top)
    not_top = "python -c \"import sys; sys.exit(open('prog.py').read() == open('top.txt').read())\""
    assert main(["fill", str(src), "--json", "--verify", not_top]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["text"] != top and "???" not in out["text"]
    assert out["trace"]["verified"] == "alternative" and out["trace"]["verify_runs"] == 2
    assert not parse(out["text"]).has_errors()
    # a command nothing passes: exit 1, one line, the file as it was
    before = src.read_bytes()
    assert main(["fill", str(src), "--write", "--verify", "false"]) == 1
    assert "no proposal that passes 'false'" in capsys.readouterr().err
    assert src.read_bytes() == before
    assert main(["fill", str(src), "--verify", " "]) == 2


@pytest.mark.parametrize("depth", [1000, 3000])
def test_code_nested_deeper_than_python_goes_is_no_traceback(tmp_path, capsys, depth):
    # 1,000 ``+`` overflowed the recursive walks over the tree; 3,000 Python's own compiler
    src = tmp_path / "deep.py"
    src.write_text("def f(n):\n    x = " + "1 + " * depth + "1\n    return ???\n")
    code = main(["fill", str(src)])
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in err
    assert code == 1 or out.startswith(f"--- a/{src}")


@pytest.mark.parametrize(("old", "new"), [
    ("def f():\n    return ???", "def f():\n    return x"),  # no newline at the end
    ("x = 1", "x = 1\n"),
    ("import os\n\x0c\ndef f():\n    return 1\n", "import os\n\x0c\ndef f():\n    return 2\n"),
    ("s = 'a\u2028b'\nt = 1\r\n", "s = 'a\u2028b'\nt = 2\r\n"),
])
def test_the_printed_diff_applies_with_git(tmp_path, old, new):
    """``str.splitlines`` split lines at a form feed or U+2028, and a last line without a
    newline ran into the next: ``git apply`` called the patch corrupt."""
    from remask.cli.common import unified_diff

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "m.py").write_bytes(old.encode())
    (tmp_path / "p.diff").write_bytes(unified_diff(old, new, "m.py").encode())
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "m.py").read_bytes() == new.encode()


def test_a_reader_that_stops_reading_costs_no_write_and_no_traceback(tmp_path):
    """``remask fill --write --json f.py | head -c 1``: the JSON went out before the write,
    and the broken pipe was a traceback that left the file as it was."""
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    want = subprocess.run([sys.executable, "-m", "remask.cli", "fill", str(src), "--json"],
                          capture_output=True, text=True, check=True)
    proc = subprocess.Popen([sys.executable, "-m", "remask.cli", "fill", str(src), "--write",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is printed
    err = proc.stderr.read().decode()
    assert proc.wait() == 141 and "Traceback" not in err
    assert src.read_text() == json.loads(want.stdout)["text"]


def test_ctrl_c_while_a_command_loads_is_one_line(monkeypatch, capsys):
    """A command's imports (torch) take seconds; Ctrl-C there was a 40-line traceback."""
    import remask.cli

    def interrupted(only=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(remask.cli, "build_parser", interrupted)
    assert main(["fill", "x.py"]) == 130
    assert capsys.readouterr().err == "remask: interrupted\n"


def test_a_ranker_asked_for_that_cannot_rank_is_one_line(tmp_path, capsys):
    """A named --ranker that failed to load was dropped without a word."""
    ranker = tmp_path / "ranker"
    shutil.copytree(EXAMPLE.parents[1] / "infill" / "bundled-ar", ranker)
    (ranker / "tokenizer.json").write_text("{}")
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    assert main(["fill", str(src), "--ranker", str(ranker)]) == 2
    assert "--ranker" in capsys.readouterr().err


def test_a_weights_file_for_model_is_told_to_give_the_directory(tmp_path, capsys):
    src = tmp_path / "stats.py"
    shutil.copy(EXAMPLE, src)
    weights = EXAMPLE.parents[1] / "infill" / "bundled" / "model.safetensors"
    assert main(["fill", str(src), "--model", str(weights)]) == 2
    assert "give the directory" in capsys.readouterr().err


def _filter(argv: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "remask.cli", *argv], input=stdin.encode(),
                          capture_output=True, cwd=cwd, timeout=300)


def test_dash_filters_stdin_to_the_whole_filled_text(tmp_path):
    """``remask fill -`` is a filter (Vim's ``:%!``, Helix's ``:pipe``): its stdout is the
    buffer's new text, every byte outside the hole kept; where nothing passes, the text as
    it came, so the buffer is never emptied."""
    text = "import math\n\n\ndef area(r):\n    return ???\n\n\nprint(area(2))\n"
    proc = _filter(["fill", "-"], text, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    head, tail = text.split("???")
    assert out.startswith(head) and out.endswith(tail) and "???" not in out
    assert not parse(out).has_errors() and b"Traceback" not in proc.stderr
    (tmp_path / "pkg").mkdir()
    proc = _filter(["fill", "-", "--stdin-filename", "pkg/geo.py", "--verify", "false"], text,
                   tmp_path)
    assert proc.returncode == 1 and proc.stdout.decode() == text
    assert proc.stderr.decode().startswith("pkg/geo.py: 1 of 1 holes got no proposal that passes")
    assert not (tmp_path / "pkg" / "geo.py").exists()  # nothing written where it names


@pytest.mark.parametrize("argv, message", [
    (["fill", "-", "--write"], "--write with -: the result goes to stdout"),
    (["repair", "-", "--write"], "--write with -: the result goes to stdout"),
    (["fill", "-", "--verify", "true"], "--verify with - needs --stdin-filename"),
    (["fill", "a.py", "--stdin-filename", "b.py"], "--stdin-filename goes with - (stdin) only"),
])
def test_a_filter_asked_to_write_or_verify_blind_exits_2_with_one_line(
        tmp_path, monkeypatch, capsys, argv, message):
    (tmp_path / "a.py").write_text("x = ???\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = ???\n")))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_a_filter_with_nothing_to_do_passes_its_text_through(monkeypatch, capsys):
    for argv in (["fill", "-"], ["repair", "-"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x = 1\n")))
        assert main(argv) == 0
        assert capsys.readouterr().out == "x = 1\n"
