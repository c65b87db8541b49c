"""PDF → legal documents → chunks. Pure: reads files, returns pydantic models; no index, no Prefect."""
