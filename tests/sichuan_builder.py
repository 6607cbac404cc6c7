"""Builds full Sichuan logs (every event, full wall) from a scripted scenario, for the golden files.

The scenario gives the hands at the start of play (after 换三张), the void suits and a script of
actions; the builder plays it on the real engine, choosing every draw's tile as it goes (scripted
draws take the named tile, filler turns draw a tile nobody can win with and discard it again), and
writes the wall in draw order at the end. With `huan_san_zhang` on, the dealt hands are derived so
that the exchange (direction `opposite` unless given) yields the scenario's hands.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from engine.mahjong.core import Wall, shanten
from engine.mahjong.sichuan import XUELIU, XUEZHAN, SichuanGame, State, is_sichuan_win
from engine.tiles import N_SUITED, SUITS, counts_of, full_set, parse_hand, tile_id, tile_name, tile_names
from events.codec import event_to_json, parse_event

SHIFT = {"clockwise": 3, "counterclockwise": 1, "opposite": 2}


class Builder:
    def __init__(
        self,
        name: str,
        game: str,
        rules: dict[str, Any],
        dealer: int,
        hands: list[str],
        voids: str,
        *,
        direction: str = "opposite",
        reserve: str = "",
        base: int = 1,
    ) -> None:
        self.game: SichuanGame = XUELIU if game == "sichuan_xueliu" else XUEZHAN
        self.match_id = f"golden-{game}-{name}"
        self.rules_raw = rules
        self.rules = self.game.parse_rules(rules)
        self.dealer = dealer
        self.pool = Counter(full_set())
        self.reserve = Counter(parse_hand(reserve))
        post: list[list[int]] = [[], [], [], []]
        for s, h in enumerate(hands):
            post[s] = parse_hand(h) if not h.startswith("junk:") else (parse_hand(h.split(":")[2]) if h.count(":") > 1 else [])
            self.pool.subtract(post[s])
        over = [tile_name(k) for k, v in self.pool.items() if v < 0]
        assert not over, f"more than 4 copies of {over} in the scenario hands"
        rng = random.Random(name)
        for s, h in enumerate(hands):
            if h.startswith("junk:"):
                extra = self._junk(rng, h, post[s], 14 if s == dealer else 13)
                self.pool.subtract(extra)
                post[s] = post[s] + extra
        for s, h in enumerate(post):
            assert len(h) == (14 if s == dealer else 13), (s, len(h))
        self.events: list[dict[str, Any]] = []
        self.fixed: dict[int, int] = {}
        pre = [list(h) for h in post]
        ex: list[list[int]] = [[], [], [], []]
        if self.rules.huan_san_zhang:
            shift = SHIFT[direction]
            recv = []
            for h in post:
                c = Counter(h)
                suit = max(range(3), key=lambda s, c=c: (sum(c[k] for k in range(9 * s, 9 * s + 9)), -s))
                got = [k for k in sorted(h) if k // 9 == suit][:3]
                assert len(got) == 3
                recv.append(got)
            for j in range(4):
                ex[j] = recv[(j + shift) % 4]
            for j in range(4):
                for k in recv[j]:
                    pre[j].remove(k)
                pre[j].extend(ex[j])
        wall0 = sorted(self.pool.elements())
        self.started = self._ev({"type": "match_started", "game": game, "rules": rules, "players": ["ann", "bo", "cy", "dan"], "dealer": dealer, "base": base})
        self.dealt_hands = [tile_names(sorted(h)) for h in pre]
        dealt = self._ev({"type": "dealt", "hands": self.dealt_hands, "wall": tile_names(wall0)}, keep=False)
        self.state: State = self.game.start(self.started, dealt, self.rules)
        self.events.append({})  # placeholder for dealt, filled by `lines`
        if self.rules.huan_san_zhang:
            for j in range(4):
                self.act({"type": "exchange", "seat": j, "tiles": tile_names(ex[j])})
            self.act({"type": "exchange_direction", "direction": direction})
        for j in range(4):
            self.act({"type": "dingque", "seat": j, "suit": voids[j]})
        assert [tuple(sorted(h)) for h in (self._hand(s) for s in range(4))] == [tuple(sorted(h)) for h in post]

    # ---------------------------------------------------------------- plumbing

    def _junk(self, rng: random.Random, spec: str, need: list[int], size: int) -> list[int]:
        """`junk:SUITS[:REQUIRED]`: random tiles of those suits added to the required ones, ≥ 2 from ready."""
        suits = [SUITS.index(x) for x in spec.split(":")[1]]
        avail = Counter(self.pool)
        avail.subtract(self.reserve)
        bag = [k for k, v in avail.items() if k // 9 in suits and v > 0 for _ in range(min(v, 2))]
        for _ in range(5000):
            rng.shuffle(bag)
            extra = bag[: size - len(need)]
            hand = need + extra
            if len(hand) == size and max(Counter(hand).values()) <= 3 and shanten(counts_of(hand)) >= 2:
                return extra
        raise AssertionError(f"no junk hand for {spec}")

    def _ev(self, payload: dict[str, Any], keep: bool = True) -> Any:
        ev = parse_event({"match_id": self.match_id, "seq": len(self.events), **payload})
        if keep:
            self.events.append(payload)
        return ev

    def _hand(self, s: int) -> list[int]:
        return [k for k in range(N_SUITED) for _ in range(self.state.hands[s][k])]

    def act(self, payload: dict[str, Any]) -> None:
        ev = parse_event({"match_id": self.match_id, "seq": len(self.events), **payload})
        self.state = self.game.apply(self.state, ev)
        self.events.append(payload)

    def _patch_wall(self, tile: int, from_tail: bool) -> None:
        st = self.state
        w = st.wall
        pos = w.tail - 1 if from_tail else w.head
        undrawn = Counter(self.pool.elements())
        assert undrawn[tile] > 0, f"no {tile_name(tile)} left in the wall"
        undrawn[tile] -= 1
        rest = sorted(undrawn.elements())
        tiles = list(w.tiles)
        mid = [tile, *rest] if not from_tail else [*rest, tile]
        tiles[w.head : w.tail] = mid
        self.state = replace(st, wall=Wall(tuple(tiles), w.head, w.tail))
        self.fixed[pos] = tile

    # ---------------------------------------------------------------- script steps

    def draw(self, seat: int, tile: str, scripted: bool = True) -> None:
        k = tile_id(tile)
        st = self.state
        from_tail = ((st.stage == "draw" and st.repl) or (st.stage == "rob" and not st.hus)) and self.rules.replacement_from == "tail"
        self._patch_wall(k, from_tail)
        self.pool[k] -= 1
        if scripted and self.reserve[k] > 0:
            self.reserve[k] -= 1
        self.act({"type": "draw", "seat": seat, "tile": tile})

    def do(self, kind: str, seat: int, tile: str, gang: str | None = None) -> None:
        p: dict[str, Any] = {"type": kind, "seat": seat, "tile": tile}
        if gang:
            p["kind"] = gang
        self.act(p)

    def _win_for(self, k: int, seat: int) -> bool:
        st = self.state
        h = list(st.hands[seat])
        h[k] += 1
        return is_sichuan_win(h, st.melds[seat], st.void[seat])

    def _grade(self, k: int, drawer: int) -> int:
        """0 = nobody can win with k, 1 = only other seats could (they pass), 2 = not usable."""
        st = self.state
        if self.pool[k] - self.reserve[k] <= 0:
            return 2
        v = st.void[drawer]
        holds_void = any(st.hands[drawer][x] for x in range(9 * v, 9 * v + 9))
        if self.rules.que_discard_first and holds_void and k // 9 != v:
            return 2
        if self._win_for(k, drawer):
            return 2
        others = any(self._win_for(k, j) for j in range(4) if j != drawer and (st.xueliu or not st.wins[j]))
        return 1 if others else 0

    def filler(self, use_passes: bool = False) -> None:
        """One filler step: the expected draw of a harmless tile, or its immediate discard.

        With `use_passes` (and more than 4 tiles left) tiles other seats could win are drawn first,
        so that the last four draws (SC-R15) can be harmless; those seats pass.
        """
        st = self.state
        if st.stage == "act":
            s = st.turn
            k = st.drawn
            assert k >= 0, "filler needs a drawn tile (script the dealer's first discard)"
            self.do("discard", s, tile_name(k))
            return
        drawer = self.game._expected_drawer(st)
        assert drawer is not None
        late = st.wall.remaining <= 4
        grades = {k: self._grade(k, drawer) for k in range(N_SUITED)}
        if use_passes and not late:
            order = [1, 0]
        else:
            order = [0] if late else [0, 1]
        for g in order:
            cands = [k for k in range(N_SUITED) if grades[k] == g]
            if cands:
                k = max(cands, key=lambda x: (self.pool[x] - self.reserve[x], -x))
                self.draw(drawer, tile_name(k), scripted=False)
                return
        raise AssertionError(f"no harmless filler tile left (R = {st.wall.remaining})")

    def fill_until(self, seat: int, remaining: int | None = None, use_passes: bool = False) -> None:
        """Filler turns until `seat` is the next to draw (and, if given, R = remaining)."""
        for _ in range(400):
            st = self.state
            if st.stage != "act" and self.game._expected_drawer(st) == seat and (remaining is None or st.wall.remaining == remaining):
                return
            self.filler(use_passes)
        raise AssertionError("fill_until did not reach its target")

    def fill_to_end(self) -> None:
        for _ in range(400):
            if self.state.ended:
                return
            self.filler(use_passes=True)
        raise AssertionError("the hand did not end")

    # ---------------------------------------------------------------- output

    def lines(self, deltas: list[int]) -> list[str]:
        wall = list(self.state.wall.tiles)
        for pos, k in self.fixed.items():
            assert wall[pos] == k
        out = []
        for i, p in enumerate(self.events):
            if i == 1:
                p = {"type": "dealt", "hands": self.dealt_hands, "wall": tile_names(wall)}
            out.append(event_to_json(parse_event({"match_id": self.match_id, "seq": i, **p})))
        out.append(event_to_json(parse_event({"match_id": self.match_id, "seq": len(self.events), "type": "settled", "deltas": deltas})))
        return out
