#!/bin/sh
# The lab installed alone, as another team would: `cargo install` of the modyo-lab package
# into a fresh root, then run from an empty directory with nothing of this repository around
# it (no reports/, cassettes/ or budget.json in reach) on a server that is not Modyo's
# (tests/python/verdict_pair.py, Python's standard library only). It must measure the pair,
# give the verdict, and write reports that carry no Modyo wording: no link to our clients.md,
# no "our instructions", nothing that names Modyo. `make lab-install` runs it; `make test`
# runs that target, so CI checks the documented install from a clean directory.
#
# The documented command installs from git (`cargo install --locked --git URL modyo-lab`);
# CI has no network but the registries, so this installs the same package from this checkout
# with `--path`. CARGO_TARGET_DIR is this repository's target/ so the dependencies already
# compiled by `make test` are reused, and `--debug` keeps that build's profile.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

CARGO_TARGET_DIR="$repo/target" "${CARGO:-cargo}" install --quiet --locked --debug \
  --path "$repo/harness" --root "$work/root" modyo-lab
lab="$work/root/bin/modyo-lab"
test -x "$lab"

pair="$repo/tests/python/verdict_pair.py"
cat > calls.json <<'JSON'
[
  {"tool": "shelf_list"},
  {"name": "find", "tool": "shelf_find", "arguments": {"query": "glaciers"}},
  {"tool": "shelf_count"}
]
JSON

"$lab" measure --name pair --calls calls.json --reports out \
  --before "$python $pair v1" --after "$python $pair v2"
"$lab" diff --name pair --calls calls.json --markdown verdict.md --json verdict.json \
  --base-server "$python $pair v1" --head-server "$python $pair v2" > verdict.out

for file in out/pair.md out/pair.json out/pair-session.svg out/pair-catalogue.svg \
  out/pair-tools.svg out/pair-calls.svg verdict.md verdict.json; do
  test -s "$file" || { echo "lab-install: $file was not written" >&2; exit 1; }
done
grep -q "shelf_find" verdict.md || { echo "lab-install: the verdict does not name the tool that moved" >&2; cat verdict.md >&2; exit 1; }
cmp -s verdict.md verdict.out || { echo "lab-install: stdout and --markdown differ" >&2; exit 1; }

# Modyo wording: the product's name (the lab's own name, modyo-lab, is allowed where it says
# which tool wrote the file), a link to clients.md, "our instructions" or "our server".
if sed 's/modyo-lab//g' out/* verdict.md verdict.json | grep -n -i -E 'modyo|clients\.md|our (instructions|server)' >&2; then
  echo "lab-install: another server's reports carry Modyo wording (lines above)" >&2
  exit 1
fi
ls "$work" | sort > listing
printf 'calls.json\nlisting\nout\nroot\nverdict.json\nverdict.md\nverdict.out\n' | cmp -s - listing || {
  echo "lab-install: the lab wrote outside what it was asked to:" >&2; cat listing >&2; exit 1; }
echo "lab-install: installed alone into a fresh root; measure and diff ran from an empty directory; no Modyo wording"
