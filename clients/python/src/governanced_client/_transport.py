"""Requests to governanced: the ETag cache, the watch of its reloads, stale answers."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from .errors import (
    AmbiguousDataset,
    DatasetNotFound,
    GovernancedError,
    NotFound,
    ServerUnavailable,
)

logger = logging.getLogger("governanced_client")

#: How long the watch waits before it connects again when the stream did
#: not say (its ``retry`` field), and the shortest and longest it waits
#: whatever the stream says.
DEFAULT_RETRY = 3.0
MIN_RETRY = 0.1
MAX_RETRY = 300.0


@dataclass(frozen=True)
class Answer:
    """One answer of the server: the JSON body, the revision it was derived
    from, and whether it came from the cache because the server could not be
    asked."""

    body: Any
    revision: str
    stale: bool


@dataclass(frozen=True)
class _Entry:
    etag: str
    revision: str
    body: bytes


class _Cache:
    """The last answer of each request, the least recently used dropped first."""

    def __init__(self, max_entries: int) -> None:
        self._max = max_entries
        self._entries: "OrderedDict[str, _Entry]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Optional[_Entry]:
        with self._lock:
            e = self._entries.get(key)
            if e is not None:
                self._entries.move_to_end(key)
            return e

    def put(self, key: str, e: _Entry) -> None:
        if self._max <= 0:
            return
        with self._lock:
            self._entries[key] = e
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)


class _Watch:
    """What the server last reported over ``GET /events``: the revision it
    serves, and whether a stream follows it now. Waiters are woken on every
    change."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.revision: Optional[str] = None
        self.live = False

    def set(self, *, revision: Optional[str] = None, live: bool) -> None:
        with self._cond:
            changed = live != self.live or (revision is not None and revision != self.revision)
            if revision is not None:
                self.revision = revision
            self.live = live
            if changed:
                self._cond.notify_all()

    def current(self, revision: str) -> bool:
        with self._cond:
            return self.live and bool(revision) and revision == self.revision

    def wait(self, predicate: Callable[[Optional[str], bool], bool], timeout: Optional[float]) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self.revision, self.live), timeout)


