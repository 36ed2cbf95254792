"""Clear some tenants' index entries after a forget, in a fresh process.

    python -m voxmem.memory.rebuild_child DATA_DIR CHROMA_PATH rebuild TENANT...
    python -m voxmem.memory.rebuild_child DATA_DIR CHROMA_PATH erase TENANT  < segment ids

``rebuild`` recreates the tenants' collections from the catalog; ``erase`` overwrites
and deletes the given turns' entries (one id a line on standard input) so that their
vectors leave the graph files. Either way the index is purged after. Run by
``Maintenance`` after a forget: a fresh process loads the graphs with the setting
``erase`` sets, and a rebuilding one never held the forgotten vectors. It opens the
catalog and the embedded index only (no forget jobs are resumed here: the process
that started this one owns them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from voxmem.memory.audio_files import AudioFiles
from voxmem.memory.catalog import open_catalog
from voxmem.memory.entries import SegmentEntries
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
        elif action == "erase":
            (tenant,) = tenants
            ids = [line.strip() for line in sys.stdin if line.strip()]
            for space in SegmentEntries.spaces:
                index.erase(tenant, space, ids)
            index.purge()
        else:
            raise SystemExit(f"unknown action {action!r}: rebuild or erase")
    finally:
        catalog.close()
        index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
