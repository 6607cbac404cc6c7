"""Zha Jin Hua hand evaluator (zhajinhua.md section 4): category + comparison key as ints.

Card ids are those of `engine.cards` (rank index * 4 + suit, suits `s h c d` = 0..3). For this game a
card's value is 2..14 (`2` = 2 … `A` = 14; A also 1 in A-2-3, section 4.1).

The key of a hand is `(category, r1, r2, r3[, suit])`, compared lexicographically:
- category: index in `CATEGORIES` (0 = `dan_zhang` … 5 = `bao_zi`, table 4.1);
- r1..r3: the three values in comparison order ("rank" of `paiju hand`): high to low; a pair as
  `[pair, pair, kicker]`; A-2-3 as `[3, 2, 1]` (option `a23` = `lowest`, the lowest straight) or
  `[14, 3, 2]` (`a23` = `second`: below Q-K-A `[14, 13, 12]`, above J-Q-K `[13, 12, 11]`);
- suit (only with `suit_tiebreak`, 4.2): strength 3..0 (`s > h > c > d`) of the hand's first card in
  the order "pair cards first, then value high to low (A low in A-2-3 when `lowest`), equal values by
  suit high to low".
The 2-3-5 special (4.3) is not in the key: `beats` applies it on top, so with `special_235` the
relation is no longer a total order (豹子 > 顺金 > … > 2-3-5 > 豹子), which is why section 4.5 exists.
Tables are data: the shape of every value triple and the category of every (shape, flush) pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

from engine.cards import CARD_ID

CATEGORIES: tuple[str, ...] = ("dan_zhang", "dui_zi", "shun_zi", "jin_hua", "shun_jin", "bao_zi")
"""Category ids, weakest first: the index is the category's strength (table 4.1)."""
CATEGORY_INDEX: dict[str, int] = {c: i for i, c in enumerate(CATEGORIES)}
DAN_ZHANG, DUI_ZI, SHUN_ZI, JIN_HUA, SHUN_JIN, BAO_ZI = range(6)

# (shape, one suit) -> category (table 4.1)
_CATEGORY_OF: dict[tuple[str, bool], int] = {
    ("high", False): DAN_ZHANG,
    ("pair", False): DUI_ZI,
    ("straight", False): SHUN_ZI,
    ("high", True): JIN_HUA,
    ("straight", True): SHUN_JIN,
    ("trips", False): BAO_ZI,
}

SUIT_STRENGTH: tuple[int, ...] = (3, 2, 1, 0)
"""Option `suit_tiebreak` (4.2): suit index s h c d -> strength, s > h > c > d."""


def value_of(card: int) -> int:
    """A card's value 2..14 (`2` lowest, `A` highest) from its `engine.cards` id."""
    r = card >> 2
    return 2 if r == 12 else r + 3


_ID52: dict[str, int] = {name: i for name, i in CARD_ID.items() if i < 52}
"""`CARD_ID` without the jokers."""


def parse_hand(cards: Sequence[str]) -> tuple[int, int, int]:
    """Three distinct card strings (no jokers) -> sorted ids; ValueError with the reason."""
    if len(cards) == 3:  # the usual hand: three different cards of the deck
        a, b, c = map(_ID52.get, cards)
        if a is not None and b is not None and c is not None and a != b != c != a:
            return tuple(sorted((a, b, c)))  # type: ignore[return-value]
    if len(cards) != 3:
        raise ValueError(f"a Zha Jin Hua hand has 3 cards, got {len(cards)}")
    ids = []
    for c in cards:
        i = CARD_ID.get(c)
        if i is None or i >= 52:
            raise ValueError(f"{c!r} is not a card of the 52-card deck (Zha Jin Hua has no jokers)")
        ids.append(i)
    if len(set(ids)) != 3:
        raise ValueError(f"the cards {' '.join(cards)} are not all different")
    return tuple(sorted(ids))  # type: ignore[return-value]


