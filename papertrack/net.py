"""The one HTTP GET of papertrack, for ``ingest URL`` and ``fetch``.

Every request has limits a misbehaving server cannot stretch:

* ``timeout`` bounds each wait for the server (connecting, every read);
* ``deadline`` bounds the whole request, headers and body included: a server that
  sends one byte every two seconds never times out a read, but it runs into the
  deadline (without one, the headers still have twice ``timeout`` to come);
* ``min_rate`` is the deadline of long downloads (a 4 GB snapshot): after
  :data:`RATE_GRACE` seconds the average speed must stay above it;
* bodies read whole are capped (``limit``), redirects are followed only on the
  same host (at most :data:`MAX_REDIRECTS`), and a name that does not resolve or a
  refused connection fails at once instead of being retried (a name lookup that
  failed for the moment, EAI_AGAIN, as when the network is not up yet, is retried).

Requests go through the proxy that ``http_proxy``/``https_proxy`` (or the system's
settings, as :func:`urllib.request.getproxies` reads them) name, except for hosts
``no_proxy`` names and the loopback addresses; an https request tunnels through it
(CONNECT). A user name and password in the URL (``https://user:pass@host/...``) or in
the proxy's are sent as HTTP Basic authentication, to that host or proxy alone.

Everything a server says (reason phrase, body, Location) is untrusted: it reaches a
message only through :func:`papertrack.text.visible` and cut short.
"""

from __future__ import annotations

import http.client
import io
import re
import socket
import ssl
import threading
import time
import urllib.parse
from email.message import Message
from typing import Any

from papertrack import __version__
from papertrack.text import shorten, visible

USER_AGENT = (
    f"papertrack/{__version__} (arXiv paper tracker; https://pypi.org/project/arxiv-papertrack/)"
)
MAX_REDIRECTS = 5
#: Seconds a long download may take to get up to speed before ``min_rate`` applies.
RATE_GRACE = 30.0
_CHUNK = 64 * 1024


