"""Rebuild some tenants' index collections after a forget, in a fresh process.

    python -m voxmem.memory.rebuild_child DATA_DIR CHROMA_PATH rebuild TENANT...

``rebuild`` recreates the tenants' collections from the catalog, then purges the
index. Run by ``Maintenance`` when a forget rebuilds rather than erases in place (a
forget of everything, a job resumed without the forgotten vectors, vectors still found
after an erase): a fresh process never held the forgotten vectors, so none can reach
the graph files it writes from its memory. It opens the catalog and the embedded index
only (no forget jobs are resumed here: the process that started this one owns them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voxmem.memory.audio_files import AudioFiles
from voxmem.memory.catalog import open_catalog
from voxmem.memory.index import ChromaIndex
from voxmem.memory.maintenance import Maintenance
from voxmem.settings import ChromaSettings, Settings


def main(argv: list[str]) -> int:
    data_dir, chroma_path, action, *tenants = argv
    root = Path(data_dir)
    # the catalog the parent uses: SQLite in the data folder, or what its environment names
    settings = Settings(data_dir=root)
    catalog = open_catalog(settings, root)
    index = ChromaIndex(ChromaSettings(path=Path(chroma_path)), Path(chroma_path))
    try:
        if action == "rebuild":
            # a rebuild reads vectors from the catalog only, never the audio
            Maintenance(catalog, index, AudioFiles(root), root).rebuild(tenants, purge=True)
        else:
            raise SystemExit(f"unknown action {action!r}: rebuild")
    finally:
        catalog.close()
        index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
