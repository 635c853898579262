"""The wire between the checker and its worker process: length-prefixed pickles on a pipe. Layer: entry
(its bottom; both ``client`` and ``worker`` use it, and it imports nothing of the checker).

A message is a 4-byte big-endian length and that many bytes of pickle. Requests are ``(kind, args)``;
a reply is whatever the request returns. Replies over :data:`MAX_REPLY` bytes are refused.
"""

from __future__ import annotations

import pickle
import struct
from typing import Any, BinaryIO

_HEADER = struct.Struct("!I")
MAX_REPLY = 64 * 1024 * 1024


def write_message(stream: BinaryIO, obj: Any) -> None:
    """Send ``obj``: its pickle, after a 4-byte big-endian length."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            raise EOFError("stream closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_message(stream: BinaryIO) -> Any:
    """Receive one object sent by :func:`write_message`; raise EOFError when the stream ends (or lies)."""
    (size,) = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    if size > MAX_REPLY:
        raise EOFError("reply too large")
    return pickle.loads(_read_exact(stream, size))
