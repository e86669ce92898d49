"""The budgets every door spends from live in ``accounts.limits`` (the lowest app, so registration
can spend one too); the apps above tables import them from here as well."""

from accounts.limits import Budget, Shortfall, cache_writer, forget, spend, spend_all, spend_frame

__all__ = ["Budget", "Shortfall", "cache_writer", "forget", "spend", "spend_all", "spend_frame"]
