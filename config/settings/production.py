"""What turning DEBUG off changes: a secret key is required, no host is allowed by default, the
benchmarks are not installed, static files get content-hashed names, cookies go over https only, plain
http is redirected and browsers are told to keep to https (HSTS). Each can still be set by hand."""

import os

from config.settings.base import DEBUG, INSTALLED_APPS
from config.settings.env import env_bool, env_header_value, env_list

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("Set SECRET_KEY when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-only-for-debug-runs"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])

if DEBUG:
    # The benchmarks (``manage.py loadbench``, ``soak``...) are for development: production lacks them.
    INSTALLED_APPS = [*INSTALLED_APPS, "bench"]

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # With DEBUG off, `collectstatic` writes content-hashed names (cached for a year) and
    # pre-compressed copies, which nginx (gzip_static) or servestatic serve as they are.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "servestatic.storage.CompressedManifestStaticFilesStorage"
    },
}

SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
"""Production answers plain http with a redirect to https; local runs (DEBUG) stay on http."""
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)

SECURE_PROXY_SSL_HEADER = env_header_value("SECURE_PROXY_SSL_HEADER")
"""Behind a proxy that ends TLS: the header (and its value) that says the browser used https."""
SECURE_REDIRECT_EXEMPT = [r"^health/", r"^metrics$"]
"""A load balancer asks for /health/ over plain http inside the network, where TLS has already ended,
and Prometheus scrapes each Daphne's /metrics there too."""