class NetError(OSError):
    """A request that failed; ``reason`` is for people, ``retryable`` says whether to try again."""

    def __init__(self, reason: str, retryable: bool, slow: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        #: The body was arriving, but not whole within the deadline.
        self.slow = slow


def without_password(url: str) -> str:
    """``url`` with any password in it shown as ``***``: a URL is printed and logged.

    So are the values of query parameters named like a secret (a mirror's
    ``?key=...``, ``token``, ``api_key``, ``sig``): written to the log in clear, a
    key was kept there for anyone who reads it.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        # Not a URL Python can split ("http://u:pw@[::1/api?key=..."), which an error
        # names: its password and its secret query values hidden all the same.
        head, mark, query = _USERINFO.sub(r"\1:***@", url).partition("?")
        return head + mark + _SECRET_VALUE.sub(r"\g<1>***", query)
    if parts.password is not None:
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    if parts.query:
        parts = parts._replace(query=_SECRET_VALUE.sub(r"\g<1>***", parts.query))
    return urllib.parse.urlunsplit(parts)


#: A user name and password at the start of a URL: "scheme://user" kept, the password
#: (up to the last "@" before the path) hidden.
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*):[^/?#]*@")

#: A query parameter whose value is a secret: its name, "=", and the value up to "&".
_SECRET_VALUE = re.compile(
    r"((?:^|&)(?:[\w.-]*[_-])?(?:key|apikey|token|secret|password|passwd|pwd|sig|"
    r"signature|auth)=)[^&]*",
    re.IGNORECASE,
)


def said_url(url: str, width: int = 60) -> str:
    """A URL made safe to quote in a message: :func:`said`, its password hidden."""
    return said(without_password(url), width)


def said(text: object, width: int = 60) -> str:
    """What a server said, made safe to quote in a message."""
    return shorten(visible(text), width)


class Response(io.RawIOBase):
    """An open response: ``status``, ``reason``, ``headers`` and the body as a stream."""

    def __init__(
        self,
        conn: http.client.HTTPConnection,
        raw: http.client.HTTPResponse,
        url: str,
        *,
        timeout: float,
        deadline: float | None,
        min_rate: float | None,
    ) -> None:
        super().__init__()
        self._conn = conn
        self._raw = raw
        self.url = url
        self.status = raw.status
        self.reason = said(raw.reason)
        self.headers: Message = raw.headers
        self._timeout = timeout
        self._deadline = deadline
        self._min_rate = min_rate
        self._started = time.monotonic()
        self._read = 0

    def readable(self) -> bool:
        return True

    def _check_time(self) -> None:
        now = time.monotonic()
        if self._deadline is not None and now >= self._deadline:
            raise self._too_slow()
        elapsed = now - self._started
        if self._min_rate is not None and elapsed > RATE_GRACE:
            if self._read / elapsed < self._min_rate:
                raise NetError(
                    f"{self._host()} sends too slowly ({self._read / elapsed:.0f} bytes/s)",
                    retryable=True,
                )
        # Each read waits at most until the deadline (and never longer than timeout).
        wait = self._timeout
        if self._deadline is not None:
            wait = max(0.01, min(wait, self._deadline - now))
        if self._conn.sock is not None:
            self._conn.sock.settimeout(wait)

    def _too_slow(self) -> NetError:
        """The deadline passed while the body came: "a timeout reading" read as a
        server gone silent, and waiting between tries would not help."""
        if not self._read:
            return NetError(
                f"no whole answer from {self._host()} in time", retryable=True, slow=True
            )
        came = f"{self._read:,} bytes" if self._read < 1024 else f"{self._read / 1024:,.0f} KB"
        return NetError(
            f"a page too slow to arrive whole in the time allowed ({came} came)",
            retryable=True,
            slow=True,
        )

    def _host(self) -> str:
        return said(urllib.parse.urlsplit(self.url).hostname or self.url)

    def readinto(self, buffer: Any) -> int:
        self._check_time()
        try:
            data = self._raw.read1(min(len(buffer), _CHUNK))
        except TimeoutError:
            if self._deadline is not None and time.monotonic() >= self._deadline:
                raise self._too_slow() from None
            raise NetError(f"a timeout reading from {self._host()}", retryable=True) from None
        except (OSError, http.client.HTTPException) as exc:
            raise NetError(
                f"a dropped connection ({exc.__class__.__name__}) from {self._host()}",
                retryable=True,
            ) from None
        n = len(data)
        buffer[:n] = data
        self._read += n
        return n

    def read_body(self, limit: int) -> bytes:
        """The whole body, or at most ``limit`` + 1 bytes (the caller refuses that many)."""
        parts: list[bytes] = []
        size = 0
        buffer = bytearray(_CHUNK)
        while size <= limit:
            n = self.readinto(buffer)
            if not n:
                break
            parts.append(bytes(buffer[:n]))
            size += n
        return b"".join(parts)[: limit + 1]

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            self._conn.close()
        super().close()


#: What a URL's path and query keep as they are when the rest is percent-encoded.
_PATH_SAFE = "/%:@!$&'()*+,;=~"
_QUERY_SAFE = _PATH_SAFE + "?[]"  # the API query keeps its brackets literal


def _split(url: str, what: str = "") -> urllib.parse.SplitResult:
    """``url`` split, or a NetError when it cannot be (a port past 65535, a broken
    IPv6 address), whether a user typed it or a server sent it as a redirect
    (``what``: "it redirects to") or a proxy setting names it (``what``: the setting).
    Its password is never said: a typo that breaks a mirror's or a proxy's URL put
    the password in cron mail and the log."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises for a port out of range
    except ValueError as exc:
        shown = said_url(url)
        if what.startswith("it "):
            named = f"{what} {shown}, which is"
        else:
            named = f"{what} {shown} is" if what else f"{shown} is"
        raise NetError(f"{named} not a valid URL ({exc})", retryable=False) from None
    return parts


def _basic(user: str | None, password: str | None) -> str:
    """An HTTP Basic credential of a URL's user name and password."""
    import base64

    pair = f"{urllib.parse.unquote(user or '')}:{urllib.parse.unquote(password or '')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def proxy_for(parts: urllib.parse.SplitResult) -> urllib.parse.SplitResult | None:
    """The proxy a request to ``parts`` goes through, split, or None (none named,
    ``no_proxy`` names the host, or the host is this machine)."""
    import ipaddress
    import urllib.request

    host = parts.hostname or ""
    try:
        if host == "localhost" or ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    setting = f"the {parts.scheme}_proxy setting"
    split = _split(proxy if "://" in proxy else f"http://{proxy}", setting)
    if not split.hostname:
        # 'http://user:pw@' named "the proxy None" in a resolver's error.
        raise NetError(
            f"{setting} {said_url(proxy)} names no host. Fix it, or unset it", retryable=False
        )
    return split


def _connection(
    parts: urllib.parse.SplitResult,
    timeout: float,
    proxy: urllib.parse.SplitResult | None = None,
) -> http.client.HTTPConnection:
    host = parts.hostname or ""
    if proxy is not None:
        through = proxy.hostname or ""
        if parts.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                through, proxy.port or 80, timeout=timeout, context=ssl.create_default_context()
            )
            auth = {"Proxy-Authorization": _basic(proxy.username, proxy.password)}
            conn.set_tunnel(host, parts.port or 443, headers=auth if proxy.username else None)
            return conn
        return http.client.HTTPConnection(through, proxy.port or 80, timeout=timeout)
    if parts.scheme == "https":
        return http.client.HTTPSConnection(
            host, parts.port, timeout=timeout, context=ssl.create_default_context()
        )
    return http.client.HTTPConnection(host, parts.port, timeout=timeout)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _port(parts: urllib.parse.SplitResult) -> int | None:
    """The port ``parts`` connects to: the one written, or its scheme's own."""
    return parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())


