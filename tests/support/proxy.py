"""A TCP proxy in front of the real server that a test can cut: every connection
through it dropped at once (as a network that fails drops them), and new ones refused
while the test holds it, until it lets them through again. A browser pointed at the
proxy's port sees the server's pages, API and WebSocket at that origin."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from types import TracebackType

CHUNK = 1 << 16


class CuttingProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self._target = (host, target_port)
        self._listener = socket.create_server((host, 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._holding = threading.Event()
        self._closed = threading.Event()
        self.accepted = 0
        self.refused = 0
        self.refusing = threading.Event()  # set once a connection was refused while held
        threading.Thread(target=self._accept, name="proxy-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{self._target[0]}:{self.port}"

    def cut(self) -> int:
        """Drops every connection open through the proxy; returns how many."""
        with self._lock:
            dropped = list(self._open)
        for end in dropped:
            # Shut down, not closed: the pump wakes up on it, sees the end, and closes both.
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        return len(dropped) // 2

    def hold(self) -> None:
        """Refuses new connections (they are closed as soon as accepted)."""
        self._holding.set()

    def release(self) -> None:
        self._holding.clear()

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        self.cut()

    def __enter__(self) -> CuttingProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            if self._holding.is_set():
                self.refused += 1
                self.refusing.set()
                _shut(client)
                continue
            try:
                upstream = socket.create_connection(self._target, timeout=10)
            except OSError:
                _shut(client)
                continue
            upstream.settimeout(None)
            self.accepted += 1
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), name="proxy-pump", daemon=True).start()

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        """Copies bytes both ways until either end closes (or the proxy cuts them)."""
        other = {client: upstream, upstream: client}
        with selectors.DefaultSelector() as selector:
            selector.register(client, selectors.EVENT_READ)
            selector.register(upstream, selectors.EVENT_READ)
            try:
                while True:
                    for key, _ in selector.select(timeout=1):
                        end: socket.socket = key.fileobj  # type: ignore[assignment]
                        data = end.recv(CHUNK)
                        if not data:
                            return
                        other[end].sendall(data)
                    if self._closed.is_set():
                        return
            except (OSError, ValueError):
                return  # cut under our feet
            finally:
                with self._lock:
                    self._open.discard(client)
                    self._open.discard(upstream)
                _shut(client)
                _shut(upstream)


def _shut(end: socket.socket) -> None:
    with contextlib.suppress(OSError):
        end.shutdown(socket.SHUT_RDWR)
    end.close()
