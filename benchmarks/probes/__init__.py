"""``benchmarks run probes``: each encoder measured on its own, in Dynamic-SUPERB's task format."""
