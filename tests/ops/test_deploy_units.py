"""The systemd units in deploy/ start what the Procfile says, and the proxy's configuration for
several hosts is one nginx accepts."""

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from config.management.commands.prod import NGINX
from config.procfile import command, daphne_command
from tests.conftest import ROOT, site_env

DEPLOY = ROOT / "deploy"
SITE = "/srv/septica"


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read(DEPLOY / name)
    return parser


def manage(*words: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *words],
        cwd=ROOT,
        env=env or site_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "name",
    ["septica-web@.service", "septica-worker.service", "septica-proxy.service", "septica-backup.service"],
)
def test_every_unit_runs_a_command_of_the_site_from_its_checkout(name):
    service = unit(name)["Service"]
    words = shlex.split(service["ExecStart"])
    assert words[:2] == [f"{SITE}/.venv/bin/python", f"{SITE}/manage.py"]
    assert service["WorkingDirectory"] == SITE
    assert service["EnvironmentFile"] == "/etc/septica/env"
    subcommand = words[2]
    assert (ROOT / "config" / "management" / "commands" / f"{subcommand}.py").exists()


def test_the_web_unit_starts_the_procfile_s_daphne_on_its_instance_s_port():
    exec_start = shlex.split(unit("septica-web@.service")["Service"]["ExecStart"])
    assert exec_start[2:] == ["process", "web", "--port", "%i"]
    env = site_env(DAPHNE_HOST="10.0.0.11")
    printed = manage("process", "web", "--port", "8101", "--print", env=env).split()
    assert printed == daphne_command(8101, "10.0.0.11")
    assert "tcp:port=8101:interface=10.0.0.11:backlog=1024" in printed


def test_the_worker_unit_runs_beat_with_its_schedule_in_the_state_directory():
    service = unit("septica-worker.service")["Service"]
    assert service["Environment"] == "RUN_DIR=/var/lib/septica"
    printed = manage("process", "worker", "--run-dir", "/tmp/septica-units", "--print").split()
    assert printed == command(
        "worker", RUN_DIR="/tmp/septica-units", WORKER_LOG_LEVEL="WARNING", PORT="", DAPHNE_HOST=""
    )
    assert "-B" in printed and "/tmp/septica-units/celerybeat-schedule" in printed


def test_the_worker_refuses_to_start_without_a_run_directory():
    env = {key: value for key, value in site_env().items() if key != "RUN_DIR"}
    done = subprocess.run(
        [sys.executable, "manage.py", "process", "worker", "--print"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "Name the worker's run directory" in done.stderr


def test_the_proxy_conf_for_three_hosts_hashes_tables_over_all_and_nginx_accepts_it(
    transactional_db, tmp_path
):
    if not NGINX or not shutil.which(NGINX):
        pytest.skip("nginx is not installed (apt-get install nginx-light).")
    run = tmp_path / "run"
    upstreams = ["10.0.0.11:8100", "10.0.0.11:8101", "10.0.0.12:8100"]
    env = site_env(STATIC_ROOT=str(tmp_path / "static"))
    said = manage(
        *("prod", "--proxy-conf-only", "--run-dir", str(run), "--daphnes", "0", "--port", "8080"),
        *(word for upstream in upstreams for word in ("--upstream", upstream)),
        env=env,
    )
    assert "3 Daphne" in said
    conf = (run / "nginx.conf").read_text()
    for upstream in upstreams:
        assert conf.count(f"server {upstream} max_fails=1 fail_timeout=5s;") == 2  # sockets and pages
    assert "hash $table_id consistent;" in conf
    assert "location ^~ /metrics" in conf and "location /health/" in conf
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(run), "-c", str(run / "nginx.conf")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    printed = manage("process", "proxy", "--run-dir", str(run), "--print")
    assert printed.split() == [NGINX, "-p", str(run), "-c", f"{run}/nginx.conf", "-e", "stderr"]
    assert Path(env["STATIC_ROOT"]).is_dir()
