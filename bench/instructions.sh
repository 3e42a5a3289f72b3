#!/usr/bin/env bash
# Instructions (valgrind's callgrind), not seconds: the same total for the
# same binary and input whatever else the machine does, so two builds can
# be compared to the percent on a shared machine. One line per command:
# its name and the total instructions of the run (every thread).
#
#   bench/instructions.sh BIN_DIR [DATA_DIR]   # e.g. target/release
#   bench/instructions.sh target/release > after.txt
#   paste before.txt after.txt | awk '{printf "%-28s %6.2f%%\n", $1, ($4-$2)*100/$2}'
#
# DATA_DIR (default /tmp/pi-instructions) gets, once: a 30 000-entry session
# shaped like real ones (bench/gen.py real), 50 version-1 sessions and a
# 300-session store (bench/ls-gen.py). pi-grep runs with one thread (-j1);
# the others' threads are counted together (callgrind runs them one at a
# time), which repeats to well under a percent. No cache (--no-cache).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$1" && pwd)
DATA=${2:-/tmp/pi-instructions}
mkdir -p "$DATA"
[ -f "$DATA/real30k.jsonl" ] || python3 "$ROOT/bench/gen.py" real 30000 "$DATA/real30k.jsonl" 1 >/dev/null
[ -d "$DATA/v1" ] || python3 "$ROOT/bench/gen.py" v1dir 50 "$DATA/v1" 2 >/dev/null
[ -d "$DATA/agent" ] || python3 "$ROOT/bench/ls-gen.py" "$DATA/agent" 300 3 >/dev/null
S=$DATA/real30k.jsonl
EX=$ROOT/examples/s.jsonl
export PI_CODING_AGENT_DIR=$DATA/agent TZ=UTC PI_SESSION_TOOLS_SIMD=avx2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {
  local name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$@" >/dev/null 2>"$tmp/err" || true
  local total
  total=$(cat "$tmp"/cg.* | awk '/^summary:/ {s += $2} END {print s + 0}')
  rm -f "$tmp"/cg.*
  printf '%-28s %s\n' "$name" "$total"
}

count path-ids "$BIN/pi-path" --format ids "$S"
count path-entries "$BIN/pi-path" "$S"
count path-context "$BIN/pi-path" --format context "$S"
count tree-text "$BIN/pi-tree" --width 120 "$S"
count tree-json "$BIN/pi-tree" --json "$S"
count tree-stats "$BIN/pi-tree" --stats "$S"
count convert-llm "$BIN/pi-convert" "$S"
count convert-markdown "$BIN/pi-convert" --to markdown "$S"
count convert-html-example "$BIN/pi-convert" --to html "$EX"
count label-list "$BIN/pi-label" --list "$S"
count migrate-dry-run-v1 "$BIN/pi-migrate" --dry-run "$DATA"/v1/*.jsonl
count ls-all "$BIN/pi-ls" --all --no-cache
count ls-long-json "$BIN/pi-ls" --all -l --json --no-cache
count grep-count "$BIN/pi-grep" -j1 -c --all session
count grep-rare "$BIN/pi-grep" -j1 --all 'deadlock detected'
count usage-model "$BIN/pi-usage" --by model --no-cache
count usage-session-branch "$BIN/pi-usage" --by branch "$S"