def same_port(first: urllib.parse.SplitResult, moved: urllib.parse.SplitResult) -> bool:
    """Whether a redirect from ``first`` to ``moved`` (on the same host) stays on its
    server: another port is another server, but a port written out that is the
    scheme's own is not (http://h/ to http://h:80/), nor is http on its own port to
    https on its own (80 to 443)."""
    if _port(moved) == _port(first):
        return True
    return _port(moved) == _DEFAULT_PORTS.get(moved.scheme.lower()) and _port(
        first
    ) == _DEFAULT_PORTS.get(first.scheme.lower())


class _Cutter:
    """Shuts a connection's socket when the request's deadline passes before its
    answer's headers have come.

    A socket timeout bounds each wait, so a server that sends its status line and
    headers a byte a second never times one out (http.client allows 64 KB a
    header line and 100 headers: hours). The body's reads check the deadline
    themselves (:class:`Response`); connecting, the TLS handshake and the headers
    are bounded by this timer, which shuts the socket so that the read waiting
    on it ends.
    """

    def __init__(self, conn: http.client.HTTPConnection, end: float) -> None:
        self.conn = conn
        self.fired = False
        self._lock = threading.Lock()
        self._done = False
        self._timer = self._arm(max(0.0, end - time.monotonic()))

    @staticmethod
    def too_slow(peer: str) -> NetError:
        """The error of a request cut for its headers."""
        return NetError(
            f"no answer from {peer} in time: its headers came too slowly",
            retryable=True,
            slow=True,
        )

    def _arm(self, seconds: float) -> threading.Timer:
        timer = threading.Timer(seconds, self._cut)
        timer.daemon = True
        timer.start()
        return timer

    def _cut(self) -> None:
        with self._lock:
            if self._done:
                return
            sock = self.conn.sock
            if sock is None:
                # Still looking up or connecting (each bounded by the timeout): look again.
                self._timer = self._arm(0.05)
                return
            self.fired = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        with self._lock:
            self._done = True
            self._timer.cancel()


