"""Integrity signals (docs/integrity.md): collusion per pair of players, deal fairness per player.

One code path from events to numbers, used by the ingest (which publishes the tables
`pair_signals` and `deal_strength` after the other tables), by `paiju integrity` and the
dashboard (analytics/integrity.py) and by bench/integrity.py (in memory, on simulated logs):

    facts = [match_facts(match_id, events, deltas) for each finished match]
    pairs = pair_signals(facts, min_matches=…, fdr=…)       # rows of the pair_signals table
    deals = deal_rows(facts); players = deal_fairness(deals)  # deal_strength rows, per-player tests

Per match and per unordered pair of seats {i, j}, `match_facts` measures what the pair did to
each other (the components below); the seat-shuffle null re-draws, independently per match, which
two seats the pair held (every unordered pair of seats of that match equally likely: players are
exchangeable within a match when nobody colludes). Components (positive = more like collusion):
- all games: `joint` = (d_i + d_j) / (½ Σ|d|), the pair's joint result in that match;
- Zha Jin Hua: `no_compare` = −(compares between them), `fold_to` = folds by one while a stronger
  hand of the other is still in, `raises` = raises by one while the other is in (shown, weight 0);
- mahjong: `feeds` = pengs, exposed kongs and wins by one on the other's discard, `deal_ins` =
  the wins among them (点炮); Sichuan: `serves` = discards by one the other may peng or win on
  (shown, weight 0), `serves_excess` = those against the share of the discarder's legal kinds
  that would serve the other (the reducer's states);
- climbing games: `passes` = passes on the other's play, `lets_run` = those while the other holds
  5 cards or fewer, `no_bomb` = −(bombs and rockets played on the other's play), `holds_back` =
  passes on an opponent's play while holding a beat, `lets_out` = those while it holds 5 or fewer.
Besides, the settlement lines give the net money between the two (`flow_ab`, `flow_z`: shown).
Each component is standardised by its exact null mean and SD; the pair's statistic T is their
weighted sum (`WEIGHTS`)
standardised again exactly (`behaviour_z`), its p-value is Monte Carlo under the same null. The
co-seating count gets a Poisson p-value against the count expected from both players' activity;
the two p-values are combined by Tippett's method (the smaller, corrected for two looks: either
signal alone can carry a pair), and Benjamini–Hochberg gives q-values per game.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

FDR = 0.05
"""The false discovery rate at which pairs and players are flagged."""
MIN_MATCHES = 10
"""Pairs with fewer shared matches are not tested."""
MC_DRAWS = 1000
"""Plain Monte Carlo draws of the seat-shuffle null: p = (1 + hits) / (1 + draws) when at least
`MC_MIN_HITS` draws reach the observed T."""
MC_MIN_HITS = 10
MC_DRAWS_TILTED = 10_000
"""Draws of the tilted null (`_tilted_tail`) for a pair whose T fewer than `MC_MIN_HITS` plain
draws reach: the tail estimated by importance sampling (issue 22; it replaced a plain run of
200,000 draws, floored at 5·10⁻⁶, at an eighth to a seventh of its time on pairs of 50 to 1,000
matches)."""
TILTED_CHUNK = 2_000
TILTED_CELLS = 4_000_000
"""Tilted draws are made `TILTED_CHUNK` at a time, fewer for a pair of many matches: at most
about this many uniforms (32 MB) an array, so that memory stays bounded whatever the pair."""
P_FLOOR = 1e-300
"""The smallest p-value reported: a tail below a double's range (e^{−690}) is shown as 10⁻³⁰⁰, not 0."""
EVIDENCE = 10
"""Matches listed as evidence per pair (the largest contributions to T)."""
LETS_RUN = 5
COMPONENTS: dict[str, tuple[str, ...]] = {
    "zhajinhua": ("joint", "no_compare", "fold_to", "raises"),
    "mahjong": ("joint", "feeds", "deal_ins", "serves", "serves_excess"),
    "climbing": ("joint", "passes", "lets_run", "no_bomb", "holds_back", "lets_out"),
}
WEIGHTS: dict[str, float] = {
    "fold_to": 2.0,
    "feeds": 2.0,
    "deal_ins": 0.0,
    "raises": 0.0,
    "holds_back": 2.0,
    "lets_out": 2.0,
    "serves": 0.0,
    "serves_excess": 2.0,
}
"""Weight of a standardised component in T (1 when not listed): the signature of each scheme
counts double (folding a good hand to the partner's better one; feeding the partner's claims;
serving the partner's pengs and wins beyond what the discarder's hand offers, chosen on Sichuan
worlds of seeds 1000–1011, docs/integrity.md); deal-ins are shown but left out (they are a part of
the feeds), and so is the raw `serves` count (it rises with the partner's pairs and waits, which
every discarder serves)."""
CLIMBING = ("ddz", "ddz_laizi", "paodekuai")
SICHUAN = ("sichuan_xuezhan", "sichuan_xueliu")
BOTTOM_GAMES = ("ddz", "ddz_laizi")


def family(game: str) -> str:
    if game == "zhajinhua":
        return "zhajinhua"
    return "climbing" if game in CLIMBING else "mahjong"


@dataclass
class MatchFacts:
    """What the integrity tests need from one finished match."""

    match_id: str
    game: str
    players: tuple[str, ...]
    dealer: int
    deltas: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    extra: dict[str, Any]
    """`bottom` / `wall` of the deal (positional tests)."""
    comps: np.ndarray
    """shape (pairs of seats in `combinations(range(n), 2)` order, components)."""
    seqs: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    """seat pair → seqs of the events behind its components."""
    flows: np.ndarray | None = None
    """Per seat pair (i, j), i < j: the settlement's net points from j to i (received by i from j
    minus received by j from i); None when the items are unknown."""


@cache
def _pairs(n: int) -> tuple[tuple[int, int], ...]:
    """The seat pairs of an `n`-seat table in `combinations` order (made once per size)."""
    return tuple(combinations(range(n), 2))


@cache
def _pair_index(n: int) -> dict[tuple[int, int], int]:
    """Seat pair (i < j) → its row in `_pairs(n)` (shared: read, never edit it)."""
    return {p: k for k, p in enumerate(_pairs(n))}


@cache
def _columns(fam: str) -> dict[str, int]:
    """Component name → its column in a family's `MatchFacts.comps` (`COMPONENTS`)."""
    return {c: k for k, c in enumerate(COMPONENTS[fam])}


