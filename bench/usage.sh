#!/usr/bin/env bash
# pi-usage daily against `ccusage pi daily --offline` (npm ccusage; install
# it with `npm install --prefix /tmp/ccu ccusage`) and `rg -c '"usage"'`,
# on the store of bench/ls-store.sh. Warm page cache; hyperfine medians
# and CPU times; peak memory by /usr/bin/time.
#
#   CCUSAGE=/tmp/ccu/node_modules/.bin/ccusage bench/usage.sh
#   BENCH_STORE=/tmp/store bench/usage.sh      # a store made before
source "$(dirname "$0")/ls-store.sh"
CCUSAGE=${CCUSAGE:-/tmp/ccu/node_modules/.bin/ccusage}
S=$STORE/sessions
describe
# pi-usage keeps what each file gave (the cache): "pi-usage daily" is a run
# after the first, which reads only the files that changed (none here);
# --no-cache reads every file.
export PI_SESSION_TOOLS_CACHE_DIR=$STORE.usage-cache
rm -rf "$PI_SESSION_TOOLS_CACHE_DIR"
warm
"$BIN/pi-usage" daily --session-dir "$S" >/dev/null
hyperfine -N -w 1 -r "$RUNS" --export-json /tmp/bench-usage.json \
  -n "pi-usage daily" "$BIN/pi-usage daily --session-dir $S" \
  -n "pi-usage daily --no-cache" "$BIN/pi-usage daily --no-cache --session-dir $S" \
  -n "rg -c '\"usage\"'" "rg -c '\"usage\"' $S" \
  -n "ccusage pi daily --offline" "$CCUSAGE pi daily --offline --pi-path $S" >/dev/null
echo "| command | median | ÷ pi-usage daily |"
echo "|---|---|---|"
medians /tmp/bench-usage.json
python3 - /tmp/bench-usage.json <<'PY'
import json, sys
for x in json.load(open(sys.argv[1]))["results"]:
    print("CPU %s: user %.3f s, system %.3f s" % (x["command"], x["user"], x["system"]))
PY
for a in "" "--no-cache"; do
  /usr/bin/time -f "peak RSS %M KB: pi-usage daily $a" "$BIN/pi-usage" daily $a --session-dir "$S" >/dev/null
done
describe | tail -1
