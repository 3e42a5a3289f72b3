#!/usr/bin/env bash
# Sourced by bench/ls.sh, bench/grep.sh and bench/usage.sh: the one
# generated store they all measure (bench/ls-gen.py: 10 000 sessions,
# ~2.3 GB, forks, version-1 files), made once under /tmp and never
# committed; the release build; the machine's description; medians.
#
#   BENCH_STORE=/tmp/pi-store SESSIONS=10000 RUNS=5
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STORE=${BENCH_STORE:-/tmp/pi-store}
SESSIONS=${SESSIONS:-10000}
RUNS=${RUNS:-5}
if [ ! -d "$STORE/sessions" ]; then
  # ~235 KB a session on average; ask for twice that free
  need=$((SESSIONS * 470 / 1000))
  avail=$(df -Pm "$(dirname "$STORE")" | awk 'NR==2 {print $4}')
  if [ "$avail" -lt "$need" ]; then
    echo "bench: $avail MB free under $(dirname "$STORE"), $need MB wanted for the store" >&2
    exit 1
  fi
  python3 "$ROOT/bench/ls-gen.py" "$STORE.tmp" "$SESSIONS"
  mv "$STORE.tmp" "$STORE"
fi
(cd "$ROOT" && cargo build --release --locked -q --bin pi-ls --bin pi-grep --bin pi-usage)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
VEC=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'sse4_2|avx2|avx512f|avx512bw' | sort -u | tr '\n' ' ')
describe() {
  echo "store: $(find "$STORE/sessions" -name '*.jsonl' | wc -l) files, $(du -sm "$STORE/sessions" | cut -f1) MB ($STORE)"
  echo "CPU: $CPU, $(nproc) cores; vector units: $VEC"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
warm() { cat "$STORE"/sessions/*/*.jsonl >/dev/null; }
# medians FILE.json: each command's median and its ratio to the first
medians() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
for x in r:
    print("| %s | %.3f s | %.2f× |" % (x["command"].replace("|", "\\|"), x["median"], x["median"] / base))
PY
}
