#!/bin/sh
# pi-usage against ccusage pi and rg on a generated store (N projects of
# tests/usage-ccusage/make-store.py's sessions, copied). Rough numbers only;
# the 10 000-session store of pi-ls is the issue's target workload.
#   CCUSAGE="node .../ccusage" N=300 bench/usage.sh
set -eu
N=${N:-300}
dir=${BENCH_DIR:-/tmp/pi-usage-bench}
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir/sessions"
python3 "$here/tests/usage-ccusage/make-store.py" "$dir/seed"
i=0
while [ $i -lt "$N" ]; do
  for p in "$dir"/seed/sessions/*; do cp -r "$p" "$dir/sessions/$(basename "$p")-$i"; done
  i=$((i + 1))
done
cargo build --release --locked --bin pi-usage >/dev/null
bin=${CARGO_TARGET_DIR:-$here/target}/release/pi-usage
t() { s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$(echo "$e - $s" | bc) s: $*"; }
t "$bin" daily --session-dir "$dir/sessions"
command -v rg >/dev/null && t rg -c '"usage"' "$dir/sessions"
[ -n "${CCUSAGE:-}" ] && t $CCUSAGE pi daily --offline --pi-path "$dir/sessions"
