"""This machine's address on the table's network, for the phones (standard library only).

``make run`` on a laptop: the organiser often opens the site at ``127.0.0.1``,
which no phone can reach. These helpers tell a loopback host apart and find
the address the phones should use instead. The settings of ``make run``
(``config.settings.table``) import this module, so it imports no Django.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

# Any routable address serves: connecting a UDP socket sends no packet, it only picks
# the interface (and so the address) this machine would use to reach it.
_PROBE = ("10.255.255.255", 9)


def host_name(host: str) -> str:
    """``host`` without its port or IPv6 brackets: ``[::1]:8000`` → ``::1``."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as in a Host header, port allowed) names this machine only."""
    name = host_name(host).lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's IPv4 address on its network (``DOMENG_LAN_HOST`` wins), or ``None``."""
    configured = os.environ.get("DOMENG_LAN_HOST", "").strip()
    if configured:
        return configured
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            address = str(probe.getsockname()[0])
    except OSError:  # no network at all
        return None
    return None if is_loopback(address) or address == "0.0.0.0" else address


def host_port(host: str) -> str | None:
    """The port of a Host header (``127.0.0.1:8000`` → ``8000``), or ``None``."""
    rest = host[host.index("]") + 1 :] if host.startswith("[") else host
    if rest.count(":") != 1:
        return None
    port = rest.rsplit(":", 1)[1]
    return port if port.isdigit() else None


def join_base(request: Any) -> str | None:
    """``http://<lan address>:<port>`` for a request that came in on a loopback address
    (the port the browser used, as its Host header says)."""
    address = lan_address()
    if address is None:
        return None
    port = host_port(request.get_host()) or request.get_port()
    shown = f"[{address}]" if ":" in address else address
    return f"{request.scheme}://{shown}" + ("" if port in {"80", "443"} else f":{port}")