@lru_cache(maxsize=1 << 16)
def _pair_keys(game: str, players: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """`(game, a, b)` with a < b of every seat pair of a match, in `_pairs` order: the key of the
    pair's row (the same few tables of players recur, so each is sorted once)."""
    return tuple((game, *sorted((players[i], players[j]))) for i, j in _pairs(len(players)))  # type: ignore[misc]


def match_facts(match_id: str, events: Sequence[Mapping[str, Any]], deltas: Sequence[int],
                items: Sequence[tuple[int, int, int]] | None = None,
                states: Sequence[Any] | None = None) -> MatchFacts | None:  # fmt: skip
    """The facts of one match from its events (dicts in seq order, from `match_started`) and its
    settlement lines `items` ((seat, from_seat, points): the replay's `items`; None = unknown, no
    money flow); None when it has no `match_started` and `dealt`. `states`, when the caller has
    just replayed the match (the ingest's replay step): the game's state after each event, one
    per event from `match_started` on, so that the reducer is not run a second time."""
    if len(events) < 2 or events[0].get("type") != "match_started" or events[1].get("type") != "dealt":
        return None
    st, dealt = events[0], events[1]
    game, players = st["game"], tuple(st["players"])
    n = len(players)
    fam = family(game)
    names = COMPONENTS[fam]
    pairs = _pairs(n)
    index = _pair_index(n)
    column = _columns(fam)
    # the components summed in Python floats (the same additions in the same order as in a NumPy
    # array, without a NumPy scalar update per event), made an array at the end
    rows = [[0.0] * len(names) for _ in pairs]
    seqs: dict[tuple[int, int], list[int]] = defaultdict(list)
    d = [int(x) for x in deltas]
    scale = sum(abs(x) for x in d) / 2 or 1.0
    for (i, j), k in index.items():
        rows[k][0] = (d[i] + d[j]) / scale

    def add(i: int, j: int, c: str, seq: int, v: float = 1.0, mark: bool = True) -> None:
        if i == j or not (0 <= i < n and 0 <= j < n):
            return
        key = (i, j) if i < j else (j, i)
        rows[index[key]][column[c]] += v
        if mark:
            seqs[key].append(seq)

    before = None if states is None else states[1:-1]  # the state before each event after the deal
    if fam == "zhajinhua":
        _zjh_facts(st, dealt, events, add, before)
    elif fam == "mahjong":
        src: int | None = None  # the seat whose discard (or added kong) is open to claims
        for e in events[2:]:
            t = e.get("type")
            if t == "discard" or (t == "gang" and e.get("kind") == "bu"):
                src = e["seat"]
            elif t in ("peng", "hu") or (t == "gang" and e.get("kind") == "zhi"):
                if src is not None and e["seat"] != src:
                    add(src, e["seat"], "feeds", e["seq"])
                    if t == "hu":
                        add(src, e["seat"], "deal_ins", e["seq"])
                if t != "hu":
                    src = None
            elif t == "draw":
                src = None
        if game in SICHUAN:
            _sichuan_serves(game, st, dealt, events, add, before)
    else:
        _climbing_facts(game, st, dealt, events, add, before)
    extra = {k: list(dealt[k]) for k in ("bottom", "wall") if dealt.get(k)}
    comps = np.array(rows, dtype=float).reshape(len(pairs), len(names))
    return MatchFacts(
        match_id, game, players, int(st.get("dealer", 0)), tuple(d), tuple(tuple(h) for h in dealt["hands"]),
        extra, comps, dict(seqs), _net_flows(n, items),
    )  # fmt: skip


def _zjh_facts(st: Mapping[str, Any], dealt: Mapping[str, Any], events: Sequence[Mapping[str, Any]], add: Any,
               before: Sequence[Any] | None = None) -> None:  # fmt: skip
    """Compares between the two, and folds of a hand while a stronger one of the other is still in,
    weighted by the folded hand's strength (folding a good hand to a better one is what a partner
    does; a weak hand folds against everybody). Who is still in: folds, forfeits and compare losers
    (the match's own ranking; equal hands: the challenger loses)."""
    from engine.cards import CARD_ID
    from engine.errors import Illegal
    from engine.registry import get_game
    from engine.sim.rig import zjh_strength
    from engine.zhajinhua.hands import Evaluator

    g = get_game("zhajinhua")
    try:
        r = g.parse_rules(st.get("rules") or {})
        ev = Evaluator(r.a23 == "second", r.suit_tiebreak, r.special_235)
    except Illegal:  # a finished match's rules always parse; the standard ranking otherwise
        ev = Evaluator()

    hands = [[CARD_ID[c] for c in h] for h in dealt["hands"]]
    share = [zjh_strength(h) for h in dealt["hands"]]
    n = len(hands)
    active = [True] * n
    for e, state in _states(g, st, dealt, events, before):
        t = e.get("type")
        if t == "compare":
            a, b = e["seat"], e["target"]
            add(a, b, "no_compare", e["seq"], -1.0)
            if 0 <= a < n and 0 <= b < n:
                active[b if ev.beats(hands[a], hands[b]) else a] = False
        elif t in ("fold", "forfeit"):
            i = e["seat"]
            if t == "fold":
                for j in range(n):
                    if j != i and active[j] and ev.beats(hands[j], hands[i]):
                        add(i, j, "fold_to", e["seq"], share[i])
            if 0 <= i < n:
                active[i] = False
        elif t == "bet" and state is not None and e.get("amount", 0) > state.call(e["seat"]):
            i = e["seat"]  # a raise (the bet is above the seat's call): against everyone still in
            for j in range(n):
                if j != i and active[j]:
                    add(i, j, "raises", e["seq"])


def _sichuan_serves(game: str, st: Mapping[str, Any], dealt: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                    add: Any, before: Sequence[Any] | None = None) -> None:  # fmt: skip
    """Per discard of seat a and per other seat j still in the hand: `serves` += 1 when j may peng
    or win on the discarded tile at that moment, and `serves_excess` += that indicator
    − the share of a's legal discard kinds (its void suit first, SC-R6) that j may peng or win on
    (`engine.mahjong.sichuan.claim_on`; what a discard chosen at random among a's kinds would serve). A colluder serves its partner
    whenever it can; an honest player serves whoever its own hand gives. The game's reducer
    follows the match."""
    from engine.mahjong import sichuan as sc
    from engine.registry import get_game
    from engine.tiles import N_SUITED, TILE_ID

    g = get_game(game)
    for e, state in _states(g, st, dealt, events, before):
        if e.get("type") != "discard" or state is None or state.phase != "play" or state.stage != "act":
            continue
        a, k = e["seat"], TILE_ID.get(e.get("tile", ""))
        if k is None or not 0 <= a < len(state.hands):
            continue
        hand = state.hands[a]
        v = state.void[a]
        void_first = state.rules.que_discard_first and sc._has_void(hand, v)  # the same for every kind
        kinds = [x for x in range(N_SUITED) if hand[x] and (x // 9 == v or not void_first)]
        for j in range(len(state.hands)):
            if j == a or not sc._active(state, j):
                continue
            if 0 <= k < N_SUITED:  # `claim_on(state, j, x) is not None` for every suited x at once
                claims = _claim_mask(sc, state, j)
                served = bool(claims >> k & 1)
                share = sum(claims >> x & 1 for x in kinds) / len(kinds) if kinds else 0.0
            else:
                served = sc.claim_on(state, j, k) is not None
                share = sum(sc.claim_on(state, j, x) is not None for x in kinds) / len(kinds) if kinds else 0.0
            if served:
                add(a, j, "serves", e["seq"])
            if served or share:
                add(a, j, "serves_excess", e["seq"], float(served) - share, mark=served)


def _claim_mask(sc: Any, state: Any, j: int) -> int:
    """Bit x set when `engine.mahjong.sichuan.claim_on(state, j, x)` is not None, for every suited
    kind x (SC-H1 `hu`, SC-R9 `peng`; seat j still in the hand, `_sichuan_serves` checks it): its
    conditions evaluated once per seat instead of once per kind (issue 22; tests/test_ingest_speed6.py
    compares it with `claim_on` on every discard of the Sichuan worlds)."""
    from engine.mahjong.core import win_mask
    from engine.tiles import N_SUITED

    hand, void = state.hands[j], state.void[j]
    mask = 0 if sc._has_void(hand, void) else win_mask(hand, len(state.melds[j]))
    for x in range(N_SUITED):
        if hand[x] >= 2:
            mask |= 1 << x
    mask &= (1 << N_SUITED) - 1
    if 0 <= void < 3:  # never a kind of the seat's void suit
        mask &= ~(0x1FF << (9 * void))
    return mask


def _climbing_facts(game: str, st: Mapping[str, Any], dealt: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                    add: Any, before: Sequence[Any] | None = None) -> None:  # fmt: skip
    """Passes on the other's play (`lets_run` while the other holds `LETS_RUN` cards or fewer),
    bombs on the other's play, and `holds_back`: passes on an *opponent's* play (Dou Dizhu: one of
    the two is the landlord; Pao De Kuai: every other player) while holding a play that beats it.
    Two farmers pass each other as a matter of course; an honest player lets an opponent's play
    stand only when it has no beat or keeps it for later. The game's own reducer follows the
    match (the hands, the landlord, the top play), its move generator answers "holds a beat"."""
    from engine.registry import get_game

    g = get_game(game)
    n = len(dealt["hands"])
    left = [len(h) for h in dealt["hands"]]
    landlord_pending = game in BOTTOM_GAMES
    top: int | None = None
    passes = 0
    wild: str | None = None
    for e, state in _states(g, st, dealt, events, before):
        t = e.get("type")
        if t == "laizi":
            wild = e["rank"]
        elif t == "play":
            s = e["seat"]
            if landlord_pending:
                left[s] += len(dealt.get("bottom") or ())
                landlord_pending = False
            cards = list(e["cards"])
            if top is not None and top != s and _is_bomb(cards, e.get("as"), wild):
                add(s, top, "no_bomb", e["seq"], -1.0)
            left[s] -= len(cards)
            top, passes = s, 0
        elif t == "pass" and top is not None:
            s = e["seat"]
            add(s, top, "passes", e["seq"])
            if left[top] <= LETS_RUN:
                add(s, top, "lets_run", e["seq"])
            if state is not None and _opponents(game, state, s, top) and _holds_beat(g, state, s):
                add(s, top, "holds_back", e["seq"])
                if left[top] <= LETS_RUN:
                    add(s, top, "lets_out", e["seq"])
            passes += 1
            if passes >= n - 1:
                top, passes = None, 0


def _states(g: Any, st: Mapping[str, Any], dealt: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
            before: Sequence[Any] | None = None) -> Iterator[tuple[Mapping[str, Any], Any]]:  # fmt: skip
    """(event, the game's state before it) for every event after the deal, the game's own reducer
    applying them; the state is None from an event the reducer refuses (a finished match's events
    never are) and from the `settled` event on. `before`: those states as the caller's replay
    reached them (reducers are pure, so each is the state the reducer would rebuild here)."""
    from engine.errors import Illegal
    from events.codec import parse_event
    from events.errors import ContractError

    if before is not None:
        ended = False
        for e, s in zip(events[2:], before, strict=True):
            ended = ended or e.get("type") == "settled"
            yield e, None if ended else s
        return
    try:
        state = g.start(parse_event(dict(st)), parse_event(dict(dealt)), g.parse_rules(st.get("rules") or {}))
    except (Illegal, ContractError):
        state = None
    for e in events[2:]:
        if e.get("type") == "settled":
            state = None
        yield e, state
        if state is not None:
            try:
                state = g.apply(state, parse_event(dict(e)))
            except (Illegal, ContractError):
                state = None


def _opponents(game: str, state: Any, i: int, j: int) -> bool:
    """Dou Dizhu: one of the two is the landlord; Pao De Kuai: always (no sides)."""
    if game not in BOTTOM_GAMES:
        return True
    return state.landlord is not None and state.landlord in (i, j)


def _holds_beat(g: Any, state: Any, seat: int) -> bool:
    """Whether `seat` (to act, a play on the table) holds a play that beats it."""
    if state.top is None or getattr(state, "turn", seat) != seat:
        return False
    if hasattr(g, "moves_for"):
        return bool(g.moves_for(state, seat, state.top))
    return any(a.get("type") == "play" for a in g.legal_actions(state))


def _is_bomb(cards: Sequence[str], as_ranks: Sequence[str] | None, wild: str | None) -> bool:
    """Four of one rank (each laizi card standing for its `as` rank, in order) or the two jokers."""
    if sorted(cards) == ["BJ", "RJ"]:
        return True
    if len(cards) != 4:
        return False
    stand = iter(as_ranks or ())
    ranks = [next(stand, c[:-1]) if wild is not None and c[:-1] == wild else c[:-1] for c in cards]
    return len(set(ranks)) == 1


# ---------------------------------------------------------------------------- statistics
def bh(p: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values (monotone, capped at 1)."""
    m = len(p)
    if not m:
        return []
    order = sorted(range(m), key=lambda k: p[k])
    q = [0.0] * m
    run = 1.0
    for rank in range(m, 0, -1):
        k = order[rank - 1]
        run = min(run, p[k] * m / rank)
        q[k] = run
    return q


def _norm_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def _poisson_sf(k: int, mu: float) -> float:
    """P(X ≥ k) for X ~ Poisson(mu): the terms from k up in log space when k is above the mean
    (the upper tail, no cancellation), else 1 − the terms below k (the standard library only: the
    ingest's integrity step does not pay for importing scipy)."""
    if k <= 0:
        return 1.0
    if mu <= 0:
        return 0.0
    log_mu = math.log(mu)

    def term(i: int) -> float:
        return math.exp(i * log_mu - mu - math.lgamma(i + 1))

    if k > mu:
        total, i = 0.0, k
        while True:
            t = term(i)
            total += t
            if t < total * 1e-17 or i > k + 10_000:
                return min(1.0, total)
            i += 1
    return max(0.0, 1.0 - math.fsum(term(i) for i in range(k)))


def _z_of(p: float) -> float:
    """The standard normal quantile above which `p` of the mass lies (the score of a p-value)."""
    from statistics import NormalDist

    p = min(max(p, 1e-300), 1.0 - 1e-16)
    return -NormalDist().inv_cdf(p) if p < 0.5 else NormalDist().inv_cdf(1.0 - p)


def _tippett(ps: Sequence[float]) -> float:
    """P(the smallest of k independent uniform p-values ≤ the smallest seen) = 1 − (1 − min)^k:
    a pair stands out by its behaviour, by how often it sits together or by the money between
    them, any one suffices."""
    return float(-math.expm1(len(ps) * math.log1p(-min(min(ps), 1.0 - 1e-16))))


def _fisher(ps: Sequence[float]) -> float:
    """Fisher's combination: P(χ²(2k) ≥ −2 Σ ln p) = e^{−x/2} Σ_{i<k} (x/2)^i / i! (even degrees
    of freedom: the closed form)."""
    half = -sum(math.log(max(p, 1e-300)) for p in ps)
    return min(1.0, math.fsum(math.exp(i * math.log(half) - half - math.lgamma(i + 1)) if half > 0 else float(i == 0)
                              for i in range(len(ps))))  # fmt: skip


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


@dataclass
class _PairData:
    game: str
    a: str
    b: str
    obs: list[np.ndarray] = field(default_factory=list)  # per match: the observed component vector
    alts: list[np.ndarray] = field(default_factory=list)  # per match: every seat pair's vectors
    mids: list[str] = field(default_factory=list)
    seqs: list[list[int]] = field(default_factory=list)
    flow: list[float] = field(default_factory=list)  # per match: net points from a to b
    flow_var: list[float] = field(default_factory=list)  # its variance under the seat shuffle

    def __getstate__(self) -> tuple[Any, ...]:
        """Sent to a worker (`pair_local` in the pool) as two arrays, not two arrays per match:
        `alts` holds each match's whole component matrix, pickled once per pair and match it
        was 53 MB and 1.8 s of pickling on a million events (issue 22). `__setstate__` gives back
        the same numbers (views of the stacked arrays)."""
        sizes = [len(x) for x in self.alts]
        alts = np.concatenate(self.alts) if self.alts else None
        obs = np.array(self.obs) if self.obs else None
        return self.game, self.a, self.b, obs, alts, sizes, self.mids, self.seqs, self.flow, self.flow_var

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.game, self.a, self.b, obs, alts, sizes, self.mids, self.seqs, self.flow, self.flow_var = state
        self.obs = [] if obs is None else list(obs)
        self.alts = []
        at = 0
        for n in sizes:
            self.alts.append(alts[at : at + n])
            at += n


def activity(matches: Iterable[tuple[str, Sequence[str]]]) -> dict[str, Any]:
    """Per game from (game, players) of every match: matches, matches per player (`active`),
    matches per table size (`seats`): what the co-seating expectation needs."""
    games: dict[str, Any] = defaultdict(lambda: {"matches": 0, "active": defaultdict(int), "seats": defaultdict(int)})
    for gid, players in matches:
        g = games[gid]
        g["matches"] += 1
        g["seats"][len(players)] += 1
        for p in players:
            g["active"][p] += 1
    return games


def _collect(facts: Sequence[MatchFacts], only: set[tuple[str, str, str]] | None = None,
             ) -> tuple[dict[tuple[str, str, str], _PairData], dict[str, Any]]:  # fmt: skip
    """Every pair's matches (or only the pairs `only`) and the games' `activity`."""
    pairs: dict[tuple[str, str, str], _PairData] = {}
    for f in facts:
        # the match's mean square net flow: the same for each of its pairs (computed once)
        flow_var = None if f.flows is None else float(np.mean(f.flows**2))
        keys = _pair_keys(f.game, tuple(f.players))
        for k, ((i, j), key) in enumerate(zip(_pairs(len(f.players)), keys, strict=True)):
            if only is not None and key not in only:
                continue
            pd_ = pairs.get(key)
            if pd_ is None:
                pd_ = pairs[key] = _PairData(*key)
            pd_.obs.append(f.comps[k])
            pd_.alts.append(f.comps)
            pd_.mids.append(f.match_id)
            pd_.seqs.append(f.seqs.get((i, j), []))
            if f.flows is not None and flow_var is not None:  # a holds seat i (b seat j): a pays b −flows[k]
                pd_.flow.append(float(-f.flows[k] if f.players[i] == key[1] else f.flows[k]))
                pd_.flow_var.append(flow_var)
    return pairs, activity((f.game, f.players) for f in facts)


def _behaviour(pd_: _PairData, names: tuple[str, ...]) -> tuple[float, float, dict[str, float], np.ndarray]:
    """(z of T, Monte Carlo p of T, per-component z, per-match contribution above its null mean).

    Every match's seat pairs sit in one row of a (matches, widest table's seat pairs, components)
    array, the cells beyond a match's own seat pairs zero and masked: each null moment is one
    reduction over all matches (issue 22: it was a NumPy call per match, each a few µs)."""
    sizes_i = np.array([len(a) for a in pd_.alts])
    m, width = len(sizes_i), int(sizes_i.max())
    valid = np.arange(width)[None, :] < sizes_i[:, None]
    sizes = sizes_i.astype(float)
    comps = np.zeros((m, width, len(names)))
    comps[valid] = np.concatenate(pd_.alts)  # row-major: match by match, seat pair by seat pair
    mu_c = comps.sum(axis=1) / sizes[:, None]  # (m, C)
    dev = np.where(valid[:, :, None], comps - mu_c[:, None, :], 0.0)
    var_c = (dev * dev).sum(axis=1) / sizes[:, None]
    obs = np.array(pd_.obs)
    sd_c = np.sqrt(var_c.sum(axis=0))
    comp_z = {
        c: float((obs[:, k].sum() - mu_c[:, k].sum()) / sd_c[k]) if sd_c[k] > 0 else 0.0 for k, c in enumerate(names)
    }
    weight = np.array([WEIGHTS.get(c, 1.0) for c in names])
    w = np.where(sd_c > 0, weight / np.where(sd_c > 0, sd_c, 1.0), 0.0)
    ys = comps @ w  # (m, width): per match, T's contribution of every seat pair (0 beyond them)
    y_obs = obs @ w
    y_mu = ys.sum(axis=1) / sizes
    y_dev = np.where(valid, ys - y_mu[:, None], 0.0)
    y_var = (y_dev * y_dev).sum(axis=1) / sizes
    t_obs = float(y_obs.sum())
    sd = math.sqrt(float(y_var.sum()))
    if sd == 0:
        return 0.0, 1.0, comp_z, y_obs - y_mu
    z = (t_obs - float(y_mu.sum())) / sd
    grid = np.where(valid, ys, np.nan)
    rng = np.random.default_rng(_seed(pd_.game, pd_.a, pd_.b))
    eps = 1e-9 * max(1.0, abs(t_obs))
    # the plain run: each draw picks, per match, a seat pair uniformly, `floor(u * size)` of one
    # uniform u per match drawn row by row from the pair's generator, through one flat gather (the
    # same numbers and sums as `grid[arange(m), (rng.random((k, m)) * sizes).astype(int)].sum(axis=1)`:
    # tests/test_integrity_mc.py)
    u = rng.random((MC_DRAWS, m))
    u *= sizes
    cell = u.astype(np.intp)  # truncation: u ≥ 0
    cell += np.arange(m) * width
    hits = int((np.take(grid.ravel(), cell).sum(axis=1) >= t_obs - eps).sum())
    if hits >= MC_MIN_HITS:
        return z, (1 + hits) / (1 + MC_DRAWS), comp_z, y_obs - y_mu
    return z, _tilted_tail(grid, sizes, t_obs - eps, rng), comp_z, y_obs - y_mu


def _tilted_tail(grid: np.ndarray, sizes: np.ndarray, t: float, rng: np.random.Generator) -> float:
    """P(T ≥ t) under the seat-shuffle null, T = Σ_m Y_m with Y_m uniform over the row m of `grid`
    (its first `sizes[m]` cells): the far tail, by importance sampling from the exponentially
    tilted null (Siegmund 1976). Each Y_m is drawn with probability ∝ e^{s·y}, s the saddlepoint
    (K'(s) = t, K the cumulant generating function of T: the tilted mean of T is t), and a draw
    counts e^{K(s) − s·T} when it reaches t: an unbiased estimate whose relative error stays a
    few per cent at any depth of the tail, where plain draws would need ~100/p of them. When t is
    T's largest value (every match at its row's maximum), the exact product of the chances.
    Checked against exact enumeration in tests/test_integrity_mc.py."""
    valid = ~np.isnan(grid)
    top = np.where(valid, grid, -np.inf).max(axis=1)
    if t >= top.sum() - 1e-12 * max(1.0, abs(t)):
        return max(P_FLOOR, float(np.prod((valid & (grid >= top[:, None] - 1e-12)).sum(axis=1) / sizes)))
    y = np.where(valid, grid - top[:, None], 0.0)  # ≤ 0: e^{s·y} cannot overflow for s ≥ 0
    values = np.where(valid, grid, 0.0)

    def tilt(s: float) -> tuple[np.ndarray, float, float]:
        """(tilted chances per cell, K(s), K'(s))."""
        e = np.where(valid, np.exp(s * y), 0.0)
        tot = e.sum(axis=1)
        q = e / tot[:, None]
        k = float((np.log(tot / sizes) + s * top).sum())
        return q, k, float((q * values).sum())

    lo, hi = 0.0, 1.0
    while tilt(hi)[2] < t and hi < 1e6:
        lo, hi = hi, hi * 2.0
    for _ in range(60):  # bisection: K' rises with s; 60 halvings reach the float's precision
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tilt(mid)[2] < t else (lo, mid)
    s = hi
    q, k_s, _ = tilt(s)
    m, width = grid.shape
    offsets = np.arange(m)[:, None] * width
    keep, alias = _alias_tables(q * sizes[:, None], valid)
    keep, alias = keep.ravel(), (alias + offsets).ravel()
    flat = values.ravel()
    total = 0.0
    chunk = max(100, min(TILTED_CHUNK, TILTED_CELLS // m))  # the same uniforms, whatever the chunk
    for start in range(0, MC_DRAWS_TILTED, chunk):
        # one uniform a match: its integer part (× the row's size) a cell, its fraction the
        # choice between the cell and its alias (Walker's alias method)
        v = rng.random((min(chunk, MC_DRAWS_TILTED - start), m))
        v *= sizes
        cell = v.astype(np.intp)
        v -= cell
        cell += offsets.T
        cell = np.where(v < np.take(keep, cell), cell, np.take(alias, cell))
        tot = np.take(flat, cell).sum(axis=1)
        total += float(np.exp(k_s - s * tot[tot >= t]).sum())
    return min(1.0, max(P_FLOOR, total / MC_DRAWS_TILTED))


def _alias_tables(scaled: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias tables of each row's chances (`scaled` = chance × the row's size, over its
    `valid` cells): cell k is kept with chance `keep[k]`, else its `alias[k]` (a column) is taken.
    Built for every row at once: each step pairs the smallest remaining cell (≤ 1) with the
    largest, which gives it the rest of its mass."""
    m, width = scaled.shape
    p = np.where(valid, scaled, 0.0)
    keep = np.ones((m, width))
    alias = np.broadcast_to(np.arange(width), (m, width)).copy()
    left = valid.copy()
    rows = np.arange(m)
    for _ in range(width - 1):
        live = left.sum(axis=1) > 1
        if not live.any():
            break
        small = np.where(left, p, np.inf).argmin(axis=1)
        cand = left.copy()
        cand[rows, small] = False
        large = np.where(cand, p, -np.inf).argmax(axis=1)
        r, sm, lg = rows[live], small[live], large[live]
        keep[r, sm] = np.clip(p[r, sm], 0.0, 1.0)
        alias[r, sm] = lg
        p[r, lg] -= 1.0 - p[r, sm]
        left[r, sm] = False
    return keep, alias


def pair_signals(facts: Iterable[MatchFacts], *, min_matches: int = MIN_MATCHES, fdr: float = FDR,
                 game: str | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """One row per (game, pair) with at least `min_matches` shared matches and one per pair over
    all games (`game` = "all"), sorted by score (highest first): the `paiju integrity --json`
    fields plus `evidence_seqs` (match id → seqs)."""
    facts = [f for f in facts if game is None or f.game == game]
    pairs, games = _collect(facts)
    local = {key: pair_local(pd_) for key, pd_ in pairs.items() if len(pd_.mids) >= min_matches}
    return combine(local, games, fdr=fdr, by_all=game is None)


def pair_local(pd_: _PairData) -> dict[str, Any]:
    """What a pair's row takes from the pair's own matches only (the seat-shuffle statistics, the
    evidence, the money flow): the same for the same matches, whatever else the lake holds (the
    unit the incremental step keeps between ingests)."""
    z, p_t, comp_z, contrib = _behaviour(pd_, COMPONENTS[family(pd_.game)])
    order = np.argsort(-contrib, kind="stable")[:EVIDENCE]
    return {
        "matches_together": len(pd_.mids), "behaviour_z": z, "behaviour_p": p_t,
        "comp_z": comp_z, "flows": _flows(pd_),
        "evidence": [pd_.mids[r] for r in order if contrib[r] > 0],
        "evidence_seqs": {pd_.mids[r]: sorted(set(pd_.seqs[r])) for r in order if contrib[r] > 0},
    }  # fmt: skip


def combine(local: Mapping[tuple[str, str, str], Mapping[str, Any]], games: Mapping[str, Any], *, fdr: float = FDR,
            by_all: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """The rows from each pair's `pair_local` and the games' activity (`_collect`'s second part):
    co-seating against chance, Tippett's combination, BH q-values, the `all` rows."""
    per_game: list[dict[str, Any]] = []
    for key in sorted(local):
        gid, a, b = key
        loc = local[key]
        n_together, z, p_t = loc["matches_together"], loc["behaviour_z"], loc["behaviour_p"]
        g = games[gid]
        pool = len(g["active"])
        expected = (
            sum(cnt * k * (k - 1) / (pool * (pool - 1)) for k, cnt in g["seats"].items())
            * (g["active"][a] * g["active"][b])
            / max(1e-9, _mean_activity(g) ** 2)
        )
        z_co = (n_together - expected) / math.sqrt(expected) if expected > 0 else 0.0
        p_co = _poisson_sf(n_together, expected)
        # the money flow counts where the settlement lines are known: chip dumping (one way, so
        # two-sided) hides from the behaviour score (the dumper never folds to its receiver)
        p_flow = [loc["flows"]["flow_p"]] if "flow_p" in loc["flows"] else []
        per_game.append({
            "players": [a, b], "game": gid, "matches_together": n_together,
            "score": _z_of(_tippett([_norm_sf(z), p_co, *p_flow])), "p_value": _tippett([p_t, p_co, *p_flow]),
            "signals": {"co_seating_z": z_co, "expected_together": expected, "co_seating_p": p_co,
                        "behaviour_z": z, "behaviour_p": p_t,
                        **{f"{c}_z": v for c, v in loc["comp_z"].items()},
                        **loc["flows"]},
            "evidence": list(loc["evidence"]),
            "evidence_seqs": dict(loc["evidence_seqs"]),
        })  # fmt: skip
    rows = _with_q(per_game, fdr, by_game=True)
    if by_all and len({r["game"] for r in per_game}) > 1:
        rows += _with_q(_over_games(per_game), fdr, by_game=False)
    for r in rows:
        r["signals"] = {k: _r(v) for k, v in r["signals"].items()}
        r["score"], r["p_value"], r["q_value"] = _r(r["score"]), _r(r["p_value"]), _r(r["q_value"])
    rows.sort(key=lambda r: (-r["score"], r["game"], r["players"]))
    return rows


def _mean_activity(g: Mapping[str, Any]) -> float:
    act = g["active"]
    return sum(act.values()) / len(act)


def _flows(pd_: _PairData) -> dict[str, float]:
    """Joint result and the money between them: `joint_mean` (mean d_a + d_b together); `flow_ab`
    the settlement's net points from player_a to player_b over the matches whose items are known,
    `flow_z` its standardised sum under the seat shuffle (which also draws who of the two holds
    which seat: mean 0, variance the mean square of the match's net flows over its seat pairs) and
    `flow_p` its two-sided normal p-value (chip dumping one way; the third p-value of the row's
    Tippett combination, `combine`)."""
    joint = [float(o[0]) for o in pd_.obs]
    out = {"joint_mean": float(np.mean(joint)) if joint else 0.0}
    if pd_.flow:
        tot, var = float(sum(pd_.flow)), float(sum(pd_.flow_var))
        z = tot / math.sqrt(var) if var > 0 else 0.0
        out.update(flow_ab=tot, flow_z=z, flow_p=min(1.0, 2 * _norm_sf(abs(z))))
    return out


def _net_flows(n: int, items: Sequence[tuple[int, int, int]] | None) -> np.ndarray | None:
    """Per seat pair (i, j), i < j: points i received from j minus points j received from i."""
    if items is None:
        return None
    index = _pair_index(n)
    out = np.zeros(len(index))
    for seat, frm, points in items:
        if seat == frm or not (0 <= seat < n and 0 <= frm < n):
            continue
        out[index[(min(seat, frm), max(seat, frm))]] += points if seat < frm else -points
    return out


def _with_q(rows: list[dict[str, Any]], fdr: float, *, by_game: bool) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["game"] if by_game else "all"].append(r)
    for grp in groups.values():
        for r, q in zip(grp, bh([r["p_value"] for r in grp]), strict=True):
            r["q_value"] = q
            r["flagged"] = bool(q <= fdr)
    return rows


def _over_games(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per pair over all games: Stouffer of the per-game scores (weights √matches), Fisher of the
    per-game p-values."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[(r["players"][0], r["players"][1])].append(r)
    out = []
    for (a, b), rs in sorted(by.items()):
        w = [math.sqrt(r["matches_together"]) for r in rs]
        score = sum(wi * r["score"] for wi, r in zip(w, rs, strict=True)) / math.sqrt(sum(x * x for x in w))
        # Stouffer of the per-game scores; the p-value Fisher's of the per-game p-values
        ev = [m for r in rs for m in r["evidence"]][:EVIDENCE]
        seqs = {m: s for r in rs for m, s in r["evidence_seqs"].items() if m in ev}
        out.append({
            "players": [a, b], "game": "all", "matches_together": sum(r["matches_together"] for r in rs),
            "score": score, "p_value": _fisher([r["p_value"] for r in rs]),
            "signals": {"games": float(len(rs))}, "evidence": ev, "evidence_seqs": seqs,
        })  # fmt: skip
    return out


def _r(x: Any) -> Any:
    """Floats rounded to 6 significant digits (the same bytes from any engine)."""
    if isinstance(x, float):
        return float(f"{x:.6g}")
    return x


# ---------------------------------------------------------------------------- deal fairness
def deal_rows(facts: Iterable[MatchFacts]) -> list[dict[str, Any]]:
    """One row per (match, seat): the dealt hand's strength (engine/sim/rig.py), the fair mean and
    SD of its position (relative to the dealer) and its z."""
    from engine.sim.rig import reference, strengths

    out = []
    for f in facts:
        n = len(f.players)
        ref = reference(f.game, n)
        for s, v in enumerate(strengths(f.game, f.hands)):
            rel = (s - f.dealer) % n
            mean, sd = ref[rel]
            out.append({
                "match_id": f.match_id, "game": f.game, "seat": s, "player": f.players[s], "position": rel,
                "strength": _r(float(v)), "fair_mean": _r(mean), "fair_sd": _r(sd),
                "z": _r((v - mean) / sd if sd > 0 else 0.0),
            })  # fmt: skip
    return out


def deal_fairness(rows: Iterable[Mapping[str, Any]], *, fdr: float = FDR, min_matches: int = 1) -> list[dict[str, Any]]:
    """Per (player, game): `strength_z` = Σz / √n, its one-sided normal p-value P(Z ≥ z) (the
    question is whether a player gets *better* hands than a fair shuffle gives: a dealer that
    favours a player only ever raises its z), BH q-values per game, sorted by p-value (the `deals`
    of `paiju integrity --json`)."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        acc[(r["player"], r["game"])].append(float(r["z"]))
    out = []
    for (player, game), zs in sorted(acc.items()):
        if len(zs) < min_matches:
            continue
        z = sum(zs) / math.sqrt(len(zs))
        out.append({"player": player, "game": game, "matches": len(zs), "strength_z": z,
                    "p_value": _norm_sf(z)})  # fmt: skip
    for g in {r["game"] for r in out}:
        grp = [r for r in out if r["game"] == g]
        for r, q in zip(grp, bh([r["p_value"] for r in grp]), strict=True):
            r["q_value"] = q
            r["flagged"] = bool(q <= fdr)
    for r in out:
        r["strength_z"], r["p_value"], r["q_value"] = _r(r["strength_z"]), _r(r["p_value"]), _r(r["q_value"])
    out.sort(key=lambda r: (r["p_value"], r["game"], r["player"]))
    return out


def position_effects(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per (game, position relative to the dealer): deals, mean z, Z = Σz/√n and its p-value (seat
    and dealer effects)."""
    acc: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in rows:
        acc[(r["game"], int(r["position"]))].append(float(r["z"]))
    out = []
    for (g, pos), zs in sorted(acc.items()):
        z = sum(zs) / math.sqrt(len(zs))
        out.append({"game": g, "position": pos, "deals": len(zs), "mean_z": _r(float(np.mean(zs))),
                    "z": _r(z), "p_value": _r(min(1.0, 2 * _norm_sf(abs(z))))})  # fmt: skip
    return out


def positional_test(facts: Iterable[MatchFacts]) -> list[dict[str, Any]]:
    """Per game: is every card/tile equally likely at every place of the deal? Places = each hand
    by position relative to the dealer, the bottom, the wall in quarters. A chi-square test of
    independence of (card kind × place) counts against the expected counts of a fair shuffle
    (place size × copies of the kind / deck size)."""
    from scipy.stats import chi2

    tabs: dict[str, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    sizes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    decks: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    deals: dict[str, int] = defaultdict(int)
    for f in facts:
        n = len(f.players)
        places: list[tuple[str, Sequence[str]]] = [(f"hand{(s - f.dealer) % n}", h) for s, h in enumerate(f.hands)]
        if "bottom" in f.extra:
            places.append(("bottom", f.extra["bottom"]))
        if "wall" in f.extra:
            w = f.extra["wall"]
            q = max(1, math.ceil(len(w) / 4))
            places += [(f"wall{k}", w[k * q : (k + 1) * q]) for k in range(4)]
        deals[f.game] += 1
        t, sz, dk = tabs[f.game], sizes[f.game], decks[f.game]
        for place, cards in places:
            sz[place] += len(cards)
            for c in cards:
                t[(place, c)] += 1
                dk[c] += 1
    out = []
    for g in sorted(tabs):
        t, sz, dk = tabs[g], sizes[g], decks[g]
        total = sum(dk.values())
        stat = 0.0
        for place, s in sz.items():
            for c, m in dk.items():
                e = s * m / total
                if e > 0:
                    stat += (t.get((place, c), 0) - e) ** 2 / e
        dof = (len(sz) - 1) * (len(dk) - 1)
        out.append({"game": g, "deals": deals[g], "places": len(sz), "kinds": len(dk), "chi2": _r(stat),
                    "dof": dof, "p_value": _r(float(chi2.sf(stat, dof)) if dof else 1.0)})  # fmt: skip
    return out


# ---------------------------------------------------------------------------- the lake
TABLE_DIR = "integrity"
CURRENT = "CURRENT.json"
PAIR_SIGNALS, DEAL_STRENGTH = "pair_signals", "deal_strength"


FACTS_VERSION = 4
"""Bumped when `match_facts` or `pair_local` change: a lake's stored facts of another version are
rebuilt from its events (4: the far tail of `behaviour_p` by tilted draws, issue 22)."""
MATCH_FACTS, PAIR_CACHE = "match_facts", "pair_cache"
FACTS_BATCH = 2000
"""Matches whose events are read from the lake at a time while facts are made."""
PARALLEL_MIN = 64
"""Fewer matches (or pairs) than this are measured in the calling process: a pool's pickling
costs more than it saves on a small lake."""

_KEYS_SQL = """
    SELECT m.match_id, m.game, CAST(m.events AS VARCHAR) || ':' || CAST(hash(m.deltas, it.items) AS VARCHAR) AS key
    FROM matches m LEFT JOIN (
        SELECT match_id, list([seat, from_seat, points] ORDER BY item_no) AS items FROM items GROUP BY match_id
    ) it USING (match_id)
    WHERE m.status = 'finished' AND (CAST(? AS VARCHAR) IS NULL OR m.game = ?)
    ORDER BY m.match_id"""
"""Every finished match with a key that changes when anything its facts are made of changes (its
events: append-only, so their count; its settlement: the deltas and the items)."""

_FACTS_SQL = """
    SELECT m.match_id, m.deltas,
        (SELECT list(e.line ORDER BY e.seq) FROM events e WHERE e.match_id = m.match_id) AS lines,
        (SELECT list([i.seat, i.from_seat, i.points] ORDER BY i.item_no) FROM items i WHERE i.match_id = m.match_id)
    FROM matches m WHERE m.match_id IN (SELECT match_id FROM wanted) ORDER BY m.match_id"""


def lake_facts(con: Any, *, game: str | None = None) -> list[MatchFacts]:
    """The facts of every finished match of a lake (a DuckDB connection with the `events`,
    `matches` and `items` views, e.g. analytics.lake.open_lake), in match id order."""
    keys = con.execute(_KEYS_SQL, [game, game]).fetchall()
    return list(_facts_of(con, [k[0] for k in keys]).values())


def _facts_row(row: tuple[str, Any, Any, Any]) -> MatchFacts | None:
    """The facts of one `_FACTS_SQL` row (module level: a worker process runs it)."""
    mid, deltas, lines, items = row
    its = [(int(a), int(b), int(c)) for a, b, c in (items or []) if a is not None and b is not None and c is not None]
    return match_facts(mid, [json.loads(x) for x in lines or []], deltas, its)


def _mapper(pool: Executor | None, n: int) -> Callable[..., Iterable[Any]]:
    """`pool.map` when there is a pool and at least PARALLEL_MIN items, else the builtin `map`.
    Either gives the results in input order, and every item's result depends on the item alone
    (facts of one match; a pair's Monte Carlo seeded by the pair), so the tables are the same."""
    if pool is None or n < PARALLEL_MIN:
        return map
    return lambda fn, items: pool.map(fn, items, chunksize=max(1, min(64, n // 32)))


def _wanted_rows(con: Any, match_ids: Sequence[str], sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows of `sql`, which reads the match ids from the table `wanted` (registered for it)."""
    import pyarrow as pa

    con.register("wanted", pa.table({"match_id": pa.array(list(match_ids), pa.string())}))
    try:
        return con.execute(sql, list(params)).fetchall()  # type: ignore[no-any-return]
    finally:
        con.unregister("wanted")


def _facts_of(con: Any, match_ids: Sequence[str], pool: Executor | None = None) -> dict[str, MatchFacts]:
    """match id → facts of those matches (in match id order; a match without a deal left out);
    made by `pool`'s workers when given (ingest's own)."""

    if not match_ids:
        return {}
    out = {}
    # FACTS_BATCH matches at a time: DuckDB builds every listed match's line list before the first
    # row comes out, so one query over a whole lake held all its lines at once (the main process
    # peaked at 1,761 MB on 1,018,768 events; issue 22)
    for start in range(0, len(match_ids), FACTS_BATCH):
        rows = _wanted_rows(con, match_ids[start : start + FACTS_BATCH], _FACTS_SQL)
        for f in _mapper(pool, len(rows))(_facts_row, rows):
            if f is not None:
                out[f.match_id] = f
    return out


def facts_to_json(f: MatchFacts) -> str:
    """One match's facts as stored between ingests (floats as Python prints them: they read back
    exactly)."""
    return json.dumps({
        "game": f.game, "players": list(f.players), "dealer": f.dealer, "deltas": list(f.deltas),
        "hands": [list(h) for h in f.hands], "extra": f.extra, "comps": f.comps.tolist(),
        "seqs": [[i, j, v] for (i, j), v in sorted(f.seqs.items())],
        "flows": None if f.flows is None else f.flows.tolist(),
    }, separators=(",", ":"))  # fmt: skip


def facts_record(f: MatchFacts) -> tuple[str, str]:
    """(facts, deals) of one match as the state table `match_facts` stores them."""
    return facts_to_json(f), json.dumps(deal_rows([f]), separators=(",", ":"))


def facts_from_json(match_id: str, text: str) -> MatchFacts:
    d = json.loads(text)
    comps = np.array(d["comps"], dtype=float).reshape(-1, len(COMPONENTS[family(d["game"])]))
    return MatchFacts(
        match_id, d["game"], tuple(d["players"]), int(d["dealer"]), tuple(d["deltas"]), tuple(tuple(h) for h in d["hands"]),
        d["extra"], comps, {(i, j): v for i, j, v in d["seqs"]},
        None if d["flows"] is None else np.array(d["flows"], dtype=float),
    )  # fmt: skip


def _schemas() -> dict[str, Any]:
    import pyarrow as pa

    s, f, i64, b = pa.string(), pa.float64(), pa.int64(), pa.bool_()
    return {
        PAIR_SIGNALS: pa.schema([
            ("game", s), ("player_a", s), ("player_b", s), ("matches_together", i64), ("score", f),
            ("p_value", f), ("q_value", f), ("flagged", b), ("signals", s), ("evidence", pa.list_(s)),
            ("evidence_seqs", s),
        ]),
        DEAL_STRENGTH: pa.schema([
            ("match_id", s), ("game", s), ("seat", i64), ("player", s), ("position", i64), ("strength", f),
            ("fair_mean", f), ("fair_sd", f), ("z", f),
        ]),
        MATCH_FACTS: pa.schema([("match_id", s), ("key", s), ("game", s), ("players", pa.list_(s)), ("facts", s),
                                ("deals", s)]),
        PAIR_CACHE: pa.schema([("game", s), ("player_a", s), ("player_b", s), ("local", s)]),
    }  # fmt: skip


def build_tables(facts: Sequence[MatchFacts]) -> dict[str, Any]:
    """The two Arrow tables from the facts (default `MIN_MATCHES` and `FDR`), from scratch."""
    return _tables(pair_signals(facts), deal_rows(facts))


def _tables(pairs: Sequence[Mapping[str, Any]], deals: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    import pyarrow as pa

    sch = _schemas()
    prow = {
        "game": [r["game"] for r in pairs], "player_a": [r["players"][0] for r in pairs],
        "player_b": [r["players"][1] for r in pairs], "matches_together": [r["matches_together"] for r in pairs],
        "score": [r["score"] for r in pairs], "p_value": [r["p_value"] for r in pairs],
        "q_value": [r["q_value"] for r in pairs], "flagged": [r["flagged"] for r in pairs],
        "signals": [json.dumps(r["signals"], sort_keys=True) for r in pairs],
        "evidence": [r["evidence"] for r in pairs],
        "evidence_seqs": [json.dumps(r["evidence_seqs"], sort_keys=True) for r in pairs],
    }  # fmt: skip
    drow = {c: [r[c] for r in deals] for c in sch[DEAL_STRENGTH].names}
    return {
        PAIR_SIGNALS: pa.table(prow, schema=sch[PAIR_SIGNALS]),
        DEAL_STRENGTH: pa.table(drow, schema=sch[DEAL_STRENGTH]),
    }


def _previous(
    root: Path,
) -> tuple[dict[str, tuple[str, str, str, list[str], str, str]], dict[tuple[str, str, str], str]]:
    """The stored facts (match id → (key, game, players, facts, deals)) and pair results of the
    last generation, when it was written by this `FACTS_VERSION`; empty otherwise."""
    import pyarrow.feather as feather

    try:
        cur = json.loads((root / CURRENT).read_text(encoding="utf-8"))
        state = cur.get("state") or {}
        if cur.get("facts_version") != FACTS_VERSION or set(state) != {MATCH_FACTS, PAIR_CACHE}:
            return {}, {}
        mf = feather.read_table(root / state[MATCH_FACTS]).to_pydict()
        pc = feather.read_table(root / state[PAIR_CACHE]).to_pydict()
    except (FileNotFoundError, ValueError, OSError, KeyError):
        return {}, {}
    facts = {m: (m, k, g, list(p), f, d) for m, k, g, p, f, d in zip(mf["match_id"], mf["key"], mf["game"], mf["players"],
                                                                      mf["facts"], mf["deals"], strict=True)}  # fmt: skip
    cache = {
        (g, a, b): loc for g, a, b, loc in zip(pc["game"], pc["player_a"], pc["player_b"], pc["local"], strict=True)
    }
    return facts, cache


_STAGED_SQL = """SELECT s.match_id, s.facts, s.deals FROM read_parquet(?) s
    WHERE s.match_id IN (SELECT match_id FROM wanted) ORDER BY s.match_id"""


def _staged(con: Any, path: Path | None, match_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """match id → (facts, deals) that the ingest's replay step made for these matches
    (`ingest.tables.FACTS`, staged at `path`)."""

    if path is None or not match_ids or not path.exists():
        return {}
    return {m: (f, d) for m, f, d in _wanted_rows(con, match_ids, _STAGED_SQL, [str(path)])}


def update_tables(con: Any, root: Path, pool: Executor | None = None,
                  staged: Path | None = None) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:  # fmt: skip
    """The tables of the lake behind `con` (views `events`, `matches`, `items`), reusing what the
    last generation under `root` stored: only matches new to the lake (or whose key changed) are
    read and measured, only pairs that met in them get the seat-shuffle statistics again; the rest
    (co-seating against chance, BH, the `all` rows) is recomputed from the stored results, which
    are the ones a from-scratch build gives (the Monte Carlo is seeded by the pair). `staged`: the
    facts the ingest's replay step made of the matches it replayed (a Parquet file of
    `ingest.tables.FACTS`), taken instead of reading those matches' lines back and replaying
    them again; the others are read from the lake. Returns the public tables, the state tables
    and counts (matches measured, pairs recomputed)."""
    import pyarrow as pa

    old, cache = _previous(root)
    keys = con.execute(_KEYS_SQL, [None, None]).fetchall()
    fresh = [mid for mid, _g, key in keys if mid not in old or old[mid][1] != key]
    if set(old) - {k[0] for k in keys}:
        cache = {}  # a match left the lake (not an append): recompute every pair
    made = _staged(con, staged, fresh)
    new = _facts_of(con, [m for m in fresh if m not in made], pool)
    records: list[tuple[str, str, str, list[str], str, str]] = []
    touched: set[tuple[str, str, str]] = set()
    for mid, g, key in keys:
        f = new.get(mid)
        if f is None and mid in made:
            f = new[mid] = facts_from_json(mid, made[mid][0])
        if f is not None:
            records.append((mid, key, g, list(f.players), *(made.get(mid) or facts_record(f))))
            touched.update(_pair_keys(g, tuple(f.players)))
        elif mid in old and old[mid][1] == key:
            records.append(old[mid])
    rec_keys = [_pair_keys(r[2], tuple(r[3])) for r in records]  # each record's pairs, once
    counts: Counter[tuple[str, str, str]] = Counter(k for ks in rec_keys for k in ks)
    local: dict[tuple[str, str, str], dict[str, Any]] = {}
    redo: set[tuple[str, str, str]] = set()
    for key, n in counts.items():
        if n < MIN_MATCHES:
            continue
        loc = json.loads(cache[key]) if key in cache and key not in touched else None
        if loc is None or loc["matches_together"] != n:
            redo.add(key)
        else:
            local[key] = loc
    if redo:
        need = [r for r, ks in zip(records, rec_keys, strict=True) if not redo.isdisjoint(ks)]
        pairs, _ = _collect([new.get(r[0]) or facts_from_json(r[0], r[4]) for r in need], only=redo)
        local.update(zip(pairs, _mapper(pool, len(pairs))(pair_local, pairs.values()), strict=True))
    rows = combine(local, activity((r[2], r[3]) for r in records))
    deals = [d for r in records for d in json.loads(r[5])]
    sch = _schemas()
    state = {
        MATCH_FACTS: pa.table({c: [r[k] for r in records] for k, c in enumerate(sch[MATCH_FACTS].names)}, schema=sch[MATCH_FACTS]),
        PAIR_CACHE: pa.table({"game": [k[0] for k in sorted(local)], "player_a": [k[1] for k in sorted(local)],
                              "player_b": [k[2] for k in sorted(local)],
                              "local": [json.dumps(local[k], separators=(",", ":")) for k in sorted(local)]},
                             schema=sch[PAIR_CACHE]),
    }  # fmt: skip
    return _tables(rows, deals), state, {"matches": len(new), "pairs": len(redo)}


def publish_tables(lake: str | Path, manifest: Any, pool: Executor | None = None,
                   staged: Path | None = None) -> dict[str, int]:  # fmt: skip
    """Build `pair_signals` and `deal_strength` from the lake's published events, matches and items
    (`update_tables`: the cost of what the last ingest added) and publish them as Arrow IPC files
    under `<lake>/integrity/<generation>/` with the state the next ingest reuses (`match_facts`,
    `pair_cache`), `CURRENT.json` naming them (written atomically; older generations removed).
    Called by the ingest after it has published (under the lake's lock), by the local and the Spark
    engine alike; `pool` (the ingest's workers) makes the facts and the pairs' Monte Carlo in
    parallel; `staged`: the facts its replay step made (`update_tables`). Returns
    `update_tables`' counts."""
    import duckdb
    import pyarrow.feather as feather

    from ingest.store import view_sql

    root = Path(lake)
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        for t in ("events", "matches", "items"):
            con.execute(f"CREATE VIEW {t} AS {view_sql(root, manifest, t)}")
        try:
            tables, state, counts = update_tables(con, root / TABLE_DIR, pool, staged)
        except BrokenProcessPool:  # a worker died (killed, out of memory): the events are published,
            tables, state, counts = update_tables(con, root / TABLE_DIR, None, staged)  # so this process does it all
    finally:
        con.close()
    gen = str(manifest.generation)
    folder = root / TABLE_DIR / gen
    folder.mkdir(parents=True, exist_ok=True)
    for name, t in {**tables, **state}.items():  # Arrow IPC: every *.parquet of a lake is listed in its manifest
        feather.write_feather(t, folder / f"{name}.arrow", compression="zstd")
    tmp = root / TABLE_DIR / f".{CURRENT}.tmp"
    tmp.write_text(json.dumps({"generation": manifest.generation, "facts_version": FACTS_VERSION,
                               "tables": {n: f"{gen}/{n}.arrow" for n in tables},
                               "state": {n: f"{gen}/{n}.arrow" for n in state}}), encoding="utf-8")  # fmt: skip
    os.replace(tmp, root / TABLE_DIR / CURRENT)
    for old in (root / TABLE_DIR).iterdir():
        if old.is_dir() and old.name != gen:
            for p in old.iterdir():
                p.unlink()
            old.rmdir()
    return counts


def table_paths(lake: str | Path) -> dict[str, Path] | None:
    """The published integrity tables' files, or None before any ingest built them."""
    root = Path(lake) / TABLE_DIR
    try:
        cur = json.loads((root / CURRENT).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    return {n: root / rel for n, rel in cur["tables"].items()}
