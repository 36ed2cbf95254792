"""Rebuild some tenants' index collections and purge the index, in a fresh process.

    python -m voxmem.memory.rebuild_child DATA_DIR CHROMA_PATH TENANT...

Run by ``Maintenance.rebuild_clean`` after a forget. It opens the catalog and the
embedded index only (no forget jobs are resumed here: the process that started
this one owns them).
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
    data_dir, chroma_path, *tenants = argv
    root = Path(data_dir)
    # the catalog the parent uses: SQLite in the data folder, or what its environment names
    settings = Settings(data_dir=root)
    catalog = open_catalog(settings, root)
    index = ChromaIndex(ChromaSettings(path=Path(chroma_path)), Path(chroma_path))
    # a rebuild reads vectors from the catalog only, never the audio
    Maintenance(catalog, index, AudioFiles(root), root).rebuild(tenants, purge=True)
    catalog.close()
    index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
