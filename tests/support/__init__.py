"""Shared test support: a small test-only game and builders."""
