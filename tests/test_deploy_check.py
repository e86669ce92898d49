"""Production settings pass Django's deployment checklist; local runs stay on plain http."""

import os
import secrets
import subprocess
import sys

from tests.conftest import ROOT

PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "septica.example",
    "CSRF_TRUSTED_ORIGINS": "https://septica.example",
    "MAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
}
NOT_FROM_PRODUCTION = (
    "DJANGO_ALLOW_ASYNC_UNSAFE",  # the browser tests set it for themselves
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_COOKIES",
)


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {key: value for key, value in os.environ.items() if key not in NOT_FROM_PRODUCTION}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_of(env: dict[str, str], *names: str) -> list[str]:
    code = "from django.conf import settings; " + "; ".join(f"print(repr(settings.{n}))" for n in names)
    result = run_manage("shell", "--no-imports", "-c", code, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_check_deploy_is_clean_with_production_settings():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_deploy_warns_when_hsts_and_redirect_are_turned_off():
    env = {**PRODUCTION, "SECURE_SSL_REDIRECT": "0", "SECURE_HSTS_SECONDS": "0"}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    assert "security.W004" in result.stderr
    assert "security.W008" in result.stderr


def test_the_proxy_ssl_header_is_read_from_the_environment():
    env = {**PRODUCTION, "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto,https"}
    assert settings_of(env, "SECURE_PROXY_SSL_HEADER") == ["('HTTP_X_FORWARDED_PROTO', 'https')"]


def test_local_runs_neither_redirect_to_https_nor_send_hsts():
    assert settings_of({"DEBUG": "1"}, "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS") == ["False", "0"]


def test_a_production_server_redirects_plain_http_and_trusts_the_proxy_header(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = ["septica.example"]
    response = client.get("/accounts/login/", HTTP_HOST="septica.example")
    assert response.status_code == 301
    assert response["Location"] == "https://septica.example/accounts/login/"
    proxied = client.get("/accounts/login/", HTTP_HOST="septica.example", HTTP_X_FORWARDED_PROTO="https")
    assert proxied.status_code == 200
    assert proxied["Strict-Transport-Security"].startswith("max-age=31536000")
