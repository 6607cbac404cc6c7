"""`paiju serve [--lake DIR] [--host 127.0.0.1] [--port P] [--tokens FILE] [--journal DIR] …`: the live referee.

Loopback by default; on any other host a tokens file is required. The journal folder defaults to
`<lake>-journal/<port>` (one journal per referee; `docs/referee.md`). A child process publishes the
journal into the lake every `--publish-every` seconds (0: never). SIGHUP reloads the tokens file;
SIGTERM or SIGINT stops the server cleanly: the port and the journal are released, the
publisher runs a last cycle.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lake", default="lake", metavar="DIR", help="the lake the journal is published into (default ./lake)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback)")
    p.add_argument("--port", type=int, default=8480, help="port (default 8480)")
    p.add_argument("--tokens", metavar="FILE", help="bearer tokens, one per line (# comments); required off loopback")
    p.add_argument("--journal", metavar="DIR", help="journal folder (default <lake>-journal/<port>)")
    p.add_argument("--publish-every", type=float, default=2.0, metavar="S",
                   help="publish the journal into the lake every S seconds (default 2; 0 = never)")  # fmt: skip
    p.add_argument("--max-body", type=int, default=4 << 20, metavar="BYTES", help="largest request body (default 4 MiB)")
    p.add_argument("--rate", type=float, default=20000, metavar="N",
                   help="events per second per token on average (default 20000; 0 = no limit)")  # fmt: skip
    p.add_argument("--burst", type=float, default=None, metavar="N", help="events a token may send at once (default = --rate)")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    from referee.auth import RateLimit, Tokens
    from referee.journal import Journal, JournalBusy

    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    if args.tokens is None and not is_loopback(args.host):
        raise UsageError(f"refusing to listen on {args.host} without --tokens: anyone could write matches (loopback needs none)")
    if args.max_body < 1024:
        raise UsageError("--max-body must be at least 1024 bytes")
    if args.publish_every < 0 or args.rate < 0:
        raise UsageError("--publish-every and --rate must be 0 or more")
    tokens = Tokens(args.tokens)
    lake = Path(args.lake)
    folder = Path(args.journal) if args.journal else Path(f"{lake}-journal") / str(args.port)
    # the port first: a second referee on the same port fails here, before touching the journal
    sock = _bind(args.host, args.port)
    try:
        journal = Journal(folder)
    except JournalBusy as e:
        sock.close()
        raise UsageError(str(e)) from None
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot open the journal {folder}: {e.strerror or e}") from None
    try:
        return _serve(args, tokens, journal, sock, lake, folder, RateLimit(args.rate, args.burst))
    finally:
        journal.close()
        sock.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


def _serve(args: argparse.Namespace, tokens: Any, journal: Any, sock: socket.socket, lake: Path, folder: Path,
           rate: Any) -> int:  # fmt: skip
    import uvicorn

    from referee.app import create_app
    from referee.service import Referee, calm_gc

    logging.basicConfig(level=logging.WARNING, format="paiju serve: %(message)s", stream=sys.stderr)
    ref = Referee(journal)
    n_acc, n_ref = ref.recover()
    if n_acc or n_ref:
        print(f"paiju serve: rebuilt {len(ref.matches)} matches ({ref.n_open} open) from {n_acc} accepted and "
              f"{n_ref} refused events of {journal.path}", file=sys.stderr, flush=True)  # fmt: skip
    ref.gc_pacer = calm_gc(ref.metrics.gc_pause)
    child: list[subprocess.Popen[bytes]] = []

    def on_start(loop: Any) -> None:
        def reload() -> None:
            if not tokens.enabled:
                return
            try:
                n = tokens.load()
                print(f"paiju serve: reloaded {n} tokens from {args.tokens}", file=sys.stderr, flush=True)
            except UsageError as e:
                print(f"paiju serve: {e}; the previous tokens stay", file=sys.stderr, flush=True)

        loop.add_signal_handler(signal.SIGHUP, reload)
        if args.publish_every > 0:
            child.append(subprocess.Popen([sys.executable, "-m", "referee.publish", "--journal", str(folder),
                                           "--lake", str(lake), "--every", str(args.publish_every),
                                           "--parent", str(os.getpid())]))  # fmt: skip
        print(f"paiju serve: listening on http://{args.host}:{args.port} (journal {folder}, lake {lake})",
              file=sys.stderr, flush=True)  # fmt: skip

    def on_stop() -> None:
        journal.close()
        for c in child:
            c.terminate()

    app = create_app(ref, tokens, max_body=args.max_body, rate=rate, on_start=on_start, on_stop=on_stop)
    config = uvicorn.Config(app, lifespan="on", **uvicorn_options())
    server = uvicorn.Server(config)
    # uvicorn re-raises the signal it caught after its shutdown: a no-op handler makes that a clean exit
    stopped: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, f: stopped.append(s))
    server.run(sockets=[sock])
    for c in child:
        try:
            c.wait(timeout=60)
        except subprocess.TimeoutExpired:
            c.kill()
    print("paiju serve: stopped", file=sys.stderr, flush=True)
    return 0


def uvicorn_options() -> dict[str, Any]:
    """uvicorn's settings for the referee (bench/referee.py serves its HTTP floor with the same).

    uvloop and httptools when installed (the `serve-fast` extra); no proxy headers: the referee
    never reads the client address (one ASGI middleware less per request)."""
    return {"log_level": "warning", "access_log": False, "server_header": False, "proxy_headers": False,
            "loop": "uvloop" if _has("uvloop") else "asyncio", "http": "httptools" if _has("httptools") else "h11",
            "timeout_graceful_shutdown": 5, "timeout_keep_alive": 75}  # fmt: skip


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
