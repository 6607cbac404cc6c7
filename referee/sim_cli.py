"""`paiju simulate --to URL --game G [--rules JSON|@FILE] [--matches N] [--seed S] …`: bots play against a referee.

The matches are the simulator's (`engine.sim.simulate.simulate_match`, the same seeded events as
`paiju simulate --out`); each event is sent as the game server would send it, one request per
event (or `--batch K` events per NDJSON request), `--concurrency C` matches at a time. At the end
each match's result is read back from the referee and its settlement compared with the log's
own `settled` event (`settlement_matches`). Exit 0 when every event was accepted and every match
settled as logged, 1 otherwise, 2 for bad usage or an unreachable referee.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from typing import Any

from events.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", required=True, metavar="URL", help="the referee, e.g. http://127.0.0.1:8480")
    p.add_argument("--game", required=True, help="game id")
    p.add_argument("--rules", help="rules object as JSON or @FILE (default: the standard preset)")
    p.add_argument("--matches", type=int, default=10, help="how many matches (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--prefix", default="sim", help="match id prefix (default sim, as paiju simulate; ids are PREFIX-GAME-SEED-INDEX)")
    p.add_argument("--concurrency", type=int, default=8, metavar="C", help="matches played at once (default 8)")
    p.add_argument("--batch", type=int, default=1, metavar="K", help="events per request (1 = JSON, more = NDJSON)")
    p.add_argument("--token", help="bearer token (default: the environment variable PAIJU_TOKEN)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    from engine.cli_common import game_and_rules

    _game, rules = game_and_rules(args.game, args.rules)
    if args.matches <= 0 or args.concurrency <= 0 or args.batch <= 0:
        raise UsageError("--matches, --concurrency and --batch must be at least 1")
    if not args.to.startswith(("http://", "https://")):
        raise UsageError(f"--to must be an http:// or https:// URL, got {args.to!r}")
    token = args.token or os.environ.get("PAIJU_TOKEN")
    summary = asyncio.run(play(args.to, token, args.game, rules, args.matches, args.seed, args.concurrency, args.batch,
                               args.prefix))  # fmt: skip
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(f"played {summary['matches']} {args.game} matches ({summary['events']} events) against {args.to} in "
              f"{summary['seconds']} s: {summary['accepted']} accepted, {summary['refused']} refused, "
              f"{summary['settled_as_logged']} settled as logged")  # fmt: skip
        for p in summary["problems"][:10]:
            print(f"  {p}")
    ok = summary["refused"] == 0 and summary["settled_as_logged"] == summary["matches"]
    return 0 if ok else 1


def match_events(game_id: str, rules: dict[str, Any] | None, seed: int, index: int, prefix: str) -> list[Any]:
    """The simulator's match `index` (id `PREFIX-GAME-SEED-INDEX`, hash chain filled), as `paiju simulate` writes it."""
    from engine.sim.simulate import simulate_match

    return simulate_match(game_id, rules, seed, index, prefix=prefix)


async def play(url: str, token: str | None, game_id: str, rules: dict[str, Any] | None, matches: int, seed: int,
               concurrency: int, batch: int = 1, prefix: str = "sim") -> dict[str, Any]:  # fmt: skip
    """Play the matches against the referee; returns the summary (see the module docstring)."""
    import httpx

    from referee.client import AsyncRefereeClient, RefereeError

    t0 = time.perf_counter()
    out: dict[str, Any] = {"matches": 0, "events": 0, "accepted": 0, "refused": 0, "settled_as_logged": 0,
                           "problems": [], "seconds": 0.0}  # fmt: skip
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(matches):
        queue.put_nowait(i)

    async def worker(client: AsyncRefereeClient) -> None:
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            events = match_events(game_id, rules, seed, i, prefix)
            mid = events[0].match_id
            answers: list[dict[str, Any]] = []
            if batch == 1:
                for e in events:
                    answers.append(await client.send(e))
            else:
                for k in range(0, len(events), batch):
                    answers.extend(await client.send_batch(mid, events[k:k + batch]))
            out["matches"] += 1
            out["events"] += len(events)
            for a in answers:
                if a["accepted"]:
                    out["accepted"] += 1
                else:
                    out["refused"] += 1
                    out["problems"].append(f"{mid} seq {a['seq']}: {a['error']['code']}: {a['error']['message']}")
            res = await client.match(mid)
            if res["status"] == "finished" and res["settlement_matches"] is True:
                out["settled_as_logged"] += 1
            else:
                out["problems"].append(f"{mid}: status {res['status']}, settlement_matches {res['settlement_matches']}")

    try:
        async with AsyncRefereeClient(url, token, connections=concurrency) as client:
            await asyncio.gather(*(worker(client) for _ in range(min(concurrency, matches))))
    except httpx.HTTPError as e:
        raise UsageError(f"cannot reach the referee at {url}: {type(e).__name__}: {e}") from None
    except RefereeError as e:
        raise UsageError(f"the referee at {url} refused the requests: {e}") from None
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out
