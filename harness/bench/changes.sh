#!/usr/bin/env bash
# What each change bought (`make bench-changes`): a release `modyo-mcp` for every line of
# harness/bench/changes.txt (`commit | cargo flags | label`), then one `modyo-lab bench` run
# with each build as a `--variant`, so reports/performance.md compares them on the projection
# against the floor, measured together. The builds share target/ with the tree's own release
# build (the dependencies compile once); only modyo-mcp compiles per line, each copied to
# target/bench-changes/<n>/. Extra arguments go to `modyo-lab bench`.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
cargo=${CARGO:-cargo}
list=${CHANGES_LIST:-harness/bench/changes.txt}
out=target/bench-changes
mkdir -p "$out"
variants=()
n=0
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$1"; }
while IFS='|' read -r ref flags label; do
    ref=$(trim "$ref")
    case "$ref" in '' | '#'*) continue ;; esac
    flags=$(trim "$flags")
    label=$(trim "$label")
    n=$((n + 1))
    if [ "$ref" = . ]; then
        dir=$root
        name=$(git describe --always --dirty)
    else
        # The same path for every commit: cargo reuses what it compiled for the last one.
        dir=$out/src
        rm -rf "$dir"
        mkdir -p "$dir"
        git archive "$ref" | tar -x -C "$dir"
        name=$(git rev-parse --short "$ref")
    fi
    echo "bench-changes: building $label ($name${flags:+, $flags})" >&2
    # shellcheck disable=SC2086 # the flags are words
    # `-p modyo-lab` too, though only the server's binary is built: the packages selected decide
    # the dependencies' features, and selecting the same two as the tree's own build below
    # keeps every dependency compiled once for all lines.
    (cd "$dir" && $cargo build --release --locked -q -p modyo-mcp -p modyo-lab --bin modyo-mcp \
        --target-dir "$root/target" $flags)
    mkdir -p "$out/$n"
    cp target/release/modyo-mcp "$out/$n/modyo-mcp"
    variants+=(--variant "$label ($name${flags:+, $flags})=$out/$n/modyo-mcp")
done <"$list"
# The tree's own build last: target/release/modyo-mcp is this tree's again.
$cargo build --release --locked -q -p modyo-mcp -p modyo-lab
exec target/release/modyo-lab bench "${variants[@]}" "$@"