def get(
    url: str,
    *,
    timeout: float,
    deadline: float | None = None,
    min_rate: float | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """GET ``url``; the response is open (its body unread), whatever its status.

    Args:
        timeout: seconds of each wait for the server.
        deadline: seconds for the whole request, body included (None: no bound but
            twice ``timeout`` for the answer's status line and headers).
        min_rate: bytes per second a long download must average after RATE_GRACE.

    Raises:
        NetError: no answer (``retryable`` says whether another try may succeed).
    """
    end = None if deadline is None else time.monotonic() + deadline
    first = _split(url)
    for _ in range(MAX_REDIRECTS + 1):
        parts = _split(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise NetError(f"{said_url(url)} is not an http(s) URL", retryable=False)
        host = said(parts.hostname)
        proxy = proxy_for(parts)
        # Who is connected to: the proxy, when there is one (its refusal is not the host's).
        peer = host if proxy is None else f"the proxy {said(proxy.hostname)}"
        conn = _connection(
            parts, timeout if end is None else min(timeout, deadline or timeout), proxy
        )
        # Percent-encoded as a browser would: a redirect to /café.xml or to a path
        # with a space in it is a valid request, not a crash or a retried "drop".
        path = urllib.parse.quote(parts.path or "/", safe=_PATH_SAFE)
        target = urllib.parse.urlunsplit(
            ("", "", path, urllib.parse.quote(parts.query, safe=_QUERY_SAFE), "")
        )
        sent = {"User-Agent": USER_AGENT, **(headers or {})}
        if parts.username is not None:  # redirects stay on this host
            sent["Authorization"] = _basic(parts.username, parts.password)
        if proxy is not None and parts.scheme == "http":
            # A plain-http proxy is asked for the whole URL (without the user name).
            netloc = parts.netloc.rpartition("@")[2]
            target = urllib.parse.urlunsplit((parts.scheme, netloc, target, "", ""))
            if proxy.username is not None:
                sent["Proxy-Authorization"] = _basic(proxy.username, proxy.password)
        # Without a deadline (a snapshot's body may take an hour), the answer's
        # headers still have twice the timeout to come whole.
        cutter = _Cutter(conn, end if end is not None else time.monotonic() + 2 * timeout)
        try:
            conn.request("GET", target, headers=sent)
            raw = conn.getresponse()
        except (UnicodeError, http.client.InvalidURL) as exc:
            # A host no name lookup can take (an empty or 64-character label).
            conn.close()
            raise NetError(
                f"{said_url(url)} is not a valid URL ({exc.__class__.__name__})", retryable=False
            ) from None
        except socket.gaierror as exc:
            conn.close()
            if exc.errno == getattr(socket, "EAI_AGAIN", None):
                # "Temporary failure in name resolution": a laptop's cron run just
                # after waking, before its network is up.
                raise NetError(f"could not resolve {peer} for now", retryable=True) from None
            raise NetError(
                f"could not resolve {peer}: no network, or a typo in the "
                f"{'URL' if proxy is None else 'proxy setting'}",
                retryable=False,
            ) from None
        except ConnectionRefusedError:
            conn.close()
            # With its port: a mirror's old port in config.toml was not to be seen.
            port = parts.port if proxy is None else proxy.port
            refused = f"{peer}:{port}" if port else peer
            raise NetError(f"{refused} refused the connection", retryable=False) from None
        except TimeoutError:
            conn.close()
            # slow: a longer --timeout is what may help ("arXiv kept answering a
            # timeout waiting for …" gave no hint of it).
            raise NetError(f"no answer from {peer} in time", retryable=True, slow=True) from None
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            if cutter.fired:
                raise _Cutter.too_slow(peer) from None
            if proxy is not None and str(exc).startswith("Tunnel connection failed"):
                # The proxy's answer to CONNECT: 407 (credentials), 403 (not allowed)...
                answer = said(str(exc).partition(":")[2].strip())
                raise NetError(
                    f"{peer} would not connect to {host} ({answer}). Check the proxy "
                    "setting (https_proxy) and its user name and password",
                    retryable=answer.startswith(("502", "503", "504")),
                ) from None
            raise NetError(
                f"a dropped connection ({exc.__class__.__name__}) from {peer}", retryable=True
            ) from None
        finally:
            cutter.cancel()
        if cutter.fired:  # the headers came just as the socket was shut
            conn.close()
            raise _Cutter.too_slow(peer)
        response = Response(conn, raw, url, timeout=timeout, deadline=end, min_rate=min_rate)
        if raw.status not in (301, 302, 303, 307, 308) or not raw.headers.get("Location"):
            return response
        response.close()
        try:
            location = urllib.parse.urljoin(url, raw.headers["Location"])
        except ValueError:
            location = raw.headers["Location"]  # _split says what is wrong with it
        moved = _split(location, "it redirects to")
        if moved.scheme.lower() not in ("http", "https"):
            raise NetError(
                f"{said_url(url)} redirects to {said(location)}, which is not an http(s) address. "
                "Check the URL",
                retryable=False,
            )
        if (moved.hostname or "").lower() != (first.hostname or "").lower():
            raise NetError(
                f"{said_url(url)} redirects to another host ({said(moved.hostname)}), which "
                "papertrack does not follow. Use that URL directly if you trust it",
                retryable=False,
            )
        if not same_port(first, moved):
            raise NetError(
                f"{said_url(url)} redirects to another port of its host ({said(location)}), "
                "which papertrack does not follow. Use that URL directly if you trust it",
                retryable=False,
            )
        if first.scheme.lower() == "https" and moved.scheme.lower() != "https":
            raise NetError(
                f"{said_url(url)} redirects from https to {said_url(location)}, which "
                "papertrack does not follow: the answer would come unencrypted",
                retryable=False,
            )
        url = location
    raise NetError(f"{said_url(url)} redirects more than {MAX_REDIRECTS} times", retryable=False)
