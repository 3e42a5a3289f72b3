#!/usr/bin/env bash
# Whole paths into a pipe (issue 32 item 5): each tool that reads a whole
# path, its time beside `cat`'s to the same pipe, and its peak memory.
#
#   bench/whole-path.sh            # both workloads
#   WORKLOADS=W bench/whole-path.sh
#
# Workloads (in BENCH_DIR, default /tmp/pi-perf; ~1 GB, never committed):
#   W  ../shared/fixtures/pi-v1-large-session.jsonl migrated with pi-migrate,
#      repeated to ~506 MB with fresh ids, one path, no compaction
#      (bench/whole-path-gen.py)
#   L  bench/gen.py real 300000: the realistic ~500 MB session of issue 21
# Each command runs as `CMD FILE | cat >/dev/null`; the floor is
# `cat FILE | cat >/dev/null`. Times are medians of RUNS runs (default 5)
# with the file in page cache; peak memory (maximum resident set) comes
# from /usr/bin/time on one more run. The limit the issue sets: 3x cat, and
# 64 MB plus the largest line.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DIR:-/tmp/pi-perf}
RUNS=${RUNS:-5}
WORKLOADS=${WORKLOADS:-"W L"}
FIXTURE=${FIXTURE:-$ROOT/../shared/fixtures/pi-v1-large-session.jsonl}
mkdir -p "$DATA"

echo "== building (release)"
(cd "$ROOT" && cargo build --release --locked -q --bins)
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release

for w in $WORKLOADS; do
  f=$DATA/$w.jsonl
  [ -s "$f" ] && continue
  case $w in
  W)
    "$BIN/pi-migrate" "$FIXTURE" >"$DATA/W-migrated.jsonl"
    python3 "$ROOT/bench/whole-path-gen.py" "$DATA/W-migrated.jsonl" 506 "$f"
    ;;
  L) python3 "$ROOT/bench/gen.py" real 300000 "$f" ;;
  esac
done

# median_ms CMD: the median wall time of RUNS runs of `CMD | cat >/dev/null`.
median_ms() {
  local i t0 t1 times=()
  for ((i = 0; i < RUNS; i++)); do
    t0=$(date +%s%N)
    bash -c "$1 | cat >/dev/null"
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}
# peak_mb CMD: the peak resident set of the command (not of the pipe), in MB.
peak_mb() {
  local m
  m=$(mktemp)
  bash -c "/usr/bin/time -f %M -o $m $1 | cat >/dev/null"
  awk '{printf "%.1f", $1 / 1024}' "$m"
  rm -f "$m"
}

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
  "$(grep -o -w -m1 -E 'avx512f' /proc/cpuinfo | head -1 | sed 's/avx512f/AVX-512/') $(grep -q -w avx2 /proc/cpuinfo && echo AVX2)"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ); $(git -C "$ROOT" rev-parse --short HEAD)"
for w in $WORKLOADS; do
  f=$DATA/$w.jsonl
  size=$(stat -c %s "$f")
  longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$f")
  limit=$(awk -v l="$longest" 'BEGIN { printf "%.1f", 64 + l / 1e6 }')
  cat "$f" >/dev/null
  floor=$(median_ms "cat $f")
  echo
  echo "## $w: $(wc -l <"$f") lines, $((size / 1000000)) MB, longest line $((longest / 1000)) KB; cat to a pipe: $floor ms; memory limit $limit MB"
  echo
  echo "| command | time | ÷ cat | peak memory | within 3× and $limit MB |"
  echo "|---|---|---|---|---|"
  for cmd in "pi-path" "pi-path --format messages" "pi-tree --json" \
    "pi-convert --to llm" "pi-convert --to markdown" "pi-convert --to text" \
    "pi-convert --to html" "pi-convert --to markdown --as-sent"; do
    ms=$(median_ms "$BIN/$cmd $f")
    mb=$(peak_mb "$BIN/$cmd $f")
    ratio=$(awk -v a="$ms" -v b="$floor" 'BEGIN { printf "%.1f", a / b }')
    ok=$(awk -v r="$ratio" -v m="$mb" -v l="$limit" 'BEGIN { print (r <= 3 && m <= l) ? "yes" : "no" }')
    echo "| \`$cmd\` | $ms ms | ${ratio}× | $mb MB | $ok |"
  done
done
