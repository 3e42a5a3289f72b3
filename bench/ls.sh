#!/usr/bin/env bash
# pi-ls --all against pi 1.6.0's SessionManager.listAll() and the floor
# (`find DIR -name '*.jsonl' | xargs head -c 512`), on a generated store
# (bench/ls-gen.py). Warm page cache; hyperfine; peak memory by /usr/bin/time.
#
#   bench/ls.sh                     # 10 000 sessions (~2 GB) in /tmp/pi-ls-bench
#   SESSIONS=2000 bench/ls.sh       # a smaller store
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
AGENT=${BENCH_STORE:-/tmp/pi-ls-bench}
SESSIONS=${SESSIONS:-10000}
RUNS=${RUNS:-5}
NODE=${NODE:-node}
PI_MODULES=${PI_MODULES:-$ROOT/tests/conformance/node_modules}
[ -d "$AGENT/sessions" ] || python3 "$ROOT/bench/ls-gen.py" "$AGENT" "$SESSIONS"
(cd "$ROOT" && cargo build --release --locked -q)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
cat > "$AGENT/listall.mjs" <<JS
import { SessionManager } from "$PI_MODULES/@earendil-works/pi-coding-agent/dist/index.js";
const s = await SessionManager.listAll();
console.log(s.length);
JS
echo "store: $(find "$AGENT/sessions" -name '*.jsonl' | wc -l) files, $(du -sh "$AGENT/sessions" | cut -f1)"
grep -m1 'model name' /proc/cpuinfo; echo "cores: $(nproc)"
export PI_CODING_AGENT_DIR=$AGENT
cat "$AGENT"/sessions/*/*.jsonl > /dev/null   # warm the cache
hyperfine -N -w 1 -r "$RUNS" --export-markdown "$AGENT/ls.md" \
  "$BIN/pi-ls --all --json -q" \
  "$BIN/pi-ls --all -q" \
  "sh -c \"find $AGENT/sessions -name '*.jsonl' | xargs head -c 512 >/dev/null\"" \
  "$NODE $AGENT/listall.mjs"
for c in "$BIN/pi-ls --all --json -q" "$NODE $AGENT/listall.mjs"; do
  /usr/bin/time -f "$c: peak RSS %M KB" $c > /dev/null
done
cat "$AGENT/ls.md"
