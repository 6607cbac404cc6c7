"""Who may see what: bearer tokens from a file, compared in constant time, and per-token rate limits.

The tokens file holds one token per line; `#` starts a comment; blank lines are ignored. A token
is never stored or logged: the journal and the match table name its owner id, the first 16 hex
digits of its SHA-256 (`owner_of`). Without a tokens file every request is the one owner `-`
(only allowed on a loopback host, `referee.cli`).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from pathlib import Path

from events.errors import UsageError

OPEN = "-"
"""The owner of every request when the referee runs without tokens (loopback only)."""


def owner_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]


def read_tokens(path: str | Path) -> list[str]:
    """The tokens of a tokens file (UsageError if it cannot be read or holds none)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read the tokens file {path}: {getattr(e, 'strerror', None) or e}") from None
    tokens = []
    for line in text.splitlines():
        t = line.split("#", 1)[0].strip()
        if t:
            if any(c.isspace() for c in t):
                raise UsageError(f"the tokens file {path} has a token with white space in it")
            tokens.append(t)
    if not tokens:
        raise UsageError(f"the tokens file {path} holds no token")
    return tokens


class Tokens:
    """The accepted tokens (SHA-256 digests, compared with `hmac.compare_digest`), reloadable."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path)
        self._digests: list[tuple[bytes, str]] = []
        if self.path is not None:
            self.load()

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def load(self) -> int:
        """(Re)read the file; on a bad file the previous tokens stay (UsageError says why)."""
        assert self.path is not None
        tokens = read_tokens(self.path)
        self._digests = [(hashlib.sha256(t.encode()).digest(), owner_of(t)) for t in tokens]
        return len(tokens)

    def owner(self, authorization: str | None) -> str | None:
        """The owner id for an `Authorization` header, or None if it names no known token."""
        if self.path is None:
            return OPEN
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        given = hashlib.sha256(token.strip().encode("utf-8", errors="replace")).digest()
        found = None
        for digest, owner in self._digests:  # every token compared, in constant time each
            if hmac.compare_digest(given, digest):
                found = owner
        return found


class RateLimit:
    """A token bucket per owner: `rate` events a second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(rate, 1.0)
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, owner: str, n: int = 1) -> float:
        """0 when `n` events may go now, else the seconds to wait before trying again."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        level, last = self._buckets.get(owner, (self.burst, now))
        level = min(self.burst, level + (now - last) * self.rate)
        need = min(float(n), self.burst)  # a batch larger than the burst goes when the bucket is full
        if need > level:
            self._buckets[owner] = (level, now)
            return (need - level) / self.rate
        self._buckets[owner] = (level - need, now)
        return 0.0
