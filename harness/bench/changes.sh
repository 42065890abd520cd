#!/usr/bin/env bash
# What each change bought (`make bench-changes`): a `modyo-mcp` for every line of
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
    # The release profile unless the flags name another (`--profile NAME`, which cargo does not
    # take with `--release`); the binary is where that profile puts it, target/<profile>/.
    # Release lines select `-p modyo-lab` too, though only the server's binary is built: the
    # packages selected decide the dependencies' features, and selecting the same two as the
    # tree's own release build below keeps every dependency compiled once for all lines. A line
    # of another profile (`dist`) builds the server package alone, as it is installed.
    built=release
    selection=(--release -p modyo-mcp -p modyo-lab --bin modyo-mcp)
    if [[ " $flags " =~ [[:space:]]--profile[=[:space:]]([A-Za-z0-9_-]+)[[:space:]] ]]; then
        built=${BASH_REMATCH[1]}
        selection=(-p modyo-mcp)
    fi
    # shellcheck disable=SC2086 # the flags are words
    (cd "$dir" && $cargo build "${selection[@]}" --locked -q --target-dir "$root/target" $flags)
    mkdir -p "$out/$n"
    cp "target/$built/modyo-mcp" "$out/$n/modyo-mcp"
    variants+=(--variant "$label ($name${flags:+, $flags})=$out/$n/modyo-mcp")
done <"$list"
# The tree's own builds last: target/release/ and target/dist/ hold this tree's again; the
# bench's own server is the installed build (`dist`), as in `make bench`.
$cargo build --release --locked -q -p modyo-mcp -p modyo-lab
$cargo build --profile dist --locked -q -p modyo-mcp
exec target/release/modyo-lab bench --server target/dist/modyo-mcp "${variants[@]}" "$@"
