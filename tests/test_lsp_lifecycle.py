"""``shutdown`` and ``exit`` as the LSP specifies them, seen from the raw byte stream.

``exit`` gives exit code 0 after ``shutdown`` and 1 without it; a request after ``shutdown``
gets an ``InvalidRequest`` error rather than no answer at all; and an ``exit`` while the model
is still loading leaves nothing on stderr (no CancelledError traceback).
"""

from __future__ import annotations

import tempfile

from lsp_support import TIMEOUT, RawClient

INVALID_REQUEST = -32600


def start(stderr=None) -> RawClient:
    client = RawClient(stderr) if stderr is not None else RawClient()
    client.request(1, "initialize", {"capabilities": {}})
    client.read_until(lambda m: m.get("id") == 1)
    client.notify("initialized", {})  # starts loading the model on the model thread
    return client


def test_exit_without_shutdown_exits_1_quietly_even_while_the_model_loads():
    with tempfile.TemporaryFile() as err:
        client = start(err)
        try:
            client.notify("exit", None)  # the model load begun by initialized is under way
            assert client.proc.wait(timeout=TIMEOUT) == 1
        finally:
            client.close()
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    assert "Traceback" not in stderr and "CancelledError" not in stderr, stderr


def test_requests_after_shutdown_get_invalid_request_and_exit_gives_0():
    client = start()
    try:
        client.request(2, "shutdown", None)
        client.read_until(lambda m: m.get("id") == 2)
        client.request(3, "remask/stats", None)
        client.request(4, "textDocument/codeAction", {
            "textDocument": {"uri": "file:///tmp/remask-lsp-test/x.py"},
            "range": {"start": {"line": 0, "character": 0},
                      "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}})
        seen = client.read_until(lambda m: m.get("id") == 4)
        answers = {m["id"]: m for m in seen if m.get("id") in (3, 4)}
        assert [answers[i].get("error", {}).get("code") for i in (3, 4)] == [
            INVALID_REQUEST, INVALID_REQUEST], answers
        client.notify("exit", None)
        assert client.proc.wait(timeout=TIMEOUT) == 0
    finally:
        client.close()
