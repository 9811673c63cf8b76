"""``make run`` at a real table: DEBUG off, waitress, whitenoise, a reachable address."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management import call_command

from referee.web import lan

ROOT = Path(__file__).resolve().parents[3]


def test_loopback_hosts_are_told_apart_from_lan_ones() -> None:
    for host in ("127.0.0.1", "127.0.0.1:8000", "localhost:8000", "[::1]:8000", "::1"):
        assert lan.is_loopback(host), host
    for host in ("192.168.1.20", "192.168.1.20:8000", "laptop.local:8000", "[fe80::1]:8000"):
        assert not lan.is_loopback(host), host


def test_the_port_comes_from_the_host_the_browser_used() -> None:
    assert lan.host_port("127.0.0.1:8123") == "8123"
    assert lan.host_port("[::1]:8123") == "8123"
    assert lan.host_port("localhost") is None
    assert lan.host_port("::1") is None


def test_the_lan_address_can_be_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOMENG_LAN_HOST", "10.0.0.7")
    assert lan.lan_address() == "10.0.0.7"


@pytest.mark.django_db  # it asks whether the first run's link is needed (no account yet)
def test_serve_prints_the_phones_address_with_a_qr_code(monkeypatch) -> None:
    monkeypatch.setenv("DOMENG_LAN_HOST", "192.168.1.20")
    out = io.StringIO()
    call_command("serve", "--host", "0.0.0.0", "--port", "8123", "--dry-run", stdout=out)
    text = out.getvalue()
    assert "Phones at the table (same Wi-Fi): http://192.168.1.20:8123/" in text
    assert "http://192.168.1.20:8123/games/" in text
    assert "█" in text or "▀" in text  # the QR code, drawn with block characters


@pytest.mark.django_db
def test_serve_on_loopback_says_how_to_reach_the_phones() -> None:
    out = io.StringIO()
    call_command("serve", "--port", "8123", "--dry-run", stdout=out)
    assert "Only this computer can open it. For the table's phones: make run LAN=1" in (
        out.getvalue()
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - local
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def test_make_run_serves_the_table_without_debug_with_static_files(tmp_path: Path) -> None:
    """What ``make run`` runs: migrate, then ``serve`` (waitress) with config.settings.table."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.table",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'table.sqlite3'}",
        "DJANGO_SECRET_KEY": "test-only-table-secret",
        "DJANGO_DEBUG": "true",  # ignored: a table never runs with DEBUG
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT, timeout=300)
    port = _free_port()
    server = subprocess.Popen(
        [*manage, "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, page, _ = _get(base + "/")
                break
            except OSError:
                assert time.monotonic() < deadline, "make run did not answer"
                time.sleep(0.3)
        assert status == 200
        assert 'name="code"' in page
        status, script, headers = _get(base + "/static/referee/vendor/idiomorph/idiomorph.min.js")
        assert status == 200
        assert "Idiomorph" in script
        status, missing, _ = _get(base + "/no-such-page/")
        assert status == 404
        assert "DEBUG = True" not in missing  # no debug page
        assert "Traceback" not in missing
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert "Only this computer can open it" in output
    # A fresh database: the first run's one-time link (issue 28), no terminal needed.
    assert re.search(rf"First run: open http://127\.0\.0\.1:{port}/setup/[\w-]{{43}}/ ", output)
    assert "Warning" not in output  # whitenoise's "No directory at: …/staticfiles/" (QA)
