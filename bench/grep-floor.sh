#!/usr/bin/env bash
# What bounds pi-grep on a pattern that is on nearly every line: the
# store's JSON checked by simdjson (bench/jsonfloor.cpp, Debian's
# libsimdjson-dev), with no search at all, beside `rg -c` and pi-grep, in
# one hyperfine run on the store of bench/ls-store.sh. pi skips a line
# JSON.parse rejects, so an exact search checks in full every line that
# holds the pattern; 'session' is on 89% of the store's lines, 98% of its
# bytes. Prints a Markdown table of medians, each ÷ rg's.
#
#   bench/grep-floor.sh          # RUNS=5; apt-get install libsimdjson-dev first
source "$(dirname "$0")/ls-store.sh"
COMMON=${COMMON:-'session'}
S=$STORE/sessions
FLOOR=${TMPDIR:-/tmp}/jsonfloor
g++ -O2 -std=c++17 -pthread "$ROOT/bench/jsonfloor.cpp" -lsimdjson -o "$FLOOR"
describe
echo "lines: $(cat "$S"/*/*.jsonl | wc -l), holding '$COMMON': $(cat "$S"/*/*.jsonl | grep -c -- "$COMMON")"
warm
"$FLOOR" dom "$S"
# -i: pi-grep finds no 'timestamp' in any text (exit 1), having checked
# every line (the key is on every line: each is a candidate)
hyperfine -N -i -w 1 -r "$RUNS" --export-json /tmp/bench-grep-floor.json \
  -n "rg -c $COMMON" "rg -c '$COMMON' $S" \
  -n "simdjson stage 1 only (no grammar check, no search)" "$FLOOR stage1 $S" \
  -n "simdjson full check (no search)" "$FLOOR dom $S" \
  -n "pi-grep -c timestamp (checks every line, no match)" "$BIN/pi-grep --all --session-dir $S -c timestamp" \
  -n "pi-grep -c $COMMON" "$BIN/pi-grep --all --session-dir $S -c '$COMMON'" >/dev/null
echo "| command | median | ÷ rg |"
echo "|---|---|---|"
medians /tmp/bench-grep-floor.json
describe | tail -1
