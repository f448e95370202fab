# Installs the Debian packages gguffs needs, when any is missing. Sourced by scripts/*.
# Usage: ensure_packages pkg...   (defaults to the build and test set)

# What the program needs to build and mount (scripts/demo installs only these): libcurl for
# remote models, libcrypto (libssl-dev) for SHA-256.
GGUFFS_PROGRAM_PACKAGES=(cmake make g++ pkg-config libfuse3-dev fuse3 libfmt-dev
  libcurl4-openssl-dev libssl-dev)
# Everything scripts/test needs: the program's, the compilers and test libraries, and the real
# clients of the interop tests (Debian's numpy and torch; the npm ones come from
# tests/interop/setup_npm.sh); nginx, openssl and python3 serve the remote tests, curl is the
# remote benchmark's peer.
GGUFFS_PACKAGES=("${GGUFFS_PROGRAM_PACKAGES[@]}" clang libgtest-dev libbenchmark-dev bc
  nlohmann-json3-dev jq man-db attr python3 python3-numpy python3-torch nginx-light openssl curl)

ensure_packages() {
  local wanted=("$@")
  [ ${#wanted[@]} -gt 0 ] || wanted=("${GGUFFS_PACKAGES[@]}")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Configures and builds into the given folder with extra cmake arguments. Every test package
# must be there (GGUFFS_REQUIRE_TESTS): a missing one fails the configure step.
build_into() {
  local dir="$1"
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGGUFFS_REQUIRE_TESTS=ON "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

# Installs the interop tests' npm clients into $1/interop-npm; fails loudly when it cannot.
ensure_npm_clients() {
  if ! tests/interop/setup_npm.sh "$1"; then
    echo "scripts/test: the interop clients (Node >= 20 and the npm packages of" \
      "tests/interop/package.json) could not be installed" >&2
    return 1
  fi
}
