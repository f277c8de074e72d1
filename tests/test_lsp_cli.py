"""``remask lsp`` itself: bad arguments are one line and exit 2; ``--tcp`` serves LSP."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from remask.cli import main

LSP = [sys.executable, "-m", "remask.cli", "lsp"]


@pytest.mark.parametrize("args, message", [
    (["--tcp", "localhost"], "--tcp wants HOST:PORT"),
    (["--tcp", "localhost:99999"], "--tcp wants HOST:PORT"),
    (["--model", "/nonexistent/remask-model"], "no such model directory"),
    (["--threads", "0"], "--threads must be from 1 to"),
    (["--threads", "100000"], "--threads must be from 1 to"),  # OpenMP died of SIGSEGV
])
def test_bad_arguments(args, message, capsys):
    assert main(["lsp", *args]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and message in out.err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.asyncio
async def test_tcp_serves_the_protocol():
    port = free_port()
    server = subprocess.Popen([*LSP, "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.DEVNULL)
    client = LanguageClient("test", "0")
    try:
        for _ in range(600):  # the server imports torch before it listens
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        result = await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities()))
        assert result.capabilities.inline_completion_provider is not None
        await client.shutdown_async(None)
        client.exit(None)
        assert server.wait(timeout=60) == 0
    finally:
        server.kill()
