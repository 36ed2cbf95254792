"""The engines the tests start on loopback: see ``voxmem.benchmarks.engines``."""

from voxmem.benchmarks.engines import (
    PgServer,
    chroma_server,
    free_port,
    fresh_database,
    postgres,
    postgres_bin,
)

__all__ = ["PgServer", "chroma_server", "free_port", "fresh_database", "postgres", "postgres_bin"]