@cache
def _shapes() -> dict[tuple[int, int, int], tuple[str, tuple[int, int, int], tuple[int, int, int]]]:
    """Value triple (high to low) -> (shape, ranks with a23=lowest, ranks with a23=second)."""
    out = {}
    for a in range(2, 15):
        for b in range(2, a + 1):
            for c in range(2, b + 1):
                if a == b == c:
                    shape, r = "trips", (a, b, c)
                    r2 = r
                elif a == b or b == c:
                    pair, kick = (a, c) if a == b else (b, a)
                    shape, r = "pair", (pair, pair, kick)
                    r2 = r
                elif (a, b, c) == (14, 3, 2):
                    shape, r, r2 = "straight", (3, 2, 1), (14, 3, 2)
                elif a - b == 1 and b - c == 1:
                    shape, r = "straight", (a, b, c)
                    r2 = r
                else:
                    shape, r = "high", (a, b, c)
                    r2 = r
                out[(a, b, c)] = (shape, r, r2)
    return out


def _first_card(cards: Sequence[int], shape: str, a23_low: bool) -> int:
    """4.2: the hand's first card: pair cards first, then value high to low, then suit high to low."""
    vals = [value_of(c) for c in cards]
    pair_val = next((v for v in vals if vals.count(v) == 2), None) if shape == "pair" else None

    def order(c: int) -> tuple[int, int, int]:
        v = value_of(c)
        if a23_low and v == 14 and shape == "straight" and sorted(vals) == [2, 3, 14]:
            v = 1
        return (1 if v == pair_val else 0, v, SUIT_STRENGTH[c & 3])

    return max(cards, key=order)


@cache
def evaluate(cards: tuple[int, int, int], a23_second: bool = False, suit_tiebreak: bool = False) -> tuple[int, ...]:
    """The comparison key `(category, r1, r2, r3[, suit])` of three card ids (any order)."""
    vals = tuple(sorted((value_of(c) for c in cards), reverse=True))
    shape, r_low, r_second = _shapes()[vals]  # type: ignore[index]
    flush = shape != "trips" and len({c & 3 for c in cards}) == 1
    cat = _CATEGORY_OF[(shape, flush)]
    ranks = r_second if a23_second else r_low
    if not suit_tiebreak:
        return (cat, *ranks)
    first = _first_card(cards, shape, not a23_second)
    return (cat, *ranks, SUIT_STRENGTH[first & 3])


def is_235(cards: Sequence[int]) -> bool:
    """4.3: an off-suit 2-3-5 (a `dan_zhang` with values 2, 3, 5)."""
    return sorted(value_of(c) for c in cards) == [2, 3, 5] and len({c & 3 for c in cards}) > 1


class Evaluator:
    """The comparison of one rule set: keys and the two-hand relation of 4.4 (with 4.3 on top)."""

    __slots__ = ("a23_second", "special_235", "suit_tiebreak")

    def __init__(self, a23_second: bool = False, suit_tiebreak: bool = False, special_235: bool = False) -> None:
        self.a23_second = a23_second
        self.suit_tiebreak = suit_tiebreak
        self.special_235 = special_235

    def key(self, cards: Sequence[int]) -> tuple[int, ...]:
        return evaluate(tuple(sorted(cards)), self.a23_second, self.suit_tiebreak)  # type: ignore[arg-type]

    def beats(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """4.4: hand a is strictly better than hand b (the 2-3-5 special overrides the keys)."""
        ka, kb = self.key(a), self.key(b)
        if self.special_235:
            if ka[0] == BAO_ZI and is_235(b):
                return False
            if kb[0] == BAO_ZI and is_235(a):
                return True
        return ka > kb

    def showdown(self, hands: Sequence[Sequence[int]]) -> list[int]:
        """4.5: indexes of the winners: the one hand beating all others, else the unbeaten hands
        with the 2-3-5 special ignored (several winners share the pot)."""
        idx = range(len(hands))
        for i in idx:
            if all(self.beats(hands[i], hands[j]) for j in idx if j != i):
                return [i]
        keys = [self.key(h) for h in hands]
        top = max(keys)
        return [i for i in idx if keys[i] == top]


def all_hands() -> list[tuple[int, int, int]]:
    """Every 3-card hand of the 52-card deck (22,100), as sorted id triples."""
    return list(combinations(range(52), 3))


def describe(cards: Sequence[int], ev: Evaluator) -> dict[str, object]:
    """`paiju hand zhajinhua` answer: category id, rank (comparison order values) and key."""
    k = ev.key(cards)
    out: dict[str, object] = {
        "category": CATEGORIES[k[0]],
        "rank": list(k[1:4]),
        "key": list(k),
    }
    if ev.special_235:
        out["special_235"] = is_235(cards)
    return out
