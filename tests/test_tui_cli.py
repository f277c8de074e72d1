"""``remask tui`` refuses bad input with one line and exit 2, before any app starts."""

from __future__ import annotations

import pytest

from remask.cli import main


@pytest.mark.parametrize("content, expected", [
    (None, "no such file, and no folder"),  # a new file opens empty, where it can be made
    (b"\x00\x01binary", "binary file"),
    (b"x = '\xff'\n", "not UTF-8"),
    (b"a = 1\r\nb = 2\n", "mixed line endings"),
    (b"a = 1\n\x0cb = 2\n", "a form feed"),
    ("s = 'a\u2028b'\n".encode(), "U+2028"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, expected):
    path = tmp_path / ("f.py" if content is not None else "gone/f.py")
    if content is not None:
        path.write_bytes(content)
    assert main(["tui", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert err.count("\n") == 1 and err.startswith("remask tui: ")
    if content is not None:
        assert path.read_bytes() == content


def test_bad_model_directory_is_one_line(tmp_path, capsys):
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    assert main(["tui", str(path), "--model", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("option", [["--candidates", "0"], ["--candidates", "100000"],
                                    ["--idle", "-1"]])
def test_bad_option_is_one_line(tmp_path, capsys, option):
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    assert main(["tui", str(path), *option]) == 2
    err = capsys.readouterr().err
    assert option[0] in err and err.count("\n") == 1


def test_a_name_that_is_no_file_yet_opens_empty_as_new(tmp_path, monkeypatch):
    from remask.tui.app import RemaskApp

    opened = []
    monkeypatch.setattr(RemaskApp, "run", lambda app: opened.append(
        (app.path, app._initial, app._new)))
    assert main(["tui", str(tmp_path / "new.py")]) == 0
    (tmp_path / "old.py").write_text("x = 1\n")
    assert main(["tui", str(tmp_path / "old.py")]) == 0
    assert opened == [(tmp_path / "new.py", "", True), (tmp_path / "old.py", "x = 1\n", False)]
    assert not (tmp_path / "new.py").exists()
