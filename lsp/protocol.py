r"""pygls' server and protocol, with the behaviours remask needs where pygls 2.1 falls short.

- A request whose params fail to deserialize is logged but never answered by pygls, so the
  client waits forever; here it gets a JSON-RPC ``InvalidParams`` error, and a message that is
  not UTF-8 JSON at all a ``ParseError`` with a null id, as JSON-RPC asks.
- Requests after ``shutdown`` are dropped by pygls; the LSP asks for an ``InvalidRequest`` error.
- ``exit`` picks the LSP's exit code (0 after ``shutdown``, else 1), but pygls' stdio loop
  swallows the ``SystemExit`` that carries it: the server keeps it in ``exit_code`` for
  ``remask lsp`` to return.
- pygls splits a document's lines with ``str.splitlines``, which also breaks at ``\f``, ``\v``,
  ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029, and puts a column past the end of the last line
  one character early; a change applied by those lines lands in the wrong place and the
  server's copy stays wrong from then on. ``Document`` applies changes with ``convert.Locator``,
  whose lines end only at ``\n``, ``\r\n`` and ``\r``, as LSP's do.

Errors in notification handlers go to ``window/logMessage`` rather than pop-ups: a client that
sends a change for a document it never opened should not interrupt the user.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.exceptions import (
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, RPCRequest
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument, Workspace

from . import convert
from .documents import Documents
from .model import Model
from .settings import Settings

# Stands in for a request already answered with an error; no handler exists, so it is ignored.
ANSWERED = "remask/answeredWithError"


class Document(TextDocument):
    """pygls' text document, with incremental changes applied where LSP puts them.

    remask reads only ``source``; pygls' line-based helpers (``lines``, ``word_at_position``)
    still split as pygls does and are not used.
    """

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self.source
        loc = convert.Locator(text, convert.encoding_name(self.position_codec.encoding))
        start, end = loc.span(change.range)  # past a line's end: the line's end
        self._source = text[:start] + change.text + text[max(start, end):]  # reversed: insert


class RemaskWorkspace(Workspace):
    """pygls' workspace, holding ``Document`` s."""

    def _create_text_document(self, doc_uri: str, source: str | None = None,
                              version: int | None = None, language_id: str | None = None,
                              ) -> TextDocument:
        return Document(doc_uri, source=source, version=version, language_id=language_id,
                        sync_kind=self._sync_kind, position_codec=self.position_codec)


class RemaskProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams,
                       ) -> Generator[Any, Any, types.InitializeResult]:
        """Run pygls' initialize, then swap its workspace for one of ``Document`` s.

        Swapped after: pygls builds the workspace inside, and no document is open before the
        answer goes out.
        """
        result = yield from super().lsp_initialize(params)
        ws = self.workspace
        self._workspace = RemaskWorkspace(ws.root_uri, self._server._text_document_sync_kind,
                                          list(ws.folders.values()), ws.position_encoding)
        return result

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """Keep the exit code where ``remask lsp`` can return it, then exit as pygls does."""
        self._server.exit_code = 0 if self._shutdown else 1
        yield from super().lsp_exit(*args)

    def handle_message(self, message: Any) -> None:
        """Answer requests after ``shutdown`` with an error; pygls drops them unanswered."""
        if self._shutdown and isinstance(message, RPCRequest) and message.method != types.EXIT:
            self._send_response(message.id, error=JsonRpcInvalidRequest(
                "remask: the server is shutting down").to_response_error())
            return
        super().handle_message(message)

    def _run_generator(self, future: Future[Any] | None, *, gen: Generator[Any, Any, Any],
                       result_future: Future[Any]) -> None:
        """A builtin handler whose user handler was cancelled (``exit`` mid model load) ends.

        pygls would call ``result()`` on the cancelled future and print the CancelledError
        traceback to stderr.
        """
        if future is not None and future.cancelled():
            gen.close()
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            message = super().structure_message(data)
        except JsonRpcException as e:
            if "id" not in data or "method" not in data:
                raise
            self._send_response(data["id"], error=e.to_response_error())
            return JsonRPCNotification(method=ANSWERED, jsonrpc="2.0", params=None)
        if data.get("method") == types.TEXT_DOCUMENT_INLINE_COMPLETION and "id" in data:
            self._stamp_arrival(data["id"], data.get("params"))
        return message

    def _stamp_arrival(self, msg_id: object, params: Any) -> None:
        """Note the document version an inline request was sent against, as it is read.

        Messages are read in order, but a coroutine handler starts later, after the changes
        that followed it were applied; its answer must be judged against this version. The
        handlers start in arrival order and each takes the oldest stamp.
        """
        uri = params.get("textDocument", {}).get("uri") if isinstance(params, dict) else None
        state = self._server.docs.get(uri) if isinstance(uri, str) else None
        if state is not None:
            state.inline_arrivals[msg_id] = state.version

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """A request cancelled before its handler ran never takes its stamp: drop it here.

        Left behind, it would be the next request's stamp, and every later request on that
        document would be judged against an older version and dropped as stale.
        """
        for state in self._server.docs.all():
            state.inline_arrivals.pop(msg_id, None)
        super()._handle_cancel_notification(msg_id)


class RemaskServer(LanguageServer):
    """The pygls server plus remask's state: open documents, the model, the settings."""

    def __init__(self, name: str, version: str) -> None:
        super().__init__(name, version, protocol_cls=RemaskProtocol)
        self.docs = Documents()
        self.model = Model()
        self.settings = Settings()
        self.init_options: object = None  # initializationOptions, applied once initialized
        self.ready = asyncio.Event()  # set once the first model load has succeeded or failed
        self.exit_code = 0  # what ``remask lsp`` returns: 1 after an exit without shutdown

    @property
    def encoding(self) -> str:
        """The negotiated position encoding, as a plain string."""
        return convert.encoding_name(self.workspace.position_encoding)

    def report_server_error(self, error: Exception, source: Any) -> None:
        if source is FeatureRequestError:
            return  # the request's error response already says it
        if source is JsonRpcException and isinstance(error, ValueError):
            # bytes that are not UTF-8 JSON: JSON-RPC answers a parse error with a null id
            # (a plain dict: pygls' serializer would drop the null id)
            self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": {
                "code": JsonRpcParseError.CODE, "message": f"remask: {error}"}})
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                       message=f"remask: {error}"))
