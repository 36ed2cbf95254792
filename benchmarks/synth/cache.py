"""A content-addressed disk cache of rendered clips (FLAC), safe across processes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voxmem.audio import Audio, flac_bytes, load_audio, write_flac

# Bump when the rendering changes, so stale clips are not reused.
RENDER_VERSION = 1


class ClipCache:
    """Clips keyed by the JSON of everything that determines them."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def key(self, spec: dict[str, Any]) -> str:
        blob = json.dumps({"v": RENDER_VERSION, **spec}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.flac"

    def get_or_render(self, spec: dict[str, Any], render: Callable[[], Audio]) -> Audio:
        """The cached clip for ``spec``, rendering and storing it on a miss.

        A hit and a miss return identical samples: a miss returns the clip as
        read back from its FLAC encoding.
        """
        path = self.path(self.key(spec))
        if path.exists():
            return load_audio(path)
        audio = render()
        write_flac(audio, path)
        return load_audio(flac_bytes(audio))
