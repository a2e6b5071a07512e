#!/usr/bin/env bash
# Checks (and where possible installs) what building and testing flipgc needs on a
# fresh machine: a Rust toolchain with rustfmt and clippy. Idempotent; prints what
# it finds. The toolchain itself cannot be downloaded here: it must be present.
set -euo pipefail
if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install a Rust toolchain (1.85 or newer) first" >&2
  exit 1
fi
for comp in rustfmt clippy; do
  if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null; then
      rustup component add "$comp" || { echo "setup: could not add $comp" >&2; exit 1; }
    else
      echo "setup: $comp is missing and rustup is not available" >&2
      exit 1
    fi
  fi
done
echo "setup: $(cargo --version), $(cargo fmt --version), $(cargo clippy --version)"
