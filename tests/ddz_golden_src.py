"""Source of the Dou Dizhu golden logs (doudizhu.md §8, E1–E6 and option variants).

`python tests/ddz_golden_src.py` rewrites tests/data/golden/ddz_*.jsonl; the expected deltas in the
`settled` lines are the rule file's numbers, typed in by hand, never computed by the engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "golden"


def h(s: str) -> list[str]:
    return s.split()


E1_DEAL = {
    "hands": [
        h("3h 4h 5h 6h 7h 8h 9h Th Jh Qh 3c 4c 5c 6c 7c 8c 9c"),
        h("3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2c Kh BJ"),
        h("3d 4d 5d 6d 7d 8d 9d Tc Td Jc Jd Qc Qd Kd Ah Ac Ad"),
    ],
    "bottom": h("Kc 2d RJ"),
}
E1 = [
    {"type": "bid", "seat": 0, "value": 0},
    {"type": "bid", "seat": 1, "value": 1},
    {"type": "play", "seat": 1, "cards": h("3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As")},
    {"type": "pass", "seat": 2},
    {"type": "pass", "seat": 0},
    {"type": "play", "seat": 1, "cards": h("2s 2h 2c 2d Kh Kc")},
    {"type": "pass", "seat": 2},
    {"type": "pass", "seat": 0},
    {"type": "play", "seat": 1, "cards": h("BJ RJ")},
]
E2_DEAL = {
    "hands": [
        h("3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2c 2d BJ"),
        h("3h 4h 5h 6h 7h 8h 9h Th Jh Qh 3c 4c 5c 6c 7c 8c 9c"),
        h("Tc Jc Qc Kc Ac 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"),
    ],
    "bottom": h("Ah Kh RJ"),
}
E2 = [
    {"type": "bid", "seat": 2, "value": 1},
    {"type": "rob", "seat": 0, "value": True},
    {"type": "rob", "seat": 1, "value": False},
    {"type": "rob", "seat": 2, "value": True},
    {"type": "play", "seat": 2, "cards": h("3d")},
    {"type": "play", "seat": 0, "cards": h("2s 2h 2c 2d")},
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As")},
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("BJ")},
]
E3_DEAL = {
    "hands": [
        h("5s 5d 5c 6h 6c 7h 8h 9h Th Jh Qh Kh Ah 4h 4c 4d Ac"),
        h("3s 3h 3c 3d 4s 5h 6s 7s 8s 9s Ts Js Qs Ks 2s 2h 2c"),
        h("6d 7c 7d 8c 8d 9c 9d Tc Td Jc Jd Qc Qd Kc Kd Ad RJ"),
    ],
    "bottom": h("2d As BJ"),
}
E3 = [
    {"type": "bid", "seat": 0, "value": 0},
    {"type": "bid", "seat": 1, "value": 0},
    {"type": "bid", "seat": 2, "value": 0},
    {"type": "play", "seat": 0, "cards": h("5s")},
    {"type": "play", "seat": 1, "cards": h("3s 3h 3c 3d")},
    {"type": "pass", "seat": 2},
    {"type": "pass", "seat": 0},
    {"type": "play", "seat": 1, "cards": h("4s 5h 6s 7s 8s 9s Ts Js Qs Ks")},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("5d 6h 7h 8h 9h Th Jh Qh Kh Ah")},
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("4h 4c 4d")},
    {"type": "play", "seat": 1, "cards": h("2s 2h 2c")},
]
E4_DEAL = {
    "hands": [
        h("4s 4h 5s 5h 6s 7c Js Jh Jc Jd Qs Qh Qc Ks Kh 7s 3d"),
        h("8s 8h 9s 9h Ts 7d RJ 4c 4d 5c 5d 6h 6c 6d Qd Kc 2d"),
        h("3s 3h 3c 7h 8c 8d 9c 9d Th Tc Td Kd Ac Ad 2s 2h 2c"),
    ],
    "bottom": h("As Ah BJ"),
}
E4 = [
    {"type": "bid", "seat": 2, "value": 1},
    {"type": "bid", "seat": 0, "value": 3},
    {"type": "laizi", "rank": "7"},
    {"type": "play", "seat": 0, "cards": h("4s 4h 5s 5h 6s 7c"), "as": ["6"]},
    {"type": "play", "seat": 1, "cards": h("8s 8h 9s 9h Ts 7d"), "as": ["T"]},
    {"type": "play", "seat": 2, "cards": h("3s 3h 3c 7h"), "as": ["3"]},
    {"type": "play", "seat": 0, "cards": h("Js Jh Jc Jd")},
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("Qs Qh Qc Ks Kh 7s 3d BJ"), "as": ["K"]},
    {"type": "pass", "seat": 1},
    {"type": "pass", "seat": 2},
    {"type": "play", "seat": 0, "cards": h("As Ah")},
]
E5_DEAL = {
    "hands": [
        h("3s 3h 3c 3d 4h 4c 4d 6h 6c 6d 8h 8c 8d Th Tc Td 9d"),
        h("7s 7h 7d 5s 5h 5c 5d Jh Jc Jd Qh Qc Qd Kh Kc Ah Ac"),
        h("9s 9h BJ RJ 6s 7c 8s 9c Ts Js Qs Ks As 2s 2h 2c 4s"),
    ],
    "bottom": h("2d Ad Kd"),
}
E5 = [
    {"type": "bid", "seat": 1, "value": 0},
    {"type": "bid", "seat": 2, "value": 0},
    {"type": "bid", "seat": 0, "value": 0},
    {"type": "laizi", "rank": "5"},
    {"type": "play", "seat": 1, "cards": h("7s 7h")},
    {"type": "play", "seat": 2, "cards": h("9s 9h")},
    {"type": "play", "seat": 0, "cards": h("3s 3h 3c 3d")},
    {"type": "play", "seat": 1, "cards": h("5s 5h 5c 5d"), "as": ["5", "5", "5", "5"]},
    {"type": "play", "seat": 2, "cards": h("BJ RJ")},
    {"type": "pass", "seat": 0},
    {"type": "pass", "seat": 1},
    {"type": "play", "seat": 2, "cards": h("6s 7c 8s 9c Ts Js Qs Ks As")},
    {"type": "pass", "seat": 0},
    {"type": "pass", "seat": 1},
    {"type": "play", "seat": 2, "cards": h("2s 2h 2c 4s")},
]
E6 = [*E3[:5], {"type": "forfeit", "seat": 2}]

# name → (game, rules, first, base, deal, actions, expected deltas from the rule file)
CASES: dict[str, tuple[str, dict[str, Any], int, int, dict[str, Any], list[dict[str, Any]], list[int]]] = {
    "e1_spring": ("ddz", {"preset": "standard"}, 0, 1, E1_DEAL, E1, [-4, 8, -4]),
    "e1_spring_off": ("ddz", {"spring": False}, 0, 1, E1_DEAL, E1, [-2, 4, -2]),
    "e1_bomb_factor_3": ("ddz", {"bomb_factor": 3}, 0, 1, E1_DEAL, E1, [-6, 12, -6]),
    "e2_rob_anti_spring": ("ddz", {"rob": True}, 2, 1, E2_DEAL, E2, [16, 16, -32]),
    "e2_max_multiplier_8": ("ddz", {"rob": True, "max_multiplier": 8}, 2, 1, E2_DEAL, E2, [8, 8, -16]),
    "e3_forced_landlord": ("ddz", {}, 0, 3, E3_DEAL, E3, [-12, 6, 6]),
    "e3_max_multiplier_1": ("ddz", {"max_multiplier": 1}, 0, 3, E3_DEAL, E3, [-6, 3, 3]),
    "e4_laizi_soft_hard": ("ddz_laizi", {}, 2, 1, E4_DEAL, E4, [24, -12, -12]),
    "e4_hard_bomb_factor_4": ("ddz_laizi", {"hard_bomb_factor": 4}, 2, 1, E4_DEAL, E4, [48, -24, -24]),
    "e4_soft_bomb_factor_3": ("ddz_laizi", {"bomb_factor": 3}, 2, 1, E4_DEAL, E4, [36, -18, -18]),
    "e5_pure_laizi_rocket": ("ddz_laizi", {}, 1, 1, E5_DEAL, E5, [8, -16, 8]),
    "e5_hard_bomb_factor_4": ("ddz_laizi", {"hard_bomb_factor": 4}, 1, 1, E5_DEAL, E5, [64, -128, 64]),
    "e6_forfeit": ("ddz", {}, 0, 3, E3_DEAL, E6, [12, 0, -12]),
    "e6_side_loses": ("ddz", {"forfeit_mode": "side_loses"}, 0, 3, E3_DEAL, E6, [12, -6, -6]),
}


def events_of(name: str, with_settled: bool = True) -> list[dict[str, Any]]:
    game, rules, first, base, deal, actions, deltas = CASES[name]
    mid = f"golden-{game}-{name}"
    out: list[dict[str, Any]] = [
        {"match_id": mid, "seq": 0, "type": "match_started", "game": game, "rules": rules,
         "players": ["ann", "bo", "cy"], "dealer": first, "base": base},
        {"match_id": mid, "seq": 1, "type": "dealt", **deal},
    ]  # fmt: skip
    for a in actions:
        out.append({"match_id": mid, "seq": len(out), **a})
    if with_settled:
        out.append({"match_id": mid, "seq": len(out), "type": "settled", "deltas": deltas})
    return out


def path_of(name: str) -> Path:
    return GOLDEN / f"ddz_{name}.jsonl"


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        with path_of(name).open("w", encoding="utf-8") as f:
            for e in events_of(name):
                f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
