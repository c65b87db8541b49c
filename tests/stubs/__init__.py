"""Local HTTP stand-ins (127.0.0.1) for the LLM APIs, driven through the real clients in tests."""
