#!/usr/bin/env bash
# Set up voxmem on a fresh Debian machine: system packages, .venv, pinned Python
# dependencies, shipped model weights, an editable install, and a load check.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  ffmpeg sox libsndfile1
  espeak-ng flite festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts
  pocketsphinx-testdata sound-theme-freedesktop alsa-utils
  chromium
  postgresql
)
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.voxmem-requirements
want=$(cat requirements/*.txt pyproject.toml | sha256sum | cut -d' ' -f1)
installed=0
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  installed=1
  echo "setup: installing Python dependencies (first run takes several minutes)"
  .venv/bin/python -m pip install -q --upgrade pip
  # --no-compile: pip would byte-compile all of the stack's 8 GB (about two of the
  # install's minutes here); Python compiles what is imported, once, the load check
  # below most of it
  .venv/bin/pip install -q --no-compile -r requirements/base.txt -r requirements/dev.txt
  .venv/bin/pip install -q --no-compile --no-deps -r requirements/nodeps.txt
  .venv/bin/pip install -q --no-compile --no-deps -e .
  echo "$want" > "$stamp"
fi

# Final check, offline. After an install: import the stack and load each default
# model once. Otherwise only check that every role still resolves.
if ((installed)); then
  HF_HUB_OFFLINE=1 .venv/bin/voxmem doctor
else
  HF_HUB_OFFLINE=1 .venv/bin/voxmem doctor --no-load
fi
