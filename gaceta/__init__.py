"""The faces of gaceta: CLI, HTTP API and web page. Thin: the logic lives in ingest, retrieval and flows."""
