"""The live referee (`paiju serve`, docs/referee.md): a layer beside ingest, above the engine.

- `referee.live.LiveMatch`: one match's events folded one at a time (the replay driver's step);
- `referee.journal`: the append-only journal with group commit (durable before acknowledged);
- `referee.service.Referee`: the open matches, the answers, the metrics; `referee.app`: HTTP;
- `referee.publish`: the journal into the lake through `ingest.pipeline.ingest`;
- `referee.auth`: bearer tokens and rate limits; `referee.client`: the httpx client;
- `referee.cli` (`paiju serve`) and `referee.sim_cli` (`paiju simulate --to URL`).
Nothing below (events, engine, ingest, analytics) imports this package.
"""
