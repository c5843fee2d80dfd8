"""Tests against real Redis processes: the store on its own, server processes sharing
one Redis, faults, a Redis Cluster."""

from __future__ import annotations

from tests.support.redis import redis_cluster, redis_server

__all__ = ["redis_cluster", "redis_server"]  # session fixtures
