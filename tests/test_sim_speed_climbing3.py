"""The third round of climbing-game and simulator fast paths (issue 22) against the code they replace
(copied here as references) or the model's own validation.

- `simulate._event`'s trusted builders: on thousands of generated payloads (valid and broken) the
  event is the model validator's (class, field dict with value types, fields set, extra, private) or
  the same refusal; every payload the bots emit in simulated matches of the four card games (several
  rule sets) is built without the validator and equals the model's event.
- Pao De Kuai `moves_left` kept by hand shape equals the plain cached search on every hand met.
- Dou Dizhu's `_follow` (no Reading per candidate, the key compared by parts) chooses what the
  previous `_follow` chose, on every following state of simulated `ddz` and `ddz_laizi` matches.
- Pao De Kuai's plays' counts (itemgetter), its beating plays (a sequence, no generator), the hand
  left after a play (filterfalse) and `Move`s built by `tuple.__new__` equal the previous formulas.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from engine.climbing import bot, paodekuai_bot
from engine.climbing import moves as M
from engine.climbing import pdk_moves as P
from engine.climbing.laizi import Reading, laizi_moves, split_laizi
from engine.climbing.moves import Counts, Move, generate
from engine.registry import get_game
from engine.sim import simulate as sim
from engine.sim.simulate import _event, simulate_match
from tests.test_sim_speed_shared import MATCH_ID, VALID, _by_model, _mutations, _outcome

# ---------------------------------------------------------------- the simulator's trusted events

BOT_SHAPES: list[dict[str, Any]] = [
    {"type": "pass", "seat": 0},
    {"type": "look", "seat": 5},
    {"type": "open", "seat": 1},
    {"type": "fold", "seat": 2},
    {"type": "allin", "seat": 3},
    {"type": "timeout", "seat": 4},
    {"type": "ting", "seat": 2},
    {"type": "forfeit", "seat": 1},
    {"type": "bid", "seat": 1, "value": 0},
    {"type": "bid", "seat": 2, "value": -7},
    {"type": "bet", "seat": 0, "amount": 2**70},
    {"type": "rob", "seat": 2, "value": False},
    {"type": "compare", "seat": 1, "target": 5},
    {"type": "play", "seat": 0, "cards": ["RJ"]},
    {"type": "play", "seat": 2, "cards": ["3s", "3h", "4s", "4h", "5d", "5c"]},
    {"type": "play", "seat": 1, "cards": ["5h", "5d", "5c"], "as": ["5", "5"]},
    {"type": "play", "seat": 1, "cards": ["5h"], "as": []},
    {"type": "play", "seat": 1, "cards": ["5h"], "as": None},
    {"type": "laizi", "rank": "T"},
    {"type": "laizi", "rank": "BJ"},
]


def _no_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any call of a model's validator through `_event` fails the test."""

    class Refuse(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            raise AssertionError(f"{key!r}: the validator was called for a trusted shape")

    monkeypatch.setattr(sim, "_VALIDATE", Refuse())


def shapes_are_built_without_the_validator(shapes: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each payload is built by `_event` without the validator, equal to the model's event."""
    want = [_outcome(lambda p=p: _by_model(MATCH_ID, 9, 3, p)) for p in shapes]
    _no_validator(monkeypatch)
    for p, w in zip(shapes, want, strict=True):
        got = _outcome(lambda p=p: _event(MATCH_ID, 9, 3, p))
        assert got[0] == "event" and got == w, p


def test_bot_shapes_are_built_without_the_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    shapes_are_built_without_the_validator(BOT_SHAPES, monkeypatch)


def _odd_payloads(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Bot shapes with one value, key or the envelope broken: what the builders must hand on."""
    odd: list[Any] = [True, 1.0, -1, 6, "1", None, [], ["3s", "3s"], ["3s", 3], [["3s"]], ("3s",), ["xx"], ["3s"] * 55]
    out = []
    for _ in range(n):
        p = dict(rng.choice(BOT_SHAPES))
        keys = [k for k in p if k != "type"]
        how = rng.random()
        if how < 0.7:
            p[rng.choice(keys)] = rng.choice(odd)
        elif how < 0.8:
            del p[rng.choice(keys)]
        else:
            p[rng.choice(["as", "seat", "value", "cards", "rank", "extra", "hash"])] = rng.choice(odd)
        out.append(p)
    return out


@pytest.mark.parametrize("seed", [3, 22, 2026])
def test_generated_payloads_get_the_models_answer(seed: int) -> None:
    rng = random.Random(seed)
    kinds = payloads_get_the_models_answer(_mutations(rng, 3000) + _odd_payloads(rng, 3000) + VALID + BOT_SHAPES)
    assert kinds["event"] > 300 and kinds["error"] > 15000


def payloads_get_the_models_answer(
    payloads: list[dict[str, Any]], envelopes: tuple[tuple[Any, Any], ...] = ((MATCH_ID, 11), ("bad id", 11), (MATCH_ID, -1))
) -> dict[str, int]:
    """`_event` of each payload in each (match id, seq) envelope is the model's event or refusal;
    returns how many of each there were."""
    kinds = {"event": 0, "error": 0}
    for p in payloads:
        for match_id, seq in envelopes:
            got = _outcome(lambda p=p, m=match_id, s=seq: _event(m, s, 5, p))
            assert got == _outcome(lambda p=p, m=match_id, s=seq: _by_model(m, s, 5, p)), (p, match_id, seq)
            kinds[got[0]] += 1
    return kinds


CARD_RULES = [
    ("ddz", None),
    ("ddz", {"rob": True, "kicker_rocket": True}),
    ("ddz_laizi", None),
    ("ddz_laizi", {"four_two_solo_pair": False}),
    ("paodekuai", None),
    ("paodekuai", {"must_beat": False, "short_trio_last": True}),
    ("zhajinhua", None),
    ("zhajinhua", {"mode": "gold", "look_min_round": 2}),
]


def bot_events_are_trusted_and_the_models(
    game_id: str, rules: dict[str, Any] | None, matches: int, monkeypatch: pytest.MonkeyPatch, *, only_trusted: bool
) -> set[str]:
    """Every event after the deal of `matches` simulated matches (those of a trusted type only, when
    `only_trusted`) is built by `_event` without the validator and equals the model's; returns the
    event types checked."""
    played = [simulate_match(game_id, rules, 5, i, chain=False) for i in range(matches)]
    payloads = [
        (ev.seq, i, {k: v for k, v in ev.canonical_dict().items() if k not in ("match_id", "seq", "ts")})
        for i, events in enumerate(played)
        for ev in events[2:-1]
        if not only_trusted or ev.type in sim._TRUSTED  # type: ignore[attr-defined]
    ]
    want = [_outcome(lambda s=s, i=i, p=p: _by_model(MATCH_ID, s, i, p)) for s, i, p in payloads]
    _no_validator(monkeypatch)
    for (s, i, p), w in zip(payloads, want, strict=True):
        assert _outcome(lambda s=s, i=i, p=p: _event(MATCH_ID, s, i, p)) == w
    return {p["type"] for _, _, p in payloads}


@pytest.mark.parametrize(("game_id", "rules"), CARD_RULES)
def test_every_bot_event_is_trusted_and_the_models(
    game_id: str, rules: dict[str, Any] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot_events_are_trusted_and_the_models(game_id, rules, 8, monkeypatch, only_trusted=False)


# ---------------------------------------------------------------- Pao De Kuai moves_left by shape


@cache
def _ref_moves_left(x: int) -> int:
    """The search as it was: cached on the packed hand itself."""
    b = x.to_bytes(M.N_RANKS, "little")
    best = paodekuai_bot._rest_moves(b)
    if best <= 1:
        return best
    chains = paodekuai_bot._chains(b)
    if not chains:
        return best
    if x in chains:
        return 1
    for s in chains:
        if best <= 2:
            break
        n = 1 + _ref_moves_left(x - s)
        if n < best:
            best = n
    return best


_PDK_DECK = [r for r in range(11) for _ in range(4)] + [11] * 3 + [12]


def test_moves_left_by_shape_on_random_hands() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        hand = rng.sample(_PDK_DECK, rng.randint(0, 16))
        c = [0] * M.N_RANKS
        for r in hand:
            c[r] += 1
        assert paodekuai_bot.moves_left(tuple(c)) == _ref_moves_left(paodekuai_bot._pack(tuple(c)))


def test_moves_left_by_shape_on_every_hand_met(monkeypatch: pytest.MonkeyPatch) -> None:
    met: list[int] = []
    inner = paodekuai_bot._moves_left

    def record(x: int) -> int:
        met.append(x)
        return inner(x)

    monkeypatch.setattr(paodekuai_bot, "_moves_left", record)
    for i in range(40):
        simulate_match("paodekuai", {"bomb_pay": "if_unbeaten"} if i % 2 else None, 9, i, chain=False)
    assert len(met) > 2000
    for x in met:
        assert inner(x) == _ref_moves_left(x)


# ---------------------------------------------------------------- Dou Dizhu _follow


def _ref_follow(game: Any, st: Any, seat: int, counts: Counts, m: int, size: int, mr: Any) -> Reading | None:
    top_seat = st.top_seat
    assert top_seat is not None and st.top is not None
    L = st.landlord
    partner_on_top = seat != L and top_seat != L
    if partner_on_top and size not in (sum(st.top.counts), 4, 2):
        return None  # only a play of the whole hand (same size as the top, a bomb or the rocket) would be made
    if game.laizi_game:  # `DouDizhu.moves_for` on the counts already at hand
        cands = laizi_moves(counts, m, -1 if st.laizi is None else st.laizi, mr, st.top)
    else:
        cands = [Reading(mv, ()) for mv in generate(counts, mr, st.top)]
    if not cands:
        return None
    for rd in cands:
        if sum(rd.move.counts) == size:
            return rd  # goes out
    if partner_on_top:
        return None
    hb = bytes(counts)
    before = bot._n_groups_bytes(hb)
    hx = int.from_bytes(hb, "little")
    opp_cards = st.hands[top_seat].bit_count()
    best: tuple[Any, ...] | None = None
    for rd in cands:
        mv = rd.move
        used_laizi = len(rd.as_)
        if best is not None:
            pre, bkey = (mv.level > 0, mv.level, used_laizi), best[0]
            if pre > bkey[:3]:
                continue  # its key is larger whatever the groups left: not counted
            # the fewest groups are subadditive (a split of the rest plus one of the move's own
            # cards is a split of the hand), so `after` is at least this: beyond the best, not counted
            if pre == bkey[:3]:
                low = before - bot._plain_groups(mv.counts, rd.as_) + (1 if m - used_laizi > 0 else 0)
                if low > bkey[3] or (low == bkey[3] and mv.key > bkey[4]):
                    continue
        # the cards left, packed a byte per rank: a rank gone below 0 sets its byte's top bit
        mx = int.from_bytes(bytes(mv.counts), "little")
        for r in rd.as_:
            mx -= 1 << 8 * r
        rest = hx - mx
        if rest < 0 or rest & bot._HIGH8:
            continue
        after = bot._n_groups_bytes(rest.to_bytes(15, "little")) + (1 if m - used_laizi > 0 else 0)
        bomb = mv.level > 0
        if bomb and not (after <= 1 or opp_cards <= 4):
            continue
        if not bomb and after > before and opp_cards > 5 and used_laizi == 0:
            continue
        if not bomb and used_laizi and opp_cards > 8 and after >= before:
            continue
        key = (bomb, mv.level, used_laizi, after, mv.key)
        if best is None or key < best[0]:
            best = (key, rd)
    return None if best is None else best[1]


@pytest.mark.parametrize(
    ("game_id", "rules"),
    [("ddz", None), ("ddz", {"kicker_rocket": True, "rob": True}), ("ddz_laizi", None),
     ("ddz_laizi", {"four_two_solo_pair": False})],
)  # fmt: skip
def test_follow_chooses_as_before(game_id: str, rules: dict[str, Any] | None) -> None:
    game = get_game(game_id)
    seen = 0
    for i in range(60):
        events = simulate_match(game_id, rules, 8, i, chain=False)
        st = game.start(events[0], events[1], game.parse_rules(rules or {}))
        for ev in events[2:-1]:
            if st.phase == "play" and st.top is not None:
                seat = st.turn
                counts, m = bot._mask_counts(st.hands[seat], -1 if st.laizi is None else st.laizi)
                size = sum(counts) + m
                mr = st.mr or game.move_rules(st.rules)
                got = bot._follow(game, st, seat, counts, m, size, mr)
                assert got == _ref_follow(game, st, seat, counts, m, size, mr)
                assert got is None or type(got) is Reading
                seen += 1
            st = game.apply(st, ev)
    assert seen > 800


# ---------------------------------------------------------------- Pao De Kuai and the move engine


def test_moves_are_the_named_tuples() -> None:
    rng = random.Random(5)
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    mrs = [M.ddz_move_rules(), M.ddz_move_rules(True, False), P.pdk_move_rules()]
    for _ in range(400):
        c = [0] * M.N_RANKS
        for r in rng.sample(deck, rng.randint(1, 20)):
            c[r] += 1
        for mr in mrs:
            for top in (None, *generate(tuple(c), mr)[:3]):
                for mv in generate(tuple(c), mr, top):
                    assert type(mv) is Move and mv == Move(*mv) and mv.counts is mv[4]
            for mv in M.classify_all(tuple(c), mr):
                assert type(mv) is Move and mv == Move(*mv)
    assert M.rocket_move() == Move("rocket", 1, M.RJ_R, M.LEVEL_ROCKET, M.ROCKET_COUNTS)


def _ref_all_counts(hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(dict.fromkeys(m.counts for m in M.generate(hand, P.pdk_move_rules())))


def _ref_beating(hand: tuple[int, ...], top: P.Reading, short_ok: bool) -> tuple[tuple[int, ...], ...]:
    found = dict.fromkeys(m.counts for m in M.generate(hand, P.pdk_move_rules(), P._top_move(top)))
    if short_ok and hand not in found and P._short_reading(hand, top) is not None:
        found[hand] = None
    return tuple(found)


@pytest.mark.parametrize("rules", [None, {"must_beat": False}, {"short_trio_last": True, "baodan": False}])
def test_pdk_plays_and_passes_as_before(rules: dict[str, Any] | None) -> None:
    game = get_game("paodekuai")
    seen = 0
    for i in range(40):
        events = simulate_match("paodekuai", rules, 6, i, chain=False)
        st = game.start(events[0], events[1], game.parse_rules(rules or {}))
        for ev in events[2:-1]:
            seat = st.turn
            hand = st.hands[seat]
            counts = P.hand_counts(hand)
            assert P.all_counts(counts) == _ref_all_counts(counts)
            if st.top is not None:
                short = st.rules.short_trio_last
                assert P.beating_counts(counts, st.top.move, short) == _ref_beating(counts, st.top.move, short)
                plays = list(game._beating_plays(st, seat))
                want = list(P.beating_counts(counts, st.top.move, short))
                if st.rules.baodan and len(st.hands[(seat + 1) % 3]) == 1:
                    high = P.highest_rank(counts)
                    want = [c for c in want if sum(c) != 1 or c.index(1) == high]
                assert plays == want
                assert game.pass_legal(st) == (not st.rules.must_beat or not want)
                seen += 1
            nxt = game.apply(st, ev)
            if ev.type == "play":
                cards = tuple(sorted(_card(c) for c in ev.cards))  # type: ignore[attr-defined]
                assert nxt.hands[seat] == tuple(c for c in hand if c not in cards)
            assert game.is_finished(nxt) == nxt.finished
            st = nxt
    assert seen > 300


def _card(name: str) -> int:
    from engine.cards import CARD_ID

    return CARD_ID[name]


# ---------------------------------------------------------------- Dou Dizhu bidding, split, laizi


def _ref_strength(counts: Counts, m_laizi: int = 0) -> float:
    s = 4.0 * counts[M.RJ_R] + 3.0 * counts[M.BJ_R] + 2.0 * counts[12] + 0.5 * counts[11] + 2.5 * m_laizi
    s += sum(4.0 for r in range(13) if counts[r] == 4)
    if counts[M.RJ_R] and counts[M.BJ_R]:
        s += 2.0
    s -= 0.3 * max(0, bot.n_groups(counts) - 6)
    return s


def _random_hand(rng: random.Random, size: int) -> Counts:
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    c = [0] * M.N_RANKS
    for r in rng.sample(deck, size):
        c[r] += 1
    return tuple(c)


def test_bidding_strength_and_its_shortcut() -> None:
    rng = random.Random(11)
    for _ in range(4000):
        c = _random_hand(rng, rng.choice([4, 13, 17, 17, 20]))
        m = rng.randint(0, 4) if rng.random() < 0.3 else 0
        assert bot.strength(c, m) == _ref_strength(c, m)
        for least in (7.0, 10.0):
            seed = rng.getrandbits(32)
            r1, r2 = random.Random(seed), random.Random(seed)
            want = _ref_strength(c, m) + r1.uniform(-1.0, 1.0)
            got = bot._noisy_strength(c, m, r2, least)
            assert r1.getstate() == r2.getstate()
            assert (got is None and want < least) or got == want


def test_kickers_read_from_the_rules_memo_are_classify() -> None:
    rng = random.Random(13)
    for mr in (M.ddz_move_rules(), M.ddz_move_rules(True, False), P.pdk_move_rules()):
        for _ in range(1500):
            c = _random_hand(rng, rng.randint(1, 20))
            assert M.classified_move(c, mr) == M.classify(c, mr) == mr.classified[c]
        mr.classified.clear()
    for _ in range(1500):
        c = _random_hand(rng, rng.randint(1, 20))
        got = bot.split(c)
        assert got == bot.attach_kickers(bot._best_split(c)[1], M.ddz_move_rules())
        assert all(type(mv) is Move for mv in got)


def test_laizi_readings_are_named_tuples_and_split_laizi_counts() -> None:
    rng = random.Random(14)
    mr = M.ddz_move_rules()
    for _ in range(600):
        lr = rng.randint(0, 12)
        ids = rng.sample(range(54), rng.randint(1, 20))
        plain, m = split_laizi(ids, lr)
        want = [0] * M.N_RANKS
        for x in ids:
            if x >> 2 != lr or x >= 52:
                want[x >> 2 if x < 52 else x - 39] += 1
        assert plain == tuple(want) and m == sum(1 for x in ids if x < 52 and x >> 2 == lr)
        for rd in laizi_moves(plain, m, lr, mr):
            assert type(rd) is Reading and rd == Reading(*rd) and rd.move is rd[0]


def test_pdk_states_and_tops_are_the_dataclasses() -> None:
    import dataclasses

    from engine.climbing.paodekuai import State, Top, _evolve

    game = get_game("paodekuai")
    seen = 0
    for i in range(30):
        events = simulate_match("paodekuai", {"bomb_pay": "if_unbeaten"} if i % 2 else None, 4, i, chain=False)
        st = game.start(events[0], events[1], game.parse_rules({}))
        for ev in events[2:-1]:
            st = game.apply(st, ev)
            fields = {f.name: getattr(st, f.name) for f in dataclasses.fields(State)}
            want = State(**fields)
            assert type(st) is State and st == want and repr(st) == repr(want)
            assert _evolve(want, st.hands, st.turn, st.top, st.passes, st.plays, st.led, st.items, st.bombs,
                           st.last, st.winner) == want  # fmt: skip
            with pytest.raises(dataclasses.FrozenInstanceError):
                st.turn = 0  # type: ignore[misc]
            if st.top is not None:
                t = st.top
                assert type(t) is Top and t == Top(t.seat, t.move, t.cards)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    t.seat = 1  # type: ignore[misc]
            assert dataclasses.replace(st, turn=st.turn) == st
            seen += 1
    assert seen > 500


def _ref_chain_masks(pattern: bytes, unit: int, least: int) -> tuple[int, ...]:
    """The chains of a pattern as they were built: every run's spans at once."""
    out = []
    pos = 0
    for run in pattern.split(b"\0"):
        a, b = pos, pos + len(run) - 1
        if len(run) >= least:
            spans = {(a, hi) for hi in range(a + least - 1, b + 1)} | {(lo, b) for lo in range(a, b - least + 2)}
            for lo, hi in sorted(spans, key=lambda sp: (sp[0] - sp[1], sp)):
                out.append(sum(unit << 8 * r for r in range(lo, hi + 1)))
        pos += len(run) + 1
    return tuple(out)


def test_chain_masks_by_run_on_every_pattern() -> None:
    for bits in range(1 << 12):
        pattern = bytes(bits >> r & 1 for r in range(12))
        for unit, least in ((1, 5), (2, 2), (3, 2)):
            assert paodekuai_bot._chain_masks(pattern, unit, least) == _ref_chain_masks(pattern, unit, least)


def test_pdk_lead_reading_is_classify() -> None:
    rng = random.Random(15)
    seen = 0
    for _ in range(20000):
        c = [0] * M.N_RANKS
        lo = rng.randint(0, 8)
        for r in range(lo, lo + rng.randint(1, 4)):
            c[r] = rng.choice([3, 3, 4])
        for _ in range(rng.randint(0, 5)):
            c[rng.randint(0, 12)] += 1
        play = tuple(min(v, 4) for v in c)
        if not P.readings(play):
            continue
        m = M.classify(play, P.pdk_move_rules())
        assert m is not None and P.lead_reading(play) == (m.type, m.length, m.key)
        seen += len(P.readings(play)) > 1
    assert seen > 100


def _ref_run_split(run: bytes, mins: tuple[int, int, int]) -> tuple[int, Any]:
    """Fewest groups of one run (consecutive non-zero chainable ranks), positions relative to it.

    The options for the run's lowest rank are tried in a fixed order (solo, pair, trio, bomb, then
    straights, pair straights, planes by growing length) and the first with the fewest groups is
    kept. Cached on the run's counts (as bytes) alone: a run's split does not depend on where it sits.
    """
    v = run[0]
    best_n = 1 << 30
    best: Any = ()
    n_run = len(run)
    tail = run[1:]
    # each option is counted first (`_runs_n`); its groups are built only when it is strictly better
    for k, name in bot._WHOLE:
        if v < k:
            break
        if n_run > 1 or v > k:
            rest = bytes((v - k,)) + tail
            n = bot._runs_n(rest, mins)
            if n + 1 < best_n:
                best_n, best = n + 1, ((name, 0, 0), *bot._runs_split(rest, mins)[1])
        elif best_n > 1:
            best_n, best = 1, ((name, 0, 0),)
    for unit, mi, name in bot._CHAINS:
        if v < unit:
            break
        min_len = mins[mi]
        lst = bytearray(run)
        hi = 0
        while hi < n_run and run[hi] >= unit:
            lst[hi] -= unit
            if hi + 1 >= min_len:
                rest = bytes(lst)
                n = bot._runs_n(rest, mins)
                if n + 1 < best_n:
                    best_n, best = n + 1, ((name, 0, hi), *bot._runs_split(rest, mins)[1])
            hi += 1
    return best_n, best


def test_run_split_prunes_nothing_it_needs() -> None:
    rng = random.Random(16)
    for _ in range(6000):
        run = bytes(rng.randint(1, 4) for _ in range(rng.randint(1, 12)))
        mins = rng.choice([(5, 3, 2), (5, 2, 2)])
        assert bot._run_split(run, mins) == _ref_run_split(run, mins)
