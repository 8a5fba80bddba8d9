"""The rules as data and the engine that applies them: no I/O but reading bundled data."""
