"""``[tool.remask]`` in a repository's pyproject.toml, as the hook reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from remask.hook.config import KINDS, ConfigError, HookConfig, load_config


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(text)
    return tmp_path


def test_defaults_without_a_file_or_a_table(tmp_path: Path) -> None:
    assert load_config(tmp_path) == HookConfig()
    assert load_config(write(tmp_path, "[project]\nname = 'x'\n")) == HookConfig()
    assert HookConfig().kinds == KINDS and "rename" in KINDS and "hole" in KINDS


def test_settings_are_read(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, '[tool.remask]\nkinds = ["hole"]\nmarker = "TODO!"\n'
                                      'model = "models/m"\nthreshold = 0.5\n'))
    assert cfg == HookConfig(frozenset({"hole"}), "TODO!", (tmp_path / "models/m").resolve())


@pytest.mark.parametrize(("table", "message"), [
    ('kinds = "hole"', "kinds must be a list of strings"),
    ('kinds = ["hole", "everything"]', "unknown kind 'everything'"),
    ('marker = ""', "marker must be a non-empty one-line string"),
    ("marker = 3", "marker must be a non-empty one-line string"),
    ("model = 1", "model must be a directory path"),
])
def test_bad_settings_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as e:
        load_config(write(tmp_path, f"[tool.remask]\n{table}\n"))
    assert str(e.value).startswith(str(tmp_path / "pyproject.toml"))


def test_broken_toml_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read") as e:
        load_config(write(tmp_path, "[tool.remask\n"))
    assert "\n" not in str(e.value)
    with pytest.raises(ConfigError, match="must be a table"):
        load_config(write(tmp_path, "[tool]\nremask = 1\n"))
