"""The API's routers, one module per resource: queries (search, ask), documents (text, chunks, page images), health."""
