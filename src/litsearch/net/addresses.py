"""Where an open copy may be fetched from: public addresses only.

A request to a host that is no configured API (a publisher's open copy, a redirect it makes:
``other_origins`` in the HTTP layer) goes where a third party's answer points: Unpaywall's
record, a publisher's page, a ``Location`` header. Such a URL may name this machine or its
network (``localhost``, ``10.0.0.5``, the cloud metadata address ``169.254.169.254``, Zotero
desktop's ``127.0.0.1:23119``), and what comes back would be printed as the paper's text, into a
terminal or a model's context. So the host is resolved first, and every address it resolves to
must be public (``ipaddress``'s ``is_global``, multicast excluded).

An IPv6 address that carries an IPv4 address reaches that IPv4 host (on an IPv6-only network
with DNS64, ``64:ff9b::127.0.0.1`` is this machine), so it is judged by every IPv4 address it
may carry: IPv4-mapped and -translated (``::ffff:a.b.c.d``, ``::ffff:0:a.b.c.d``),
IPv4-compatible (``::a.b.c.d``), 6to4 (``2002::/16``), Teredo (``2001::/32``) and NAT64, the
well-known ``64:ff9b::/96`` and the local-use ``64:ff9b:1::/48`` in each RFC 6052 layout the
address fits.

Which origins skip the check is the HTTP layer's call (``trusted_origin`` there): only one the
user set in the environment, and only for that service's own requests.

A host that does not resolve is left to the connection, which then fails with its own reason;
behind a proxy the proxy resolves names, and what it resolves to is its policy.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpx

_V4_MAPPED = ipaddress.ip_network("::ffff:0:0/96")
_V4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
_V4_COMPATIBLE = ipaddress.ip_network("::/96")
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
# RFC 6052's layouts below /96: (prefix length, where the IPv4 bits sit, as (start, end) bit
# ranges of the 128, around the "u" octet at bits 64-71, which must be zero).
_RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}


def _bits(value: int, start: int, end: int) -> int:
    return (value >> (128 - end)) & ((1 << (end - start)) - 1)


def _local_use_readings(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a local-use NAT64 address may carry (the translator's prefix length
    is not in the address): the /96 reading, and that of each shorter layout whose zero bits
    (the u octet, the suffix) the address has. 0.0.0.0 is no reading (a shorter layout's
    zero suffix read as /96); with none left the address carries nothing public."""
    value = int(ip)
    readings = [value & 0xFFFFFFFF]
    for ranges in _RFC6052_LAYOUTS.values():
        if _bits(value, 64, 72) or _bits(value, ranges[-1][1], 128):
            continue
        found = 0
        for start, end in ranges:
            found = (found << (end - start)) | _bits(value, start, end)
        readings.append(found)
    return [ipaddress.IPv4Address(found) for found in readings if found] or [ipaddress.IPv4Address(0)]


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address an IPv6 address carries (none for a plain IPv6 address)."""
    if ip in _V4_MAPPED or ip in _V4_TRANSLATED or ip in _NAT64_WELL_KNOWN:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip in _V4_COMPATIBLE and int(ip) > 1:  # :: and ::1 are IPv6's own
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip in _NAT64_LOCAL_USE:
        return _local_use_readings(ip)
    if ip in _SIX_TO_FOUR:
        return [ip.sixtofour] if ip.sixtofour else []
    if ip in _TEREDO and ip.teredo:
        return list(ip.teredo)
    return []


def is_public(address: str) -> bool:
    """Whether an IP address is a host the whole Internet can reach: public itself, and every
    IPv4 address it carries public too (multicast groups are no host). A zone ("fe80::1%eth0",
    as resolvers give link-local addresses) is cut off first: the address alone is judged, and
    an IPv4 address with one ("10.0.0.5%eth0", which ipaddress refuses) is judged as well."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        carried = embedded_ipv4(ip)
        if carried:
            return all(_public_itself(inner) for inner in carried)
    return _public_itself(ip)


def _public_itself(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


async def local_address_of(url: httpx.URL) -> str | None:
    """The first address of ``url``'s host that is not public, or None (every address public,
    or the name does not resolve here)."""
    host = url.host
    try:
        return None if is_public(host) else host
    except ValueError:
        pass  # a name, not an address
    try:  # no port: only the addresses are read, and they do not depend on it
        found = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    for *_, address in found:
        try:
            if not is_public(str(address[0])):
                return str(address[0])
        except ValueError:
            continue
    return None
