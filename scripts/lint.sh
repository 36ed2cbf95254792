#!/usr/bin/env bash
# ruff (lint + format check) and mypy over the packages.
# mypy reads a mirror of the install layout (voxmem/<folder> symlinks) because the
# folders install under voxmem.* through package-dir, which mypy cannot follow.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check voxmem agent memory retrievers server benchmarks tests examples
.venv/bin/ruff format --check voxmem agent memory retrievers server benchmarks tests examples
tree=build/typecheck
rm -rf "$tree" && mkdir -p "$tree/voxmem"
for f in voxmem/*; do ln -s "$PWD/$f" "$tree/voxmem/$(basename "$f")"; done
for d in agent memory retrievers server benchmarks; do ln -s "$PWD/$d" "$tree/voxmem/$d"; done
(cd "$tree" && "$OLDPWD/.venv/bin/mypy" --config-file "$OLDPWD/pyproject.toml" -p voxmem)
