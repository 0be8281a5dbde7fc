"""The watch against a server that ends its streams, as governanced does at
its longest stream duration: the client connects again after the stream's
retry and follows the revision each stream reports."""

from __future__ import annotations

import http.server
import threading
import unittest
from typing import Any, List

from governanced_client import RemoteGovernanceResolver
from governanced_client._transport import Transport


class EndingStreams(http.server.BaseHTTPRequestHandler):
    connections: List[int] = []
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 — the name http.server calls
        if self.path != "/events":
            self.send_error(404)
            return
        with self.lock:
            self.connections.append(1)
            n = len(self.connections)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        body = (
            "retry: 10\n\n: keep-alive\n\n"
            f'id: {n}\nevent: reload\ndata: {{"seq": {n}, "outcome": "activated", "ok": true,\n'
            f'data: "revision": "sha256:{n}", "previous": null}}\n\n'
            # A rejected reload: the revision served stays the previous one.
            f'event: reload\ndata: {{"seq": {n}, "outcome": "rejected", "ok": false, '
            f'"revision": "sha256:bad", "previous": "sha256:{n}"}}\n\n'
        )
        self.wfile.write(body.encode())
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


class ReconnectTest(unittest.TestCase):
    def test_reconnects_and_follows(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EndingStreams)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        r = RemoteGovernanceResolver(f"http://127.0.0.1:{server.server_address[1]}")
        self.addCleanup(r.close)
        seen = [r.wait_for_revision(None, timeout=60)]
        while len(seen) < 3:
            rev = r.wait_for_revision(seen[-1], timeout=60)
            self.assertIsNotNone(rev, "the watch did not connect again")
            seen.append(rev)
        for rev in seen:
            self.assertNotEqual(rev, "sha256:bad", "a rejected reload's revision is not served")
        self.assertEqual(len(set(seen)), 3)


class ServedTest(unittest.TestCase):
    """The revision a reload leaves served is the one the event says it
    serves: a reload that holds apps whose files fail serves a new revision
    though it is not ok."""

    def test_follows_served(self) -> None:
        t = Transport("http://127.0.0.1:1", None, timeout=1, cache_entries=8, watch=False)
        for event, want in [
            ('{"outcome": "activated", "ok": true, "revision": "sha256:a", "previous": null, "served": "sha256:a"}', "sha256:a"),
            ('{"outcome": "held", "ok": false, "revision": "sha256:b", "previous": "sha256:a", "served": "sha256:b",'
             ' "held": [{"app": "dwd", "since": "2025-01-01T00:00:00Z"}]}', "sha256:b"),
            ('{"outcome": "rejected", "ok": false, "revision": "sha256:c", "previous": "sha256:b", "served": "sha256:b"}', "sha256:b"),
            # A server that does not say: the examined revision when ok, else the previous.
            ('{"outcome": "rejected", "ok": false, "revision": "sha256:d", "previous": "sha256:e"}', "sha256:e"),
        ]:
            t._reload(event)
            self.assertEqual(t.watch.revision, want, event)


if __name__ == "__main__":
    unittest.main()