class Transport:
    """GETs answered from the cache when the watch says they are current,
    asked again with If-None-Match otherwise, and answered stale from the
    cache (with a logged warning) when the server cannot be reached."""

    def __init__(
        self,
        base_url: str,
        token: Optional[str],
        *,
        timeout: float,
        cache_entries: int,
        watch: bool,
        idle_timeout: float = 60.0,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url {base_url!r}: want http(s)://host[:port][/prefix]")
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._idle = idle_timeout
        self._cache = _Cache(cache_entries)
        self.watch = _Watch()
        self._stale = False
        self._stale_warned = 0.0
        self._stale_count = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._stream_sock: Optional[socket.socket] = None
        self._thread: Optional[threading.Thread] = None
        if watch:
            self._thread = threading.Thread(target=self._follow, name="governanced-watch", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ reads

    @property
    def stale(self) -> bool:
        """Whether the last answer that needed the server came from the cache."""
        with self._lock:
            return self._stale

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        u = self.base_url + path
        if query:
            u += "?" + urllib.parse.urlencode(query, doseq=True)
        return u

    def headers(self) -> Dict[str, str]:
        h = {"User-Agent": "governanced-client-python"}
        if self._token:
            h["Authorization"] = "Bearer " + self._token
        return h

    def get(self, path: str, query: Optional[Mapping[str, Any]] = None, *, accept: str = "application/json") -> Answer:
        """GET a tree-derived answer, through the cache."""
        url = self.url(path, query)
        key = accept + " " + url
        cached = self._cache.get(key)
        if cached is not None and self.watch.current(cached.revision):
            return Answer(_decode(cached.body, accept), cached.revision, False)
        headers = self.headers()
        headers["Accept"] = accept
        if cached is not None:
            headers["If-None-Match"] = cached.etag
        req = urllib.request.Request(url, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                body = resp.read()
                etag = resp.headers.get("ETag")
                revision = resp.headers.get("Governance-Revision") or ""
        except urllib.error.HTTPError as e:
            with e:
                if e.code == 304 and cached is not None:
                    self._answered()
                    return Answer(_decode(cached.body, accept), cached.revision, False)
                if e.code in (502, 503, 504) and cached is not None:
                    return self._stale_answer(cached, accept, url, f"{e.code} {e.reason}")
                raise problem_error(e) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            if cached is not None:
                return self._stale_answer(cached, accept, url, str(getattr(e, "reason", e)))
            raise ServerUnavailable(f"governanced at {self.base_url} cannot be reached ({getattr(e, 'reason', e)}) and has not answered {url} before") from e
        value = _decode(body, accept)
        if etag:
            self._cache.put(key, _Entry(etag, revision, body))
        self._answered()
        return Answer(value, revision, False)

    def post(self, path: str, body: bytes, content_type: str, query: Optional[Mapping[str, Any]] = None) -> Any:
        headers = self.headers()
        headers["Content-Type"] = content_type
        req = urllib.request.Request(self.url(path, query), data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            with e:
                raise problem_error(e) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            raise ServerUnavailable(f"governanced at {self.base_url} cannot be reached: {getattr(e, 'reason', e)}") from e

    def _answered(self) -> None:
        with self._lock:
            if self._stale:
                logger.info("governanced at %s answers again", self.base_url)
            self._stale = False
            self._stale_count = 0

    def _stale_answer(self, e: _Entry, accept: str, url: str, why: str) -> Answer:
        """The cached answer, logged: a warning when the server is first
        found gone, then at most one every 30 seconds while it stays gone."""
        now = time.monotonic()
        with self._lock:
            self._stale = True
            self._stale_count += 1
            warn = now - self._stale_warned >= 30.0 or self._stale_count == 1
            if warn:
                self._stale_warned = now
                count = self._stale_count
        if warn:
            logger.warning(
                "governanced at %s cannot be asked (%s): answering %s from the cache, stale, of revision %s (%d stale answers so far)",
                self.base_url, why, url, e.revision, count,
            )
        return Answer(_decode(e.body, accept), e.revision, True)

    # ------------------------------------------------------------------ watch

    def close(self) -> None:
        """Stop following the server's reloads."""
        self._closed.set()
        sock = self._stream_sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _follow(self) -> None:
        retry = DEFAULT_RETRY
        while not self._closed.is_set():
            try:
                retry = self._stream(retry)
            except Exception as e:  # noqa: BLE001 — any failure of a stream is a reason to connect again
                logger.debug("the event stream of %s ended: %s", self.base_url, e)
            self.watch.set(live=False)
            self._closed.wait(max(retry, MIN_RETRY))

    def _stream(self, retry: float) -> float:
        """Read one ``GET /events`` stream until it ends; returns the retry
        delay the stream asked for."""
        parsed = urllib.parse.urlsplit(self.base_url)
        conn_cls = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(parsed.netloc, timeout=self._idle)
        try:
            headers = self.headers()
            headers["Accept"] = "text/event-stream"
            conn.request("GET", parsed.path.rstrip("/") + "/events", headers=headers)
            self._stream_sock = conn.sock
            if self._closed.is_set():
                return retry
            resp = conn.getresponse()
            if resp.status != 200:
                after = resp.getheader("Retry-After")
                resp.read()
                if after and after.isdigit():
                    retry = min(max(retry, float(after)), MAX_RETRY)
                raise GovernancedError(f"GET /events answered {resp.status}", status=resp.status)
            event = ""
            data: List[str] = []
            while not self._closed.is_set():
                raw = resp.readline()  # the idle timeout: a vanished peer is a lost stream
                if not raw:
                    return retry  # the server ended the stream
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if event == "reload" and data:
                        self._reload("\n".join(data))
                    event, data = "", []
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "event":
                    event = value
                elif name == "data":
                    data.append(value)
                elif name == "retry" and value.isdigit():
                    retry = min(int(value) / 1000.0, MAX_RETRY)
            return retry
        finally:
            self._stream_sock = None
            conn.close()

    def _reload(self, data: str) -> None:
        try:
            ev = json.loads(data)
        except ValueError:
            return
        if "served" in ev:  # what the server serves after the reload, whatever it did
            served = ev["served"]
        else:
            served = ev.get("revision") if ev.get("ok") else ev.get("previous")
        if served:
            self.watch.set(revision=served, live=True)


def _decode(body: bytes, accept: str) -> Any:
    if accept == "application/x-ndjson":
        return [json.loads(line) for line in body.splitlines() if line.strip()]
    return json.loads(body)


def problem_error(e: urllib.error.HTTPError) -> GovernancedError:
    """The exception for an error answer: its problem detail, as a class a
    caller can catch by meaning."""
    try:
        problem: Dict[str, Any] = json.loads(e.read())
        if not isinstance(problem, dict):
            raise ValueError
    except ValueError:
        problem = {"title": str(e.reason), "status": e.code}
    kind = str(problem.get("type", "")).partition("#problem-")[2]
    detail = problem.get("detail") or problem.get("title") or str(e.reason)
    message = f"governanced: {e.code} {detail}"
    if kind == "dataset-not-found":
        return DatasetNotFound(message, status=e.code, problem=problem)
    if e.code == 404:
        return NotFound(message, status=e.code, problem=problem)
    if kind == "ambiguous-dataset":
        return AmbiguousDataset(message, status=e.code, problem=problem)
    return GovernancedError(message, status=e.code, problem=problem)
