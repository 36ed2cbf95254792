"""voxmem.retrievers: instructions to plans to ranked turns; baselines; metrics."""
