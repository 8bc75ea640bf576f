#!/usr/bin/env bash
# Installs SUNDIALS (Debian's libsundials-dev, CVODES 6.4) for the CVODES runners (feature
# `cvodes`), if its headers are missing. Needs root or sudo; it pulls in SUNDIALS' MPI and PETSc
# dependencies (~150 packages, once).
set -euo pipefail
if [[ -e /usr/include/cvodes/cvodes.h ]]; then exit 0; fi
as_root=()
if [[ $(id -u) != 0 ]]; then as_root=(sudo); fi
echo "installing libsundials-dev for the CVODES runners" >&2
"${as_root[@]}" apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends \
    libsundials-dev >&2
