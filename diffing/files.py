"""Reading source files safely and writing them atomically — shared by every front end.

A write goes to a temp file in the same directory, is fsynced, takes the old file's mode, and
is renamed over the original: a crash at any moment leaves the old file or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

MAX_BYTES = 2_000_000


class SourceError(ValueError):
    """A file remask will not edit; the message is one line for the user."""


def check_source(data: bytes, name: str, max_bytes: int = MAX_BYTES) -> str:
    """Decode ``data`` as a UTF-8 text file or raise SourceError saying why not."""
    if len(data) > max_bytes:
        raise SourceError(f"{name}: {len(data):,} bytes is over the {max_bytes:,}-byte cap")
    if b"\0" in data[:8192]:
        raise SourceError(f"{name}: binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"{name}: not UTF-8 (byte {e.start})") from None


def check_text(text: str, name: str, max_bytes: int = MAX_BYTES) -> None:
    """Raise SourceError when already-decoded text (an editor's buffer) is no file to edit.

    The same rules as ``check_source``: a buffer can hold NULs (a binary file opened as text),
    lone surrogates (bytes an editor could not decode, escaped) or far too much text.
    """
    if len(text) > max_bytes:  # characters <= bytes, so this skips encoding a huge buffer
        raise SourceError(f"{name}: {len(text):,} characters is over the {max_bytes:,}-byte cap")
    try:
        check_source(text.encode("utf-8"), name, max_bytes)
    except UnicodeEncodeError as e:
        raise SourceError(f"{name}: not UTF-8 (character {e.start} is a lone surrogate)") \
            from None


def read_source(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """Read a text file exactly (no newline translation) or raise SourceError."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SourceError(f"{path}: is a directory") from None
    except OSError as e:
        raise SourceError(f"{path}: {e.strerror}") from None
    return check_source(data, str(path), max_bytes)


class ChangedOnDisk(OSError):
    """The file is no longer what the proposal was computed from: someone saved meanwhile."""


def atomic_write(path: str | Path, text: str, expected: str | None = None,
                 new: bool = False) -> None:
    """Replace ``path`` with ``text`` (UTF-8, newlines untouched) atomically, keeping its mode.

    With ``expected`` (the text a command read, seconds of denoising ago), a file that no
    longer holds it is left alone: the user saved while the model worked, and writing would
    lose that save. A symlink is written through (its target changes, the link stays a link),
    a file its owner made read-only is refused as an editor refuses it (the rename would go
    through, since only the directory's permission counts), and the owner and group stay where
    the process may keep them. ``new``: the file did not exist when its text was begun, and
    one made since (another editor saved it) is as changed on disk. OSError says why nothing
    was written.
    """
    path = Path(os.path.realpath(path))
    old = path.stat() if path.exists() else None
    if old is not None and not os.access(path, os.W_OK):
        why = "read-only file" if not old.st_mode & 0o222 else os.strerror(errno.EACCES)
        raise PermissionError(errno.EACCES, why, str(path))
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".remask")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        if old is not None:
            with contextlib.suppress(PermissionError):  # only root may give a file away
                os.chown(tmp, old.st_uid, old.st_gid)
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if old else 0o644)  # after chown: it clears suid
        if new and os.path.lexists(path) or \
                expected is not None and _current(path) != expected:  # as late as can be
            raise ChangedOnDisk(errno.EAGAIN, "changed on disk since it was read", str(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _current(path: Path) -> str | None:
    """What ``path`` holds now, None when it is gone or no longer text."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


_NOT_SOURCE = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


def is_python(name: str) -> bool:
    """Whether a file name is a Python module's or stub's."""
    return name.endswith((".py", ".pyi"))


def python_files(root: str | Path, limit: int | None = None) -> list[Path]:
    """The project's Python files under ``root`` (the first ``limit``), for other modules."""
    return project_files(root, is_python, limit)


def project_files(root: str | Path, wanted: Callable[[str], bool],
                  limit: int | None = None) -> list[Path]:
    """The project's files under ``root`` whose names are ``wanted`` (the first ``limit``).

    Hidden folders (``.git``, ``.venv``, ``.tox``), virtual environments (any folder holding
    ``pyvenv.cfg``), installed packages and build output are not the project's.
    """
    out: list[Path] = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_SOURCE
                         and not (Path(top) / d / "pyvenv.cfg").exists())
        out += [Path(top) / f for f in sorted(files) if wanted(f)]
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out
