"""The Stela web service: event store, fan-out, HTTP/SSE API and CLI."""
