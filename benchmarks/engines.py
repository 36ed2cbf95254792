"""Real engines on loopback, for the benchmarks and the tests: a PostgreSQL cluster
(Debian's binaries, a fresh cluster in a temporary folder, stopped at the end) and a
Chroma server (``chroma run``, which the chromadb package ships)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple


class PgServer(NamedTuple):
    url: str
    data: Path  # the cluster's files, to check that erased bytes are gone


def postgres_bin() -> Path | None:
    """The folder of the newest installed PostgreSQL's server binaries, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_major)
    return Path(found[-1]).parent if found else None


def _major(path: str) -> int:
    try:
        return int(Path(path).parts[-3])
    except ValueError:
        return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres() -> Iterator[PgServer]:
    """Start a throwaway cluster in a new temporary folder; yield its URL.

    initdb refuses to run as root, so as root the cluster belongs to the
    `postgres` user that Debian's package creates (and the folder sits
    directly under the system's temporary folder, where that user can reach it)."""
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed: run `bash scripts/setup.sh`")
    root = Path(tempfile.mkdtemp(prefix="voxmem-pg-"))
    data, sockets = root / "data", root / "sock"
    sockets.mkdir(parents=True, exist_ok=True)
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        for p in (root, sockets):
            os.chown(p, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*cmd: str) -> None:
        done = subprocess.run([*prefix, *cmd], capture_output=True, text=True, cwd=root)
        if done.returncode:
            raise RuntimeError(f"{Path(cmd[0]).name} failed: {done.stderr.strip()}")

    run(
        str(bindir / "initdb"),
        "-D",
        str(data),
        "-U",
        "voxmem",
        "--auth=trust",
        "-E",
        "UTF8",
        "--locale=C",
    )
    opts = f"-h 127.0.0.1 -p {port} -k {sockets} -c max_connections=200"
    run(
        str(bindir / "pg_ctl"),
        "-D",
        str(data),
        "-o",
        opts,
        "-l",
        str(root / "log"),
        "-w",
        "-t",
        "60",
        "start",
    )
    url = f"postgresql://voxmem@127.0.0.1:{port}/postgres"
    try:
        _wait(port)
        yield PgServer(url, data)
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            cwd=root,
        )
        shutil.rmtree(root, ignore_errors=True)


def _wait(port: int, timeout: float = 60.0, what: str = "PostgreSQL") -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout:.0f} s")


def fresh_database(server: PgServer, name: str | None = None) -> str:
    """A new, empty database on ``server`` (dropped first if it exists); its URL."""
    import uuid

    import psycopg

    name = name or f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url.rsplit("/", 1)[0] + "/" + name


@contextmanager
def chroma_server(path: Path | None = None) -> Iterator[str]:
    """``chroma run`` on a free loopback port with its data in ``path`` (default: a new
    temporary folder, removed after); yields its URL."""
    import sys

    own = path is None
    folder = Path(tempfile.mkdtemp(prefix="voxmem-chroma-")) if path is None else path
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen(
        [str(chroma), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(port, what="chroma run")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        if own:
            shutil.rmtree(folder, ignore_errors=True)
