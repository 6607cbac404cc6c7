"""The dashboard pages, one file per job, run by `st.navigation` (dashboard/app.py); never imported."""
