"""A shared mahjong bot that plays like a decent person (used by Sichuan; Hongzhong/Anshun via hooks).

Policy (generic functions on count vectors, then `sichuan_action` for the Sichuan table and
`claimflow_action` for Hongzhong and Anshun, which read the game's `bot_*` hooks; engine/registry.py
pairs each game with its bot, the game modules do not import this one):
- 换三张 (`choose_exchange`): the shortest suit holding at least 3 tiles; inside it the 3 least
  connected tiles (fewest neighbours within two steps, pairs kept).
- 定缺 (`choose_void`): the suit with the fewest tiles (ties: fewer pairs/neighbours, then m < p < s).
- Discard (`choose_discard`): void-suit tiles first (the isolated ones first); otherwise the tile whose
  removal leaves the fewest tiles from ready (shanten, core.shanten), ties broken by the number of
  still-live tiles that would improve the hand (ukeire counted from what this seat can see), then the
  most isolated / terminal tile. One pass of `core.discard_gains` scores every discard; ukeire is
  counted only for the discards of minimal shanten (the others cannot win the comparison), not at
  all when no tile is live (claimflow far from ready: every ukeire is 0); `choose_discard_plain` is
  the same rule by its definition (the tests compare them). At the Sichuan table the live counts
  are made only when the choice reads them (`_sichuan_discard`: not for a void-suit discard nor a
  lone minimal one).
- Hu: always win when the rules allow it (self-draw or claim).
- Peng: only when the pong lowers shanten after the best discard. Zhi gang / an gang: when shanten
  does not get worse. Bu gang: always (it pays and rarely hurts).
- System events: `exchange_direction` drawn uniformly with the rng from the allowed directions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import chain
from operator import add
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from engine.errors import Illegal
from engine.mahjong.core import is_win, mask_bits, min_discard_gains, min_discard_shanten, shanten, win_mask
from engine.tiles import N_KINDS, N_SUITED, SUITS, TILE_NAME, kinds_of, tile_names

if TYPE_CHECKING:
    from engine.mahjong.claimflow import ClaimGame, Table
    from engine.mahjong.sichuan import SichuanGame, State


def _strip_void(counts: Sequence[int], void: int) -> list[int]:
    c = list(counts)
    if void >= 0:
        for k in range(9 * void, 9 * void + 9):
            c[k] = 0
    return c


def _connect(counts: Sequence[int], k: int) -> int:
    """How connected tile k is: copies of itself and neighbours within two steps in its suit
    (2 for an adjacent kind held, 1 for one two steps away)."""
    score = 3 * (counts[k] - 1)
    if k < N_SUITED:
        for j, w in _NEIGHBOURS[k]:
            if counts[j]:
                score += w
    return score


_NEIGHBOURS = tuple(
    tuple((k + d, 2 if abs(d) == 1 else 1) for d in (-2, -1, 1, 2) if 0 <= k + d < N_SUITED and (k + d) // 9 == k // 9)
    for k in range(N_SUITED)
)
"""Per suited kind: (kind within two steps in its suit, weight)."""


def choose_void(counts: Sequence[int]) -> int:
    """定缺: the suit with the fewest tiles."""

    def key(s: int) -> tuple[int, int, int]:
        sl = counts[9 * s : 9 * s + 9]
        return (sum(sl), sum(_connect(counts, 9 * s + i) for i in range(9) if sl[i]), s)

    return min(range(3), key=key)


def choose_exchange(counts: Sequence[int]) -> list[int]:
    """换三张: 3 least connected tiles of the shortest suit holding at least 3."""
    suits = [s for s in range(3) if sum(counts[9 * s : 9 * s + 9]) >= 3]
    s = min(suits, key=lambda x: (sum(counts[9 * x : 9 * x + 9]), x))
    c = list(counts)
    out: list[int] = []
    for _ in range(3):
        cand = [k for k in range(9 * s, 9 * s + 9) if c[k]]
        k = min(cand, key=lambda x: (_connect(c, x), -abs(x % 9 - 4), x))
        c[k] -= 1
        out.append(k)
    return sorted(out)


_LIVE = bytes(max(0, 4 - x) for x in range(256))
"""`counts.translate(_LIVE)`: per kind 4 − the copies held or seen, at least 0 (the live copies)."""


def unseen_counts(own: Sequence[int], visible: Sequence[int]) -> list[int]:
    """Copies of each kind this seat cannot see (live for it): 4 − own − visible, at least 0."""
    return list(bytes(map(add, own, visible)).translate(_LIVE))


def choose_discard(counts: Sequence[int], n_melds: int, void: int, unseen: Sequence[int]) -> int:
    """Void tiles first; else minimal shanten, then maximal ukeire, then least connected.

    With no live tile anywhere (`unseen` all 0: claimflow's bot far from ready) every ukeire is 0,
    so only the shanten scan runs (`core.min_discard_shanten`); the connection score is computed only
    for discards tied on (shanten, ukeire). Same choice as `choose_discard_plain`."""
    if void >= 0:
        vs = [k for k in range(9 * void, 9 * void + 9) if counts[k]]
        if vs:
            return min(vs, key=lambda k: (_connect(counts, k), k))
    # no void tile is held here, so the counts need no stripping
    if not any(unseen):
        return _most_ukeire(counts, ((k, 0) for k in min_discard_shanten(counts, n_melds)[1]))
    # shanten of every discard; ukeire (live copies of every kind whose draw lowers the shanten)
    # only for the minimal ones (core.discard_gains): the others cannot win the comparison
    gains = min_discard_gains(counts, n_melds)
    if len(gains) == 1:
        return gains[0][0]  # a lone minimal discard: its ukeire is compared with nothing
    return _pick_by_ukeire(counts, gains, void, unseen)


def _pick_by_ukeire(
    counts: Sequence[int],
    gains: Sequence[tuple[int, int, tuple[int, int, int] | None]],
    void: int,
    unseen: Sequence[int],
) -> int:
    """`_most_ukeire` of the minimal discards `gains` (core.min_discard_gains, with masks)."""
    # the live copies of a suit's mask, summed once per (suit, mask) met in this hand
    live = (unseen[0:9], unseen[9:18], unseen[18:27])
    sums: dict[int, int] = {}
    cands: list[tuple[int, int]] = []
    for k, _sh, masks in gains:
        if masks is None:
            continue
        uk = 0
        for s in range(3):
            m = masks[s]
            if m and s != void:
                key = m << 2 | s
                v = sums.get(key)
                if v is None:
                    v = sums[key] = sum(map(live[s].__getitem__, mask_bits(m)))
                uk += v
        cands.append((k, uk))
    return _most_ukeire(counts, cands)


def _most_ukeire(counts: Sequence[int], candidates: Iterable[tuple[int, int]]) -> int:
    """The (discard, ukeire) candidate with the most ukeire; ties go to the least connected
    discard, then the one nearest an edge, then the first. The connection score is computed only
    for candidates tied on ukeire."""
    pick, best_uk = -1, -1
    tail: tuple[int, int] | None = None
    for k, uk in candidates:
        if uk > best_uk:
            pick, best_uk, tail = k, uk, None
        elif uk == best_uk:
            if tail is None:
                tail = (_connect(counts, pick), -abs(pick % 9 - 4))
            t = (_connect(counts, k), -abs(k % 9 - 4))
            if t < tail:
                pick, tail = k, t
    return pick


def choose_discard_plain(counts: Sequence[int], n_melds: int, void: int, unseen: Sequence[int]) -> int:
    """`choose_discard` by its definition (shanten and ukeire of every discard, by `core.shanten`)."""
    if void >= 0:
        vs = [k for k in range(9 * void, 9 * void + 9) if counts[k]]
        if vs:
            return min(vs, key=lambda k: (_connect(counts, k), k))
    c = _strip_void(counts, void)
    best: tuple[int, int, int, int] | None = None
    pick = -1
    for k in range(len(c)):
        if not c[k]:
            continue
        c[k] -= 1
        sh = shanten(c, n_melds)
        uk = 0
        for t in range(N_SUITED):
            if t // 9 != void and c[t] < 4:
                c[t] += 1
                if shanten(c, n_melds) < sh:
                    uk += unseen[t]
                c[t] -= 1
        c[k] += 1
        key = (sh, -uk, _connect(c, k), -abs(k % 9 - 4))
        if best is None or key < best:
            best, pick = key, k
    return pick


def best_after_discard(counts: Sequence[int], n_melds: int, void: int) -> int:
    """Shanten of the best 13-tile hand reachable by one discard from a 14-tile hand."""
    low, kinds = min_discard_shanten(_strip_void(counts, void), n_melds)
    return low if kinds else 9


def want_peng(counts13: Sequence[int], n_melds: int, tile: int, void: int) -> bool:
    """Peng only when it lowers shanten (after the best discard)."""
    now = shanten(_strip_void(counts13, void), n_melds)
    if now <= 0:
        return False  # a hand one tile short of complete has shanten ≥ 0: nothing lower to reach
    c = list(counts13)
    c[tile] -= 2
    return best_after_discard(c, n_melds + 1, void) < now


def want_gang(
    counts_before: Sequence[int], counts_after: Sequence[int], n_melds: int, void: int, fourteen: bool
) -> bool:
    """A kong when shanten does not get worse (counts_after excludes the kong's tiles)."""
    now = (
        best_after_discard(counts_before, n_melds, void)
        if fourteen
        else shanten(_strip_void(counts_before, void), n_melds)
    )
    return shanten(_strip_void(counts_after, void), n_melds + 1) <= now


# ---------------------------------------------------------------- Sichuan table


def _visible(st: State) -> list[int]:
    v = [0] * len(st.hands[0])
    for ms in st.melds:
        for m in ms:
            v[m.tile] += m.size
    for ds in st.discards:
        for k in ds:
            v[k] += 1
    for ws in st.wins:
        for k in ws:
            v[k] += 1
    return v


def _held_or_seen(hand: Sequence[int], melds: Sequence[Sequence[Any]], discards: Sequence[Sequence[int]]) -> bytearray:
    """Per kind the copies in `hand` plus those in every seat's melds and discards, counted in one pass."""
    c = bytearray(hand)
    for ms in melds:
        for m in ms:
            c[m.tile] += m.size
    for k in chain.from_iterable(discards):
        c[k] += 1
    return c


def _unseen(st: State, s: int) -> list[int]:
    """`unseen_counts(st.hands[s], _visible(st))` in one pass: 4 − own − visible, at least 0."""
    c = _held_or_seen(st.hands[s], st.melds, st.discards)
    for k in chain.from_iterable(st.wins):
        c[k] += 1
    return list(c.translate(_LIVE))


def _sichuan_discard(st: State, s: int, hand: Sequence[int], n_melds: int, void: int) -> int:
    """`choose_discard(hand, n_melds, void, _unseen(st, s))` with the live counts made only when
    the choice reads them: not for a void-suit discard, nor for a lone discard of minimal shanten
    (the same candidates whether or not a tile is live: `choose_discard`'s two branches agree)."""
    if void >= 0:
        vs = [k for k in range(9 * void, 9 * void + 9) if hand[k]]
        if vs:
            return min(vs, key=lambda k: (_connect(hand, k), k))
    gains = min_discard_gains(hand, n_melds)
    if len(gains) == 1:
        return gains[0][0]
    unseen = _unseen(st, s)
    if not any(unseen):
        return _most_ukeire(hand, ((k, 0) for k, _sh, _m in gains))
    return _pick_by_ukeire(hand, gains, void, unseen)


def sichuan_action(game: SichuanGame, st: State, rng: random.Random) -> dict[str, Any]:
    """The next event a decent Sichuan player (or the system) logs."""
    try:
        ev = _sichuan_choice(game, st, rng)
        game.apply(st, SimpleNamespace(seq=st.seq + 1, **ev))  # type: ignore[arg-type]
        return ev
    except Illegal:
        legal = game.legal_actions(st)
        pref = [a for a in legal if a["type"] in ("hu", "draw", "discard")] or legal
        return pref[0]


_ORDERS = tuple(tuple((k + i) % 4 for i in range(1, 4)) for k in range(4))
"""The seats after seat k in turn order (claims, SC-R7)."""


@cache
def _sichuan_module() -> Any:
    from engine.mahjong import sichuan  # loaded for the Sichuan bot only (Hongzhong/Anshun need it not)

    return sichuan


def _sichuan_choice(game: SichuanGame, st: State, rng: random.Random) -> dict[str, Any]:
    if st.phase == "exchange":
        s = next(i for i in range(4) if st.exchange[i] is None)
        return {"type": "exchange", "seat": s, "tiles": tile_names(choose_exchange(st.hands[s]))}
    if st.phase == "direction":
        return {"type": "exchange_direction", "direction": rng.choice(list(st.rules.exchange_directions))}
    if st.phase == "dingque":
        s = next(i for i in range(4) if st.void[i] < 0)
        return {"type": "dingque", "seat": s, "suit": SUITS[choose_void(st.hands[s])]}
    if st.stage == "act":
        s = st.turn
        hand = st.hands[s]
        void = st.void[s]
        if (
            not st.after_peng
            and (st.drawn >= 0 or st.first_turn)
            and _sichuan_win(hand, st.melds[s], void)  # = is_sichuan_win: `_self_win` is None without it
            and game._self_win(st, s) is not None
        ):
            t = st.drawn if st.drawn >= 0 else max(kinds_of(hand))
            return {"type": "hu", "seat": s, "tile": TILE_NAME[t]}
        n_melds = len(st.melds[s])
        if not st.after_peng and st.wall.remaining > 0:
            for m in st.melds[s]:
                if m.kind == "peng" and hand[m.tile]:
                    return {"type": "gang", "seat": s, "tile": TILE_NAME[m.tile], "kind": "bu"}
            for k in range(N_SUITED) if 4 in hand else ():
                if hand[k] == 4 and k // 9 != void:
                    after = list(hand)
                    after[k] = 0
                    if want_gang(hand, after, n_melds, void, True):
                        if _sichuan_locked(st, s) and not _locked_gang_ok(st, s, k):
                            break  # SC-R19 refuses it: the locked seat discards its draw (below)
                        return {"type": "gang", "seat": s, "tile": TILE_NAME[k], "kind": "an"}
        if _sichuan_locked(st, s):
            return {"type": "discard", "seat": s, "tile": TILE_NAME[st.drawn]}
        k = _sichuan_discard(st, s, hand, n_melds, void)
        return {"type": "discard", "seat": s, "tile": TILE_NAME[k]}
    if st.stage in ("window", "rob"):
        k = st.turn
        d = st.offered
        order = _ORDERS[k]
        start = order.index(st.hus[-1]) + 1 if st.hus else 0
        if st.rules.yi_pao_duo_xiang or not st.hus:
            j = _sichuan_first_claimer(game, st, order[start:] if start else order)  # = game._first_claimer
            if j >= 0:
                return {"type": "hu", "seat": j, "tile": TILE_NAME[d]}
        if st.stage == "window" and not st.hus and st.wall.remaining > 0:
            for j in order:
                h = st.hands[j]
                if h[d] < 2:
                    continue  # neither a gang nor a peng (the tests below are pure)
                if not (st.xueliu or not st.wins[j]) or d // 9 == st.void[j]:  # = not sichuan._active(st, j)
                    continue
                nm = len(st.melds[j])
                if h[d] == 3 and not _sichuan_locked(st, j):
                    after = list(h)
                    after[d] = 0
                    if want_gang(h, after, nm, st.void[j], False):
                        return {"type": "gang", "seat": j, "tile": TILE_NAME[d], "kind": "zhi"}
                if h[d] >= 2 and not _sichuan_locked(st, j) and want_peng(h, nm, d, st.void[j]):
                    return {"type": "peng", "seat": j, "tile": TILE_NAME[d]}
    drawer, tile = _sichuan_expected_draw(st)  # = game._expected_drawer(st), game._expected_tile(st)
    assert drawer >= 0
    return {"type": "draw", "seat": drawer, "tile": TILE_NAME[tile]}


def _sichuan_first_claimer(game: SichuanGame, st: State, seats: tuple[int, ...]) -> int:
    """`game._first_claimer(st, seats)`: the first of `seats` that may win the offered tile now
    (SC-R8/R13 with the pass lock SC-R17), or −1, through the reducer's memo of answers for `st`
    (`_claims`; a slot not asked yet holds a sentinel, an answer None or a `Score`, a tuple): a seat
    whose hand plus the tile is no shape win answers None without a call into the reducer."""
    memo = game._claims
    if memo[0] is not st:
        game._claim_answers(st)  # a fresh memo for `st`
        memo = game._claims
    got = memo[1]
    off = st.offered
    for j in seats:
        sc = got[j]
        if sc is None:
            continue
        if not isinstance(sc, tuple):  # not asked yet
            if off >= 0 and not win_mask(st.hands[j], len(st.melds[j])) >> off & 1:
                got[j] = None
                continue
            sc = got[j] = game._can_claim_win_now(st, j, False)
            if sc is None:
                continue
        return j
    return -1


def _sichuan_win(conc: tuple[int, ...], melds: tuple[Any, ...], void: int) -> bool:
    """`sichuan.is_sichuan_win` (SC-H1): a winning shape holding no void tile and no meld of the void suit."""
    if not is_win(conc, len(melds)):
        return False
    if void >= 0:
        for k in range(9 * void, 9 * void + 9):
            if conc[k]:
                return False
    for m in melds:  # noqa: SIM110 (a compiled loop: no generator object)
        if m.tile // 9 == void:
            return False
    return True


def _sichuan_next_active(st: State, s: int) -> int:
    """`sichuan._next_active` (SC-R20): the first seat after s still in the hand (血流: the next)."""
    if st.xueliu:
        return (s + 1) % 4
    for i in range(1, 5):
        j = (s + i) % 4
        if not st.wins[j]:
            return j
    return s


def _sichuan_expected_draw(st: State) -> tuple[int, int]:
    """(seat, tile) of the next draw (SC-R16; SC-C4: a replacement from the end the rules name):
    `game._expected_drawer(st)` and `game._expected_tile(st)`; seat −1 when no draw is expected."""
    stage = st.stage
    hus = st.hus
    if stage == "draw":
        seat = st.turn
    elif stage == "rob":
        seat = st.turn if not hus else _sichuan_next_active(st, hus[-1])
    elif stage == "window":
        seat = _sichuan_next_active(st, hus[-1] if hus else st.turn)
    else:
        return -1, -1
    repl = (stage == "draw" and st.repl) or (stage == "rob" and not hus)
    return seat, st.wall.peek(repl and st.rules.replacement_from == "tail")


def _sichuan_locked(st: State, s: int) -> bool:
    """`sichuan._locked`: SC-R19, a 血流 seat that has won keeps its hand (`xueliu_lock_after_hu`)."""
    return bool(st.xueliu and st.rules.xueliu_lock_after_hu and st.wins[s])


def _locked_gang_ok(st: State, s: int, k: int) -> bool:
    """SC-R19: the locked seat's an gang of k keeps its waits (else the reducer refuses it, and the
    first legal event is then the discard of the drawn tile, the locked seat's only move)."""
    sc = _sichuan_module()
    hand = st.hands[s]
    w0, w1 = sc.own_gang_waits(st, s, sc._add(hand, k, -4), (*st.melds[s], sc.Meld("gang_an", k, None)))
    return bool(w0 == w1)


# ---------------------------------------------------------------- Hongzhong and Anshun (claimflow.py)
def claimflow_action(game: ClaimGame, s: Table, rng: random.Random) -> dict[str, Any]:
    """The first legal event of `claimflow_candidates` (a person's priorities); else any legal event."""
    for c in claimflow_candidates(game, s, rng):
        if game.try_apply(s, c) is not None:
            return c
    acts = game.legal_actions(s)
    if not acts:
        raise RuntimeError(f"{game.id}: no legal action in phase {s.phase}")
    return acts[0]


def claimflow_candidates(game: ClaimGame, s: Table, rng: random.Random) -> Iterator[dict[str, Any]]:
    """Win first (self-draw, then claims in turn order), then kongs, pengs that help, then the discard
    chosen by `claimflow_discard` or the expected draw. The game's hooks (`bot_may_hu`, `bot_may_hu_on`,
    `bot_special`, `bot_natural`) say what its rules allow."""
    if s.phase == "act":
        j = s.turn
        drawn = s.tile if s.drew else None
        if (drawn is not None or s.first) and game.bot_may_hu(s, j, s.hands[j], game.zimo_kind(s, j)):
            t = drawn if drawn is not None else next(k for k in range(N_KINDS) if s.hands[j][k])
            yield {"type": "hu", "seat": j, "tile": TILE_NAME[t]}
        yield from game.bot_special(s, rng)
        h = s.hands[j]
        for k in range(N_KINDS):
            if h[k] == 4:
                yield {"type": "gang", "seat": j, "tile": TILE_NAME[k], "kind": "an"}
        for m in s.melds[j]:
            if m.kind == "peng" and h[m.tile]:
                yield {"type": "gang", "seat": j, "tile": TILE_NAME[m.tile], "kind": "bu"}
        kd = claimflow_discard(game, s, j)
        if kd is not None:
            yield {"type": "discard", "seat": j, "tile": TILE_NAME[kd]}
        return
    if s.phase in ("claim", "rob") and s.tile is not None:
        d = TILE_NAME[s.tile]
        how = "dianpao" if s.phase == "claim" else "qianggang"
        for i in range(1, 4):
            j = (s.turn + i) % 4
            if game.bot_may_hu_on(s, j, s.tile, how) and not game.bot_claim_refused(s, j, how):
                yield {"type": "hu", "seat": j, "tile": d}
        if s.phase == "claim":
            for i in range(1, 4):
                j = (s.turn + i) % 4
                if s.hands[j][s.tile] >= 3:
                    yield {"type": "gang", "seat": j, "tile": d, "kind": "zhi"}
                if s.hands[j][s.tile] >= 2 and want_peng(game.bot_natural(s, s.hands[j]), len(s.melds[j]), s.tile, -1):
                    yield {"type": "peng", "seat": j, "tile": d}
    exp = game._expected_drawer(s)
    if exp is not None and s.wall.remaining > game.reserve(s.rules):
        seat, repl = exp
        tail = repl and getattr(s.rules, "replacement_from", "head") == "tail"
        yield {"type": "draw", "seat": seat, "tile": TILE_NAME[s.wall.peek(tail)]}


def claimflow_discard(game: ClaimGame, s: Table, j: int) -> int | None:
    """The shared discard rule on the game's natural tiles; live-tile counts (ukeire) only when the hand
    is close to ready."""
    h = s.hands[j]
    c = game.bot_natural(s, h)
    m = len(s.melds[j])
    near = shanten(c, m) <= 1 if any(c) else False
    # = unseen_counts(h, game.visible(s)), in one pass
    unseen = list(_held_or_seen(h, s.melds, s.discards).translate(_LIVE)) if near else [0] * N_KINDS
    if not any(c):
        return next((k for k in range(N_KINDS) if h[k]), None)
    return choose_discard(c, m, -1, unseen)
