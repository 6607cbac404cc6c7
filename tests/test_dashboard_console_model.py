"""The Replay console's model (dashboard/replay_view.py) over every match of every game, every step,
as everyone and as each seat: nothing raises, every line is a step, and a seat never sees another
seat's hidden cards (checked against the log: the cards dealt to the other seats)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dashboard import replay_view as rv
from tests import dashboard_lake

CARD_RE = re.compile(r'data-hand="(\d+)"[^>]*>(.*?)</div>', re.S)
GLYPH_RE = re.compile(r'data-(?:card|tile)="([^"]+)"')


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not dashboard_lake.games():
        pytest.skip("no game engine is available in this build yet")
    return dashboard_lake.build(tmp_path_factory.mktemp("model"))


@pytest.mark.slow
def test_every_step_of_every_match_as_everyone_and_as_each_seat(lake: dict[str, Any]) -> None:
    import json

    for mid, evs in lake["matches"].items():
        lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in evs]
        con = rv.load(mid, lines)
        assert len(con.lines) == len(lines), mid
        n = len(evs[0]["players"])
        for viewer in (None, *range(n)):
            for ln in con.lines:
                assert rv.sentence(ln, con.players, con.game, viewer)
                rv.timeline_label(ln, con.players, con.game, viewer)
                view = rv.safe_view(con.game, ln.state, viewer)
                if not view:
                    continue
                html = rv.table_html(view, con.players, con.result.dealer, tiles=con.tiles,
                                     passed=rv.exchanges(con, ln.index), viewer=viewer)  # fmt: skip
                rv.legal_groups(con.game, ln, None, viewer)
                if viewer is not None:
                    for seat, body in CARD_RE.findall(html):
                        if int(seat) != viewer:
                            assert GLYPH_RE.findall(body) == [], (mid, ln.index, viewer, seat)
        rv.item_rows(con)
        rv.seat_rows(con)
