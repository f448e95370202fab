# Installs the Debian packages gguffs needs, when any is missing. Sourced by scripts/*.
# Usage: ensure_packages pkg...   (defaults to the build and test set)

GGUFFS_PACKAGES=(cmake make g++ clang pkg-config libfuse3-dev fuse3 libfmt-dev libgtest-dev
  libbenchmark-dev bc nlohmann-json3-dev jq man-db attr libcurl4-openssl-dev nginx-light
  openssl curl)

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

# Configures and builds into the given folder (default build/) with extra cmake arguments.
build_into() {
  local dir="$1"
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}
