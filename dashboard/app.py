"""The Paiju dashboard: `streamlit run dashboard/app.py` (or `paiju dashboard --lake DIR`).

One page per job (issue 9), declared with `st.navigation`; each page is a file in `views/`.
The lake directory comes from `PAIJU_LAKE` (dashboard/common.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:  # `streamlit run` puts only this file's folder on the path
    sys.path.insert(0, _ROOT)

from dashboard.common import cjk_fonts, lake_dir  # noqa: E402

HERE = Path(__file__).resolve().parent
PAGES = [
    ("views/overview.py", "Overview", ":material/dashboard:", "overview"),
    ("views/search.py", "Search", ":material/search:", "search"),
    ("views/replay.py", "Replay", ":material/replay:", "replay"),
    ("views/player.py", "Player", ":material/person:", "player"),
    ("views/winrates.py", "Win rates", ":material/trophy:", "winrates"),
    ("views/fans.py", "Fans and scores", ":material/bar_chart:", "fans"),
    ("views/lab.py", "House-rules lab", ":material/science:", "lab"),
    ("views/quality.py", "Data quality", ":material/rule:", "quality"),
    ("views/integrity.py", "Integrity", ":material/policy:", "integrity"),
    ("views/glossary.py", "Glossary", ":material/translate:", "glossary"),
]

st.set_page_config(page_title="Paiju", page_icon="🀄", layout="wide")
nav = st.navigation(
    [
        st.Page(str(HERE / path), title=title, icon=icon, url_path=url, default=(i == 0))
        for i, (path, title, icon, url) in enumerate(PAGES)
    ]
)
cjk_fonts()  # every page, the console's included: Chinese in the local Noto Sans CJK SC
st.sidebar.caption(f"lake: `{lake_dir()}`")
nav.run()
