"""Bad input across the front ends: one clear line, a defined exit code, no traceback, no change.

Every case runs the real command as a subprocess (``python -m remask.cli ...``) on real files.
Files remask must refuse (non-UTF-8, binary, 10 MB, missing, a directory) and unusable models
(missing directory, corrupt safetensors, wrong-shape checkpoint) exit 2 before the model runs;
odd but valid text (empty, CRLF, BOM, tabs, mixed indentation, every line broken, deep nesting,
not Python) exits 0 or 1. In every case the input file is byte-identical afterwards, stderr is
at most one line and holds no traceback. Each command starts torch (seconds on this machine),
so the cases run a few at a time in one test; the full matrix is marked slow.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hook_repo import GitRepo

from remask.infill.engine import BUNDLED

REFUSED = {  # name -> bytes remask must refuse to edit
    "latin1.py": "x = 'café'\n".encode("latin-1"),
    "binary.py": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8,
    "huge.py": b"x = 1\n" * 1_800_000,  # 10.8 MB, over the 2 MB cap
}
ODD = {  # name -> valid-but-odd text remask must handle without harm
    "empty.py": b"",
    "crlf_bom_tabs.py": "\ufeffdef f(x):\r\n\tif x:\r\n\t\treturn 1\r\n\treturn 2\r\n".encode(),
    "mixed_indent.py": b"def f(x):\n\tif x:\n        return 1\n    return 2\n",
    "all_broken.py": b"def f(:\nx = = 1\nreturn )\nclass :\nif if\nimport\n",
    "deep.py": ("".join("    " * i + f"if x{i}:\n" for i in range(120))
                + "    " * 120 + "pass\n").encode(),
    "notes.md": b"# Notes\n\n- one ???\n- `code` and *emphasis*\n",
}


@dataclass
class Result:
    rc: int
    stderr: str
    unchanged: bool


def _run(argv: list[str], cwd: Path, watched: list[Path]) -> Result:
    before = [p.read_bytes() if p.is_file() else None for p in watched]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    for var in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        env.pop(var, None)
    proc = subprocess.run([sys.executable, "-m", "remask.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240,
                          stdin=subprocess.DEVNULL)
    after = [p.read_bytes() if p.is_file() else None for p in watched]
    return Result(proc.returncode, proc.stderr, before == after)


def _check(label: str, r: Result, codes: set[int]) -> list[str]:
    """Problems with one result, as readable lines (empty when it behaved)."""
    bad = []
    if r.rc not in codes:
        bad.append(f"{label}: exit {r.rc}, want {sorted(codes)}")
    if "Traceback" in r.stderr or len(r.stderr.strip().splitlines()) > 1:
        bad.append(f"{label}: stderr not one line: {r.stderr[-600:]!r}")
    if not r.unchanged:
        bad.append(f"{label}: input file changed")
    return bad


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, data in {**REFUSED, **ODD}.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "ok.py").write_bytes(b"def f(x):\n    return ???\n")
    (tmp_path / "adir.py").mkdir()
    return tmp_path


def broken_models(tmp: Path) -> dict[str, Path]:
    """A corrupt safetensors file and a checkpoint of the wrong shape, both beside real files."""
    return {k: v for k, v in _models(tmp).items() if k != "missing"}


def _models(tmp: Path) -> dict[str, Path]:
    """A missing model directory, a corrupt safetensors file, a checkpoint of the wrong shape,
    a truncated tokenizer, a config that is no object, a config with no attention heads."""
    corrupt, wrong = tmp / "corrupt-model", tmp / "wrong-shape"
    shutil.copytree(BUNDLED, corrupt)
    data = (corrupt / "model.safetensors").read_bytes()
    (corrupt / "model.safetensors").write_bytes(data[: len(data) // 3])  # truncated
    shutil.copytree(BUNDLED, wrong)
    config = json.loads((wrong / "config.json").read_text())
    config["d_model"] *= 2
    (wrong / "config.json").write_text(json.dumps(config))
    # damaged where the tokenizers library and the config's own checks raise
    tokenizer, listed, headless = tmp / "bad-tokenizer", tmp / "config-list", tmp / "no-heads"
    for d in (tokenizer, listed, headless):
        shutil.copytree(BUNDLED, d)
    (tokenizer / "tokenizer.json").write_text((BUNDLED / "tokenizer.json").read_text()[:1000])
    (listed / "config.json").write_text("[]")
    (headless / "config.json").write_text(json.dumps({**config, "n_head": 0}))
    return {"missing": tmp / "no-such-model", "corrupt": corrupt, "wrong-shape": wrong,
            "bad-tokenizer": tokenizer, "config-list": listed, "no-heads": headless}


def _matrix(d: Path) -> list[tuple[str, list[str], list[Path], set[int]]]:
    cases = []
    for name in [*REFUSED, "missing.py", "adir.py"]:
        for cmd in (["fill", name, "--write"], ["repair", name, "--write"],
                    ["propagate", "ok.py", name, "--write"], ["tui", name]):
            if cmd == ["tui", "missing.py"]:  # a new file, as in an editor: in no folder
                cmd = ["tui", "gone/missing.py"]
            cases.append((" ".join(cmd), cmd, [d / name, d / "ok.py"], {2}))
    for label, model in _models(d).items():
        for cmd in (["fill", "ok.py", "--write"], ["repair", "all_broken.py", "--write"],
                    ["propagate", "ok.py", "ok.py", "--write"], ["tui", "ok.py"]):
            cases.append((f"{' '.join(cmd)} --model {label}", [*cmd, "--model", str(model)],
                          [d / "ok.py", d / "all_broken.py"], {2}))
    for name in ODD:  # the model runs for these: no --write, and a few commands only
        cases.append((f"fill {name}", ["fill", name, "--json"], [d / name], {0, 1}))
    cases.append(("repair all_broken.py", ["repair", "all_broken.py"],
                  [d / "all_broken.py"], {0, 1}))
    cases.append(("propagate deep.py", ["propagate", "deep.py", "deep.py"], [d / "deep.py"],
                  {0, 1}))
    return cases


@pytest.mark.slow
def test_bad_input_matrix(files: Path) -> None:
    cases = _matrix(files)
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda c: _run(c[1], files, c[2]), cases))
    problems = [p for (label, _, _, codes), r in zip(cases, results, strict=True)
                for p in _check(label, r, codes)]
    assert not problems, "\n".join(problems)
    assert len(cases) >= 40  # the count the closing note reports


def test_refused_files_exit_2_with_one_line(files: Path) -> None:
    """The quick subset: refusals happen before any model loads."""
    cases = [(["fill", "latin1.py", "--write"], "latin1.py"),
             (["repair", "binary.py", "--write"], "binary.py"),
             (["propagate", "ok.py", "huge.py", "--write"], "huge.py")]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda c: _run(c[0], files, [files / c[1]]), cases))
    problems = [p for (argv, _), r in zip(cases, results, strict=True)
                for p in _check(" ".join(argv), r, {2})]
    assert not problems, "\n".join(problems)
    assert all(name.split(".")[0] in r.stderr or name in r.stderr
               for (_, name), r in zip(cases, results, strict=True))


@pytest.mark.slow
def test_hook_run_on_bad_staged_files_changes_nothing(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    for name, data in {**REFUSED, **ODD}.items():
        repo.write(name, data)
    repo.git("add", ".")
    names = [*REFUSED, *ODD]
    index = repo.git("ls-files", "-s")
    r = _run(["hook", "run"], repo.root, [repo.root / n for n in names])
    problems = _check("hook run", r, {0, 1, 2})
    assert not problems, "\n".join(problems)
    assert repo.git("ls-files", "-s") == index  # staged content untouched
    assert repo.git("diff", "--name-only") == ""  # worktree still equals the index


@pytest.mark.slow
@pytest.mark.parametrize("label", ["missing", "corrupt", "wrong-shape"])
def test_hook_with_an_unloadable_model_changes_nothing(tmp_path: Path, label: str) -> None:
    """The configured model cannot load: one line, exit 2, index and worktree untouched."""
    model = _models(tmp_path)[label]
    repo = GitRepo(tmp_path / "repo")
    repo.stage_rename()  # a span to denoise, so the hook does load the model
    repo.write("pyproject.toml", f'[tool.remask]\nmodel = "{model}"\n')
    index = repo.git("ls-files", "-s")
    r = _run(["hook", "run"], repo.root, [repo.root / "totals.py"])
    problems = _check(f"hook run --model {label}", r, {2})
    assert not problems, "\n".join(problems)
    assert "cannot load model" in r.stderr
    assert repo.git("ls-files", "-s") == index
