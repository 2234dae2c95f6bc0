#!/usr/bin/env bash
# Installs the PyPI packages the Python test suites use when they are missing (pip; with
# --break-system-packages where the system Python is externally managed).
#   scripts/ensure-python-packages.sh module=package …            installed with their dependencies
#   scripts/ensure-python-packages.sh --no-deps module=package …  installed alone
# `module` is what the suites import, checked without importing it.
set -euo pipefail

flags=()
if [ "${1:-}" = "--no-deps" ]; then flags+=(--no-deps); shift; fi
missing=()
for pair in "$@"; do
    module=${pair%%=*}
    python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$module') is None)" 2>/dev/null || missing+=("${pair#*=}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing missing Python packages: ${missing[*]}"
python3 -m pip install -q "${flags[@]}" "${missing[@]}" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "${flags[@]}" "${missing[@]}"
