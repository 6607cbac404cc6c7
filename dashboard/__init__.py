"""The Streamlit dashboard (issue 9): `paiju dashboard [--lake DIR] [--port P]`."""

LAKE_ENV = "PAIJU_LAKE"
"""The environment variable that tells the app which lake to read."""
