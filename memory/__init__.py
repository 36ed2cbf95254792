"""voxmem.memory: the audio memory (records, catalog, vector index, encoders)."""
