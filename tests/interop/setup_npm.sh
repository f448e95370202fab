#!/usr/bin/env bash
# Installs the interop tests' npm clients (package.json beside this script, versions pinned
# exactly) into BUILD_DIR/interop-npm and copies the test scripts next to them, so that node
# resolves the packages from there. Never writes into the source tree. Idempotent: npm runs only
# when package.json changed; concurrent callers wait on a lock.
#   setup_npm.sh BUILD_DIR
# Exit 0 when ready; 77 when Node >= 20 or the npm registry is not available (the tests then skip,
# or fail under CI=true).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$1/interop-npm"
dest="$(cd "$1/interop-npm" && pwd)"  # absolute: npm runs in it, its log is written from there

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "interop: node and npm are not installed" >&2
  exit 77
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "interop: node-llama-cpp needs Node >= 20, this is $(node --version)" >&2
  exit 77
fi

exec 9>"$dest/.lock"
flock 9
cp "$here"/*.mjs "$dest/"
if ! cmp -s "$here/package.json" "$dest/package.json" || [ ! -f "$dest/.installed" ]; then
  rm -f "$dest/.installed"
  cp "$here/package.json" "$dest/package.json"
  # --omit=optional leaves out node-llama-cpp's 650 MB of GPU builds; the CPU build is a direct
  # dependency. No lock file: the direct dependencies are pinned exactly.
  if ! (cd "$dest" && npm install --omit=optional --no-package-lock --no-audit --no-fund \
          --loglevel=error >"$dest/npm.log" 2>&1); then
    echo "interop: npm install failed (no npm registry?): $(tail -n 3 "$dest/npm.log")" >&2
    exit 77
  fi
  touch "$dest/.installed"
fi
