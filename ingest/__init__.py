"""Ingest: logs → the Parquet lake (architecture.md "The lake").

- `ingest.pipeline.ingest(paths, lake, workers=2)`: the local run (`paiju ingest`), safe to
  re-run and to interrupt; returns a `Summary`.
- `ingest.tables.build_tables(events)`: replay + table building, one pure function over a batch
  of complete matches (Arrow or pandas events in, Arrow tables out) — the function a scale-out
  runner (Spark `applyInPandas`) applies per bucket of match ids.
- `ingest.schema`: every table's Arrow schema and unique key; `ingest.store`: manifest, lock,
  atomic publication, the views readers build (`analytics.lake.open_lake`).
"""
