#!/usr/bin/env bash
# Regenerates capi/include/flipgc.h from capi/src with cbindgen (installed on
# demand). The header is checked in: run this after changing the C API, and
# commit the result. `--check` fails if the checked-in header is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cbindgen >/dev/null || cargo install cbindgen --locked
mkdir -p capi/include
out=capi/include/flipgc.h
if [ "${1:-}" = "--check" ]; then
  tmp=$(mktemp)
  cbindgen --config capi/cbindgen.toml --crate flipgc-capi --output "$tmp" capi
  # `if`, not `&&`: under `set -e` a failed command on the left of `&&` does
  # not stop the script, so `diff ... && echo` let a stale header pass.
  if ! diff -u "$out" "$tmp"; then
    rm -f "$tmp"
    echo "capi/include/flipgc.h is stale: run scripts/capi-header.sh and commit it" >&2
    exit 1
  fi
  rm -f "$tmp"
  echo "capi/include/flipgc.h is current"
else
  cbindgen --config capi/cbindgen.toml --crate flipgc-capi --output "$out" capi
  echo "wrote $out"
fi
