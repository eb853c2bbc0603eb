#!/usr/bin/env bash
# Installs every Debian package ptec's build, tests and examples need. Idempotent: when all
# packages are already installed it does nothing (set PTEC_SETUP_FORCE=1 to run apt anyway).
set -euo pipefail

PACKAGES=(
  # Build tools.
  cmake ninja-build ccache g++ clang clang-format libclang-rt-14-dev
  # Libraries (DESIGN.md §13).
  libonnx-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  libdnnl-dev libeigen3-dev libzip-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libpthreadpool-dev
  # libzip's CMake package config checks that its tools exist.
  zipcmp zipmerge ziptool
  # Tests: real-architecture model generation and ONNX's conformance data.
  python3-onnx python3-numpy python3-torch python3-torchvision libonnx-testdata
  zip unzip
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 && -z "${PTEC_SETUP_FORCE:-}" ]]; then
  echo "setup: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]:-all packages}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${PACKAGES[@]}"
