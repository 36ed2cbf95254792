"""Rebuild some tenants' index collections and compact the index, in a fresh process.

    python -m voxmem.memory.rebuild_child DATA_DIR CHROMA_PATH TENANT...

Run by ``AudioMemory`` after a forget (see ``AudioMemory._rebuild_clean``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voxmem.memory.store import AudioMemory
from voxmem.settings import ChromaSettings, Settings


def main(argv: list[str]) -> int:
    data_dir, chroma_path, *tenants = argv
    settings = Settings(data_dir=Path(data_dir), chroma=ChromaSettings(path=Path(chroma_path)))
    memory = AudioMemory(settings)
    for tenant in tenants:
        memory.rebuild(tenant, _scrub_catalog=False)
    memory.index.compact()
    memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
