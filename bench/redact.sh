#!/usr/bin/env bash
# pi-edit --redact on sessions of N user messages that each hold a key (one
# match per entry, every entry on the path), against pi's own
# buildSessionContext on the same file (issue 31: planning was quadratic,
# 40 000 matches took 11 s). Time and peak memory by /usr/bin/time; each
# run on a fresh copy (the writing run appends N lines).
#
#   bench/redact.sh                          # N = 40000 80000
#   N="10000 40000" PI=/path/to/pi-coding-agent bench/redact.sh
#
# PI: the directory of @earendil-works/pi-coding-agent 1.6.0 (its
# dist/core/session-manager.js); NODE: its node. Left out when not found.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
N=${N:-"40000 80000"}
DATA=${BENCH_DIR:-/tmp/pi-bench-redact}
PI=${PI:-}
NODE=${NODE:-node}
mkdir -p "$DATA"
[ -x "$BIN/pi-edit" ] || (cd "$ROOT" && cargo build --release --locked -q --bin pi-edit)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $N; do
  f=$DATA/redact-$n.jsonl
  [ -s "$f" ] || python3 - "$n" "$f" <<'PY'
import sys
n, out = int(sys.argv[1]), open(sys.argv[2], "w")
out.write('{"type":"session","version":3,"id":"019a0000-0000-7000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n')
parent = "null"
for i in range(n):
    eid = "%08x" % (i + 1)
    out.write('{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"my key is sk-ABCDEFGHIJKLMNOPQRSTUV%06d ok","timestamp":1}}\n' % (eid, parent, i))
    parent = '"%s"' % eid
PY
  for mode in --dry-run ""; do
    cp "$f" "$DATA/copy.jsonl"
    /usr/bin/time -f "pi-edit --redact $mode, $n matches: %e s, peak RSS %M KB" \
      "$BIN/pi-edit" "$DATA/copy.jsonl" --redact 'sk-[A-Z0-9]+' $mode >/dev/null
  done
  if [ -n "$PI" ] && [ -f "$PI/dist/core/session-manager.js" ]; then
    cat >"$DATA/ctx.mjs" <<JS
import { SessionManager } from "$PI/dist/core/session-manager.js";
const sm = SessionManager.open(process.argv[2]);
const t = process.hrtime.bigint();
const n = sm.buildSessionContext().messages.length;
console.log("pi buildSessionContext, $n entries: " + Number(process.hrtime.bigint() - t) / 1e9 + " s (" + n + " messages)");
JS
    /usr/bin/time -f "pi open + buildSessionContext: %e s, peak RSS %M KB" "$NODE" "$DATA/ctx.mjs" "$f"
  fi
done
rm -f "$DATA/copy.jsonl"
