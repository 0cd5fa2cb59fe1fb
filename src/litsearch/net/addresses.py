"""Where an open copy may be fetched from: public addresses only.

A request to a host that is no configured API (a publisher's open copy, a redirect it makes:
``other_origins`` in the HTTP layer) goes where a third party's answer points: Unpaywall's
record, a publisher's page, a ``Location`` header. Such a URL may name this machine or its
network (``localhost``, ``10.0.0.5``, the cloud metadata address ``169.254.169.254``), and
what comes back would be printed as the paper's text, into a terminal or a model's context.
So the host is resolved first, and every address it resolves to must be public
(``ipaddress``'s ``is_global``, multicast excluded); a host the user configured as an API base URL
(``LITSEARCH_*_URL``, a local mirror or the test fakes) is trusted as configured.

A host that does not resolve is left to the connection, which then fails with its own reason;
behind a proxy the proxy resolves names, and what it resolves to is its policy.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpx

_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_public(address: str) -> bool:
    """Whether an IP address is a host the whole Internet can reach (an IPv4-mapped IPv6
    address is judged as the IPv4 one it maps; multicast groups are no host)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def local_address_of(url: httpx.URL) -> str | None:
    """The first address of ``url``'s host that is not public, or None (every address public,
    or the name does not resolve here)."""
    host = url.host
    try:
        return None if is_public(host) else host
    except ValueError:
        pass  # a name, not an address
    port = url.port or _DEFAULT_PORTS.get(url.scheme, 443)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    for *_, address in found:
        try:
            if not is_public(str(address[0])):
                return str(address[0])
        except ValueError:
            continue
    return None
