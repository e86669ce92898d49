"""The operators' view of the site: its metrics and its log lines."""
