#!/usr/bin/env bash
# pi-check --all against pi-ls --no-cache --all on the store of
# bench/ls-store.sh (issue 33: within 2×). Warm page cache; hyperfine
# medians; the CPU time of each (user + system), which the other work on
# a shared machine disturbs less than the wall-clock time.
#
#   bench/check.sh                  # 10 000 sessions (~2.3 GB) in /tmp/pi-store
#   SESSIONS=2000 BENCH_STORE=/tmp/pi-store-2k bench/check.sh
source "$(dirname "$0")/ls-store.sh"
(cd "$ROOT" && cargo build --release --locked -q --bin pi-check)
describe
export PI_CODING_AGENT_DIR=$STORE
warm
if command -v hyperfine >/dev/null; then
  hyperfine -N -w 1 -r "$RUNS" -i --export-json /tmp/bench-check.json \
    -n "pi-ls --all --json --no-cache" "$BIN/pi-ls --all --json -q --no-cache" \
    -n "pi-check --all -q" "$BIN/pi-check --all -q" >/dev/null
  echo "| command | median | ÷ pi-ls --all --json --no-cache |"
  echo "|---|---|---|"
  medians /tmp/bench-check.json
fi
# Without hyperfine: RUNS runs of each, one after the other, by time(1).
for c in "$BIN/pi-ls --all --json -q --no-cache" "$BIN/pi-check --all -q"; do
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e s wall, CPU %U s user + %S s system: $c" $c >/dev/null || true
  done
  /usr/bin/time -f "CPU %U s user + %S s system, peak RSS %M KB: $c" $c >/dev/null || true
done
describe | tail -1
