"""Bearer tokens -> tenants. Only sha256 digests of tokens are configured or stored;
a request's token is hashed and looked up, so a leaked configuration leaks no token."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from voxmem.memory.records import check_tenant

_HEX = re.compile(r"(?:sha256:)?([0-9a-f]{64})")
#: browsers cannot set headers on a websocket; they send the token as a subprotocol
#: (the Realtime API's browser convention)
SUBPROTOCOL_PREFIX = "openai-insecure-api-key."

log = logging.getLogger(__name__)


class TokenFileError(ValueError):
    """A token file line that is not ``<sha256 hex> <tenant>``."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random bearer token (shown once, then only its hash is kept)."""
    return "vxm_" + secrets.token_urlsafe(24)


class TokenTable:
    """Which tenant each token belongs to. One loaded from a token file reads the file
    again when it changes, so a token added (``voxmem token``) or removed while a server
    runs counts from the next connection; a file that no longer reads keeps the tokens
    it last gave, with a warning in the log, and a deleted file gives none."""

    def __init__(self, hashes: Mapping[str, str] | None = None) -> None:
        self._tenants: dict[str, str] = {}
        for digest, tenant in (hashes or {}).items():
            self.add_hash(digest, tenant)
        self._path: Path | None = None
        self._stamp: tuple[int, ...] | None = None
        self._unended: tuple[int, ...] | None = None
        self._from_file: dict[str, str] = {}

    def __len__(self) -> int:
        self._refresh()
        return len(self._tenants.keys() | self._from_file.keys())

    def add_hash(self, digest: str, tenant: str) -> None:
        self._tenants[_digest(digest)] = check_tenant(tenant)

    def add_token(self, token: str, tenant: str) -> None:
        self.add_hash(hash_token(token), tenant)

    def tenant(self, token: str | None) -> str | None:
        """The tenant of ``token``, or None for a missing or unknown token."""
        if not token:
            return None
        self._refresh()
        digest = hash_token(token)
        found = None
        for table in (self._tenants, self._from_file):  # the file's line wins
            for known, tenant in table.items():
                if hmac.compare_digest(known, digest):
                    found = tenant
        return found

    @classmethod
    def load(cls, path: str | Path, hashes: Mapping[str, str] | None = None) -> TokenTable:
        """A token file (``<sha256 hex> <tenant>`` per line, ``#`` comments) plus ``hashes``."""
        table = cls(hashes)
        table._path = Path(path)
        table._stamp = _stamp(table._path)
        table._from_file = _read_token_file(table._path)
        return table

    def _refresh(self) -> None:
        if self._path is None:
            return
        try:
            stamp = _stamp(self._path)
        except FileNotFoundError:
            if self._from_file:
                log.warning("the token file %s is gone: its tokens are refused", self._path)
            self._from_file, self._stamp = {}, None  # deleted: no token of it counts
            return
        except OSError as exc:
            log.warning("the token file cannot be read; its earlier tokens stay: %s", exc)
            return
        if stamp == self._stamp:
            return
        try:
            text = self._path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("the token file no longer reads; its earlier tokens stay: %s", exc)
            self._stamp = stamp
            return
        if text and not text.endswith("\n"):
            # a line being written (or saved with no newline after it): read again at
            # the next request, and counted once the line ends
            if stamp != self._unended:
                self._unended = stamp
                log.warning("the token file's last line has no newline; it counts once ended")
            return
        self._stamp = stamp
        try:
            self._from_file = _parse_token_file(self._path, text)
        except TokenFileError as exc:
            log.warning("the token file no longer reads; its earlier tokens stay: %s", exc)


def _digest(digest: str) -> str:
    m = _HEX.fullmatch(digest.strip().lower())
    if m is None:
        raise TokenFileError(
            f"{digest[:12]!r}... is not a sha256 hex digest; store hashes, not tokens "
            "(voxmem token TENANT --file FILE makes one)"
        )
    return m.group(1)


def _stamp(path: Path) -> tuple[int, ...]:
    # the inode and the change time too: a file put back with its old modification
    # time (cp -p, rsync -t), or changed within one tick at the same size, is seen
    st = path.stat()
    return st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size


def _read_token_file(path: Path) -> dict[str, str]:
    return _parse_token_file(path, path.read_text())


def _parse_token_file(path: Path, text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise TokenFileError(f"{path}:{n}: expected '<sha256 hex> <tenant>', got {line!r}")
        try:
            out[_digest(parts[0])] = check_tenant(parts[1])
        except ValueError as exc:
            raise TokenFileError(f"{path}:{n}: {exc}") from None
    return out


def bearer(authorization: str | None, subprotocols: str | None) -> str | None:
    """The token a request carries: ``Authorization: Bearer`` or the browser subprotocol."""
    if authorization:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    for proto in (subprotocols or "").split(","):
        proto = proto.strip()
        if proto.startswith(SUBPROTOCOL_PREFIX):
            return proto[len(SUBPROTOCOL_PREFIX) :] or None
    return None


def append_token_line(path: Path, token: str, tenant: str) -> None:
    """Add a token's hash for ``tenant`` to a token file (created 0600 if missing)."""
    check_tenant(tenant)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.touch(mode=0o600)
    with path.open("a") as f:
        f.write(f"{hash_token(token)} {tenant}\n")
