"""Corrupted Sichuan logs: every error code that can arise, at the right seq, with the rule id.

Each test edits a golden log (tests/data/golden/sichuan_*.jsonl) the way a faulty server would and
checks `status: invalid`, the `code`, the `seq` and the rule id in the message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.replay import replay
from events.codec import parse_event, read_log

GOLDEN = Path(__file__).parent / "data" / "golden"


def dicts(name: str) -> list[dict[str, Any]]:
    return [ln.event.to_dict() for ln in read_log(GOLDEN / f"sichuan_{name}.jsonl")]  # type: ignore[union-attr]


def run(ds: list[dict[str, Any]]) -> Any:
    mid = ds[0]["match_id"]
    fixed = [{**d, "match_id": mid, "seq": i} for i, d in enumerate(ds)]
    return replay([parse_event(d) for d in fixed])


def idx(ds: list[dict[str, Any]], start: int = 0, **kw: Any) -> int:
    for i in range(start, len(ds)):
        if all(ds[i].get(k) == v for k, v in kw.items()):
            return i
    raise LookupError(kw)


def expect(ds: list[dict[str, Any]], code: str, seq: int, rule: str | None = None) -> None:
    r = run(ds)
    assert r.status == "invalid", r.to_dict()
    assert (r.error["code"], r.error["seq"]) == (code, seq), r.error
    if rule:
        assert rule in r.error["message"], r.error["message"]


def with_rules(ds: list[dict[str, Any]], **opts: Any) -> list[dict[str, Any]]:
    out = [dict(d) for d in ds]
    out[0]["rules"] = {**out[0]["rules"], **opts}
    return out


E1 = "e1_an_gang_kong_flower"
E2 = "e2_bu_gang_gang_shang_pao_yi_pao_duo_xiang"
E3 = "e3_rob_bu_gang"


def test_wrong_draw() -> None:
    ds = dicts(E1)
    i = idx(ds, type="draw")
    ds[i]["tile"] = "9p" if ds[i]["tile"] != "9p" else "8p"
    expect(ds[: i + 1], "wrong_draw", i, "SC-C4")


def test_replacement_draw_from_the_wrong_end() -> None:
    ds = dicts("e1_replacement_from_tail")
    g = idx(ds, type="gang")
    assert ds[g + 1]["type"] == "draw"
    ds[g + 1]["tile"] = "1m" if ds[g + 1]["tile"] != "1m" else "2m"
    expect(ds[: g + 2], "wrong_draw", g + 1, "tail")


def test_draw_by_the_wrong_seat() -> None:
    ds = dicts(E1)
    i = idx(ds, type="draw")
    ds[i]["seat"] = (ds[i]["seat"] + 1) % 4
    expect(ds[: i + 1], "not_your_turn", i, "SC-R16")


def test_discard_not_in_hand() -> None:
    ds = dicts(E1)
    i = idx(ds, type="discard")
    ds[i]["tile"] = "5s"  # the dealer (void s) holds no s tile
    expect(ds[: i + 1], "not_in_hand", i, "SC-R6")


def test_que_discard_first() -> None:
    ds = with_rules(dicts("e4_exhaustive_hua_zhu_da_jiao_tui_shui"), que_discard_first=True)
    # seat 3 (void p) keeps its 3p: its first discard of another suit breaks SC-R6
    i = next(i for i, d in enumerate(ds) if d["type"] == "discard" and d["seat"] == 3 and not d["tile"].endswith("p"))
    expect(ds, "illegal_move", i, "que_discard_first")


def test_peng_of_the_void_suit() -> None:
    ds = dicts(E2)
    dq = idx(ds, type="dingque", seat=0)
    ds[dq]["suit"] = "s"  # seat 0 now voids s, then pengs 9s
    p = idx(ds, type="peng")
    expect(ds, "illegal_claim", p, "void suit")


def test_hu_that_is_not_a_win() -> None:
    ds = dicts(E3)
    h = idx(ds, type="hu")
    ds[h]["seat"] = 1
    expect(ds, "not_a_win", h, "SC-H1")


def test_claim_after_the_window_closed() -> None:
    ds = dicts(E1)
    d = idx(ds, type="discard")
    assert ds[d + 1]["type"] == "draw"
    late = {"type": "peng", "seat": 2, "tile": ds[d]["tile"]}
    expect([*ds[: d + 2], late], "illegal_claim", d + 2, "SC-R7")


def test_events_of_the_wrong_phase() -> None:
    ds = dicts(E1)
    i = idx(ds, type="draw")
    expect([*ds[: i + 1], {"type": "dingque", "seat": 0, "suit": "m"}], "wrong_phase", i + 1, "SC-R3")
    expect([*ds[:2], {"type": "discard", "seat": 0, "tile": "9m"}], "wrong_phase", 2, "SC-R1")
    expect([*ds[: i + 1], {"type": "ting", "seat": 1}], "wrong_phase", i + 1, "SC-R0")


def test_event_after_the_end() -> None:
    ds = dicts(E1)
    end = len(ds) - 1  # the settled event
    extra = {"type": "draw", "seat": 0, "tile": "1m"}
    expect([*ds[:end], extra, ds[end]], "after_end", end)


def test_bad_deal() -> None:
    ds = dicts(E1)
    ds[1]["wall"] = ds[1]["wall"][:-1]
    expect(ds[:2], "bad_deal", 1, "SC-C3")
    ds = dicts(E1)
    ds[1]["hands"][1].append(ds[1]["wall"].pop())
    expect(ds[:2], "bad_deal", 1, "SC-C3")
    ds = dicts(E1)
    ds[1]["wall"][0] = ds[1]["wall"][1] = ds[1]["wall"][2] = ds[1]["wall"][3] = ds[1]["wall"][4] = "5p"
    expect(ds[:2], "bad_deal", 1, "SC-C1")


def test_bad_rules() -> None:
    expect(with_rules(dicts(E1), exchange_directions=[]), "bad_rules", 0)
    expect(with_rules(dicts(E1), preset="chongqing"), "bad_rules", 0)
    expect(with_rules(dicts(E1), fan_cap=-1), "bad_rules", 0)


def test_exchange_rules() -> None:
    ds = dicts(E1)
    i = idx(ds, type="exchange_direction")
    expect(with_rules(ds, exchange_directions=["clockwise"])[: i + 1], "illegal_move", i, "SC-R1")
    ds = dicts(E1)
    e = idx(ds, type="exchange")
    expect([*ds[: e + 1], dict(ds[e])], "not_your_turn", e + 1, "SC-R1")
    hand = ds[1]["hands"][ds[e]["seat"]]
    mixed = [t for t in hand if t.endswith("m")][:2] + [t for t in hand if not t.endswith("m")][:1]
    ds[e]["tiles"] = mixed
    expect(ds[: e + 1], "illegal_move", e, "one suit")


def test_skipping_the_compulsory_last_four_win() -> None:
    ds = dicts("e9_pass_lock_last_four")
    h = idx(ds, type="hu")
    # any other continuation than seat 1's hu is rejected: seat 1's draw, or a peng
    r_ok = run(ds)
    assert r_ok.status == "finished"
    ds2 = [*ds[:h], {"type": "draw", "seat": 1, "tile": "1m"}]
    expect(ds2, "illegal_move", h, "SC-R15")
    ds3 = [*ds[:h], {"type": "peng", "seat": 2, "tile": "4p"}]
    expect(ds3, "illegal_move", h, "SC-R15")


def test_pass_lock_blocks_an_equal_win() -> None:
    ds = with_rules(dicts("e9_pass_lock_last_four"), que_discard_first=False)  # seat 0 may keep a drawn void tile
    d = idx(ds, type="discard", seat=3, tile="1p")
    assert ds[d + 1]["type"] == "draw" and ds[d + 1]["seat"] == 0  # seat 1 passed 1p (F = 1)
    log = [*ds[: d + 2], {"type": "discard", "seat": 0, "tile": "4p"}, {"type": "hu", "seat": 1, "tile": "4p"}]
    expect(log, "illegal_claim", d + 3, "SC-R17")
    r = run(with_rules(log, guo_shou_hu=False))
    assert r.status == "incomplete" and r.error is None


def test_xueliu_lock_must_discard_the_drawn_tile() -> None:
    ds = with_rules(dicts("e5_xueliu_two_wins"), que_discard_first=False)
    i = idx(ds, type="discard", seat=1, tile="3p")
    ds[i]["tile"] = "1m"
    expect(ds, "illegal_move", i, "SC-R19")


def test_single_hu_without_yi_pao_duo_xiang() -> None:
    ds = with_rules(dicts(E2), yi_pao_duo_xiang=False)
    h = idx(ds, type="hu", seat=3)
    expect(ds, "illegal_claim", h, "yi_pao_duo_xiang")
    # the later seat may not take the single hu either (截胡)
    ds = with_rules(dicts(E2), yi_pao_duo_xiang=False)
    h1 = idx(ds, type="hu", seat=1)
    del ds[h1]
    expect(ds, "illegal_claim", h1, "截胡")


def test_rob_with_rob_gang_off() -> None:
    ds = with_rules(dicts(E3), rob_gang=False)
    h = idx(ds, type="hu")
    expect(ds, "illegal_claim", h, "SC-R13")


def test_winner_cannot_claim_again_in_xuezhan() -> None:
    ds = dicts(E1)
    h = idx(ds, type="hu")
    d = idx(ds, h, type="discard")
    log = [*ds[: d + 1], {"type": "hu", "seat": 2, "tile": ds[d]["tile"]}]
    expect(log, "illegal_claim", d + 1, "SC-R20")


def test_gang_rules() -> None:
    ds = dicts(E1)
    g = idx(ds, type="gang")
    bad = dict(ds[g], kind="bu")  # seat 2 has no peng of 5s
    expect([*ds[:g], bad], "illegal_move", g, "SC-R12")
    bad = dict(ds[g], tile="1p")  # only one 1p
    expect([*ds[:g], bad], "not_in_hand", g, "SC-R11")
    # a gang right after a peng
    ds = dicts(E2)
    p = idx(ds, type="peng")
    after = {"type": "gang", "seat": 0, "tile": "9s", "kind": "an"}
    expect([*ds[: p + 1], after], "illegal_move", p + 1, "SC-R5")


def test_random_corruptions_never_raise() -> None:
    """Bad input gets a contract code, never a traceback: random edits of every golden log."""
    import random

    from events.errors import ContractError

    rng = random.Random(5)
    tiles = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + ["7z"]
    names = sorted(p.stem.removeprefix("sichuan_") for p in GOLDEN.glob("sichuan_*.jsonl"))
    for name in names:
        base = dicts(name)
        for _ in range(15):
            ds = [dict(d) for d in base]
            i = rng.randrange(2, len(ds) - 1)
            d = ds[i]
            roll = rng.random()
            if "tile" in d and roll < 0.4:
                d["tile"] = rng.choice(tiles)
            elif "seat" in d and roll < 0.7:
                d["seat"] = rng.randrange(4)
            elif roll < 0.85:
                d = {"type": rng.choice(["draw", "discard", "peng", "hu"]), "seat": rng.randrange(4), "tile": rng.choice(tiles)}
            else:
                d = {"type": "gang", "seat": rng.randrange(4), "tile": rng.choice(tiles), "kind": rng.choice(["zhi", "bu", "an"])}
            ds[i] = d
            try:
                r = run(ds[: rng.randrange(i + 1, len(ds) + 1)])
            except ContractError:
                continue
            assert r.status in ("invalid", "finished", "incomplete")
            if r.status == "invalid":
                assert r.error["code"] in {
                    "wrong_phase", "not_your_turn", "not_in_hand", "illegal_move", "illegal_claim",
                    "not_a_win", "wrong_draw", "after_end", "bad_field",
                }, r.error  # fmt: skip
                assert "SC-" in r.error["message"] or r.error["code"] in ("after_end", "bad_field")
