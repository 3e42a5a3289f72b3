#!/usr/bin/env bash
# pi-usage daily against `ccusage pi daily --offline` (npm ccusage; install
# it with `npm install --prefix /tmp/ccu ccusage`) and `rg -c '"usage"'`,
# on the store of bench/ls-store.sh.
#
#   CCUSAGE=/tmp/ccu/node_modules/.bin/ccusage bench/usage.sh
source "$(dirname "$0")/ls-store.sh"
CCUSAGE=${CCUSAGE:-/tmp/ccu/node_modules/.bin/ccusage}
S=$STORE/sessions
describe
warm
hyperfine -N -w 1 -r "$RUNS" --export-json /tmp/bench-usage.json \
  -n "pi-usage daily" "$BIN/pi-usage daily --session-dir $S" \
  -n "rg -c '\"usage\"'" "rg -c '\"usage\"' $S" \
  -n "ccusage pi daily --offline" "$CCUSAGE pi daily --offline --pi-path $S" >/dev/null
echo "| command | median | ÷ pi-usage daily |"
echo "|---|---|---|"
medians /tmp/bench-usage.json
/usr/bin/time -f "peak RSS %M KB: pi-usage daily" "$BIN/pi-usage" daily --session-dir "$S" >/dev/null
describe | tail -1
