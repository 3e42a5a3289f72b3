#!/usr/bin/env bash
# pi-tree (text, --format jsonl, --format dot) and pi-path --leaves on a
# million-sibling fan-out (issue 21.4), each against pi-path on the same
# file, side by side in one hyperfine run, output to /dev/null. Prints a
# Markdown table (the "Fan-out" section of bench/RESULTS.md).
#
#   bench/fanout.sh                 N=1000000 siblings, 5 runs
#   N=200000 RUNS=10 bench/fanout.sh
#
# The file is the one tests/scale.rs builds (a root and N-1 children).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DIR:-/tmp/pi-bench}
N=${N:-1000000}
RUNS=${RUNS:-5}
F=$DATA/fan-$N.jsonl
mkdir -p "$DATA"
(cd "$ROOT" && cargo build --release --locked -q --bin pi-path --bin pi-tree)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
if [ ! -s "$F" ]; then
  python3 - "$N" "$F.tmp" <<'PY'
import sys
n, out = int(sys.argv[1]), open(sys.argv[2], "w")
def id(i): return "%08x" % (i * 2654435761 % (1 << 32))
out.write('{"type":"session","version":3,"id":"0199a000-0000-7000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n')
for i in range(n):
    parent = "null" if i == 0 else '"%s"' % id(0)
    role = "user" if i % 2 == 0 else "assistant"
    out.write('{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:%02d:%02d.%03dZ","message":{"role":"%s","content":"m%d","timestamp":1}}\n'
              % (id(i), parent, (i // 60000) % 60, (i // 1000) % 60, i % 1000, role, i))
out.close()
PY
  mv "$F.tmp" "$F"
fi
cat "$F" >/dev/null
J=$DATA/fanout.json
hyperfine -N --warmup 1 --runs "$RUNS" --output=null --export-json "$J" \
  "$BIN/pi-path $F" "$BIN/pi-tree $F" "$BIN/pi-tree --format jsonl $F" \
  "$BIN/pi-tree --format dot $F" "$BIN/pi-path --leaves $F" >&2
python3 - "$J" "$F" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))["results"]
f = sys.argv[2]
base = r[0]["median"]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
units = [u for u in ("avx512bw", "avx2", "sse2") if u in flags]
print(f"{os.cpu_count()} cores: {cpu} (vector units: {', '.join(units)}); load average {open('/proc/loadavg').read().split()[0]} at the end")
print(f"file: {os.path.getsize(f) / 1e6:.0f} MB\n")
print("| command | median | user | ÷ `pi-path` |")
print("|---|---|---|---|")
for x in r:
    cmd = x["command"].replace(f, "FILE").split("/")[-1]
    print(f"| `{cmd}` | {x['median']:.3f} s | {x['user']:.3f} s | {x['median'] / base:.2f}× |")
PY
