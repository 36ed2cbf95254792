"""voxmem.benchmarks: runners, data loaders, offline mini editions, voices."""
