"""A real governanced for the tests: the binary, on a copy of the real tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any, List, Optional


def required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(
            f"{name} is not set: these tests run against a real governanced. "
            "Run them with `go test -run TestPythonClient ./clients/python`, which builds "
            "the binary and sets GOVERNANCED_BIN and GOVERNANCED_TESTDATA."
        )
    return value


class Server:
    """``governanced serve`` on a copy of testdata/reference (the 17 CELINE
    pipelines and dataset-api's owners), which a test may edit."""

    def __init__(self, *args: str) -> None:
        binary = required_env("GOVERNANCED_BIN")
        reference = os.path.join(required_env("GOVERNANCED_TESTDATA"), "reference")
        self.dir = tempfile.mkdtemp(prefix="governanced-python-")
        self.tree = os.path.join(self.dir, "celine-pipelines")
        shutil.copytree(os.path.join(reference, "celine-pipelines"), self.tree)
        self.owners = os.path.join(self.dir, "owners.yaml")
        shutil.copyfile(os.path.join(reference, "dataset-api", "owners.yaml"), self.owners)
        self.proc = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "json", "--reload-debounce", "20ms",
             "--tree", self.tree, "--owners", self.owners, *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
        )
        self.log: List[str] = []
        listening = threading.Event()
        self.base = ""

        def read() -> None:
            assert self.proc.stderr is not None
            for raw in self.proc.stderr:
                line = raw.decode("utf-8", "replace")
                self.log.append(line)
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("message") == "listening" and entry.get("addr"):
                    self.base = "http://" + entry["addr"]
                    listening.set()

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        if not listening.wait(60):
            self.stop()
            raise RuntimeError("governanced did not listen within a minute:\n" + "".join(self.log))
        deadline = time.monotonic() + 60
        while not self._ready():
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("governanced was not ready within a minute:\n" + "".join(self.log))
            time.sleep(0.02)

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.base + "/readyz", timeout=5) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def get(self, path: str, accept: str = "application/json") -> Any:
        """The server's own answer, read without the client: (status, JSON)."""
        req = urllib.request.Request(self.base + path, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                body = resp.read()
                status = resp.status
        except urllib.error.HTTPError as e:
            with e:
                return e.code, json.loads(e.read())
        if accept == "application/x-ndjson":
            return status, [json.loads(line) for line in body.splitlines() if line.strip()]
        return status, json.loads(body)

    def edit(self, rel: str, old: str, new: str) -> None:
        path = os.path.join(self.tree, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise AssertionError(f"{rel} holds no {old!r}: the edit would change nothing")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    def stop(self) -> Optional[int]:
        """End the server as a deployment does (SIGTERM) and wait for it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def close(self) -> None:
        self.stop()
        self._reader.join(timeout=30)  # it ends at the closed pipe's end
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
