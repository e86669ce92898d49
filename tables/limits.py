"""The budgets every door spends from live in ``accounts.limits`` (the lowest app, so registration
can spend one too); the apps above tables import them from here as well."""

from accounts.limits import TokenBucket, cache_writer, forget, spend

__all__ = ["TokenBucket", "cache_writer", "forget", "spend"]
