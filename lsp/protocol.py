"""pygls' server and protocol, with the two behaviours remask needs on bad input.

pygls 2.1 logs a request whose params fail to deserialize but never answers it, so the client
waits forever; here such a request gets a JSON-RPC ``InvalidParams`` error, and a message that
is not UTF-8 JSON at all a ``ParseError`` with a null id, as JSON-RPC asks. Errors in
notification handlers go to ``window/logMessage`` rather than pop-ups: a client that sends a
change for a document it never opened should not interrupt the user.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification

from .documents import Documents
from .model import Model
from .settings import Settings

# Stands in for a request already answered with an error; no handler exists, so it is ignored.
ANSWERED = "remask/answeredWithError"


class RemaskProtocol(LanguageServerProtocol):
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

    @property
    def encoding(self) -> str:
        """The negotiated position encoding, as a plain string."""
        enc = self.workspace.position_encoding or "utf-16"
        return str(getattr(enc, "value", enc))

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
