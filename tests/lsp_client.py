"""A language-server client for the tests and the benchmark: ``etwmc lsp`` in a child
process, spoken to over its standard input and output with JSON-RPC framing
(``Content-Length`` headers), as an editor speaks to it."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]


class ServerError(Exception):
    """The server answered a request with an error."""

    def __init__(self, error: Message) -> None:
        super().__init__(error.get("message", ""))
        self.code = error.get("code")


class Client:
    def __init__(self, cwd: Path, command: list[str] | None = None) -> None:
        argv = command or [sys.executable, "-m", "etwmc", "lsp"]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd
        )
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.seen: list[Message] = []  # notifications and server requests, in order
        self.stderr: list[bytes] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    # ------------------------------------------------------------------ framing

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None, "a message without Content-Length"
            self.inbox.put(json.loads(out.read(length).decode("utf-8")))

    def _drain(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for line in err:
            self.stderr.append(line)

    def send(self, message: Message) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def _next(self, deadline: float) -> Message:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no message from the server in time")
        try:
            m = self.inbox.get(timeout=left)
        except queue.Empty:
            raise TimeoutError("no message from the server in time") from None
        if m is None:
            raise EOFError("the server closed its output")
        return m

    # ------------------------------------------------------------------ messages

    def request(self, method: str, params: Any = None, timeout: float = 60.0) -> Any:
        self._next_id += 1
        ident = self._next_id
        self.send({"id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            m = self._next(deadline)
            if m.get("id") == ident and "method" not in m:
                if "error" in m:
                    raise ServerError(m["error"])
                return m.get("result")
            self._keep(m)

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def _keep(self, m: Message) -> None:
        if "method" in m and "id" in m:  # a request from the server: answer it
            self.send({"id": m["id"], "result": None})
        self.seen.append(m)

    def wait_for(
        self, method: str, match: Callable[[Message], bool] = lambda p: True, timeout: float = 60.0
    ) -> Message:
        """The params of the first notification ``method`` (seen or to come) that
        ``match`` accepts; the ones before it are consumed."""
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.seen):
                if m.get("method") == method and match(m.get("params") or {}):
                    del self.seen[: i + 1]
                    return m.get("params") or {}
            self._keep(self._next(deadline))

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60.0) -> Message:
        """The next diagnostics published for ``uri`` (for ``version`` when given)."""
        return self.wait_for(
            "textDocument/publishDiagnostics",
            lambda p: p.get("uri") == uri and (version is None or p.get("version") == version),
            timeout,
        )

    # ------------------------------------------------------------------ session

    def initialize(self, root: Path, capabilities: Message | None = None) -> Any:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities if capabilities is not None else {},
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, language: str = "xml") -> str:
        uri = path.as_uri()
        body = text if text is not None else path.read_text(encoding="utf-8")
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": body}},
        )
        return uri

    def change(self, uri: str, version: int, changes: list[Message]) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes},
        )

    def close(self, timeout: float = 30.0) -> int:
        """Shutdown, exit, and the server's exit status."""
        try:
            self.request("shutdown", None, timeout)
            self.notify("exit", None)
        except (OSError, EOFError, TimeoutError):
            pass
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()


def position(text: str, needle: str, after: int = 0, units: str = "utf-16") -> Message:
    """The LSP position ``after`` characters into the first ``needle`` of ``text``,
    counted in ``units``."""
    offset = text.index(needle) + after
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    head = text[start:offset]
    if units == "utf-8":
        char = len(head.encode("utf-8"))
    elif units == "utf-32":
        char = len(head)
    else:
        char = len(head.encode("utf-16-le")) // 2
    return {"line": line, "character": char}
