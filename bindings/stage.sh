#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the bindings' tests on the host and put them in DIR, for a guest
# whose root is the host's own (UML): DIR/python/ the module and its
# unittest tests, run there by /usr/bin/python3; DIR/rust/ the crate's
# `cargo test` binaries.  The crate builds offline against Debian's packaged
# crates (bindings/rust/cargo/config.toml), with Debian's cargo and rustc,
# into $TW_CACHE/cargo (cached: a rebuild after no change takes a second).
#
#   bindings/stage.sh DIR
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

dir=$1
tw_need python3 cargo rustc librust-libc-dev librust-mio-dev librust-tokio-dev \
	librust-futures-core-dev
rm -rf "$dir" && mkdir -p "$dir/python" "$dir/rust"
cp -r "$TW_ROOT/bindings/python/timingwheel.py" "$TW_ROOT/bindings/python/tests" "$dir/python/"

# Debian's toolchain, whatever rustup put first in PATH; cargo's home and
# target outside the tree.  The lock file (ignored by git) is made afresh
# from what Debian packages.
export CARGO_HOME=$TW_CACHE/cargo/home CARGO_TARGET_DIR=$TW_CACHE/cargo/target
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
mkdir -p "$CARGO_HOME"
cp "$TW_ROOT/bindings/rust/cargo/config.toml" "$CARGO_HOME/config.toml"
crate=$TW_ROOT/bindings/rust/timingwheel
# A lock file a newer cargo wrote (format 4) would stop Debian's.
rm -f "$crate/Cargo.lock"
if ! /usr/bin/cargo test --offline --no-run --manifest-path "$crate/Cargo.toml" \
	--message-format=json >"$TW_CACHE/cargo/build.json" 2>"$TW_CACHE/cargo/build.log"; then
	cat "$TW_CACHE/cargo/build.log" >&2
	tw_die "the Rust binding's tests do not build"
fi
# The test executables, from cargo's own account of what it built.
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") \
            and m.get("executable"):
        print(m["executable"])' "$TW_CACHE/cargo/build.json" | while read -r exe; do
	cp "$exe" "$dir/rust/"
done
n=$(find "$dir/rust" -type f | wc -l)
[ "$n" -gt 0 ] || tw_die "cargo built no test binary"
tw_log "bindings staged: $(/usr/bin/python3 --version), $n Rust test binaries ($(/usr/bin/rustc --version))"
