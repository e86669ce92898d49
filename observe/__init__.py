"""What operators watch: the site's Prometheus metrics and its log lines' format and context.

Plain Python (the standard library and ``prometheus_client``), the lowest layer: every app may note
a metric or a log context here without knowing how they are exposed (``config.metrics``).
"""
