"""Mutation-killing tests for engine/climbing/pdk_moves.py's undecorated helpers (issue 17).

Expected values by hand from docs/rules/paodekuai.md (section 4.1 types, 4.3 leading reading) and
the shared notation (rank order `3 4 5 6 7 8 9 T J Q K A 2`, a count vector written rank by rank).
"""

from __future__ import annotations

import pytest

from engine.cards import CARD_ID
from engine.climbing import pdk_moves as mv


def counts(*cards: str) -> tuple[int, ...]:
    return mv.counts_of(CARD_ID[c] for c in cards)


def test_counts_str_writes_each_rank_by_its_count() -> None:
    """Notation: 3s 3h 5d Td As 2s → ranks 3, 3, 5, T, A, 2 in rank order → `335TA2`."""
    assert mv.counts_str(counts("5d", "3s", "2s", "Td", "3h", "As")) == "335TA2"


def test_lead_reading_of_no_move_names_the_cards() -> None:
    """Section 4.1: a 3 and a 4 are no move (two cards are only a pair); leading them is a
    ValueError that names the cards, `34 is no move`."""
    with pytest.raises(ValueError, match=r"^34 is no move$"):
        mv.lead_reading(counts("3s", "4h"))


def test_highest_rank_of_pdk_hands() -> None:
    """The highest rank index of a hand (rank 3 = 0 … A = 11, 2 = 12): 3 alone → 0; 3 9 A → 11;
    a hand with the 2 → 12; an empty hand is a ValueError."""
    assert mv.highest_rank(counts("3s")) == 0
    assert mv.highest_rank(counts("3s", "9h", "Ac")) == 11
    assert mv.highest_rank(counts("4d", "2s")) == 12
    with pytest.raises(ValueError):
        mv.highest_rank(counts())
