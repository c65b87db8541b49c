"""Prefect flows that run ingest → retrieval in batches. Importing this package sets Prefect's offline
defaults (see `flows.environment`) before any submodule imports Prefect."""

from flows.environment import configure_prefect

configure_prefect()
