#!/usr/bin/env bash
# Checks (and where possible installs) what building and testing flipgc needs on a
# fresh machine: a Rust toolchain with rustfmt and clippy, and (for CI's MSRV
# check) the toolchain of the minimum supported Rust version. Idempotent; prints
# what it finds. The main toolchain must be present; the MSRV one is installed
# with rustup when it is missing, and its absence (no network) is not an error:
# CI then skips the MSRV check and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install a Rust toolchain ($msrv or newer) first" >&2
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

# The MSRV toolchain (rust-version in Cargo.toml), for CI's `cargo +MSRV check`.
if ! command -v rustup >/dev/null; then
  echo "setup: rustup not available: the Rust $msrv toolchain cannot be installed (CI skips the MSRV check)"
elif rustup toolchain list | grep -q "^$msrv-"; then
  echo "setup: MSRV toolchain: $(rustup run "$msrv" rustc --version)"
elif timeout 600 rustup toolchain install "$msrv" --profile minimal; then
  echo "setup: MSRV toolchain installed: $(rustup run "$msrv" rustc --version)"
else
  echo "setup: could not install the Rust $msrv toolchain (no network?); CI skips the MSRV check" >&2
fi
