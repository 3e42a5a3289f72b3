#!/usr/bin/env bash
# pi-ls --all against pi 1.6.0's SessionManager.listAll() and the floor
# (`find DIR -name '*.jsonl' | xargs head -c 512`) on the store of
# bench/ls-store.sh. Warm page cache; hyperfine medians; peak memory by
# /usr/bin/time.
#
#   bench/ls.sh                     # 10 000 sessions (~2.3 GB) in /tmp/pi-store
#   SESSIONS=2000 BENCH_STORE=/tmp/pi-store-2k bench/ls.sh
source "$(dirname "$0")/ls-store.sh"
NODE=${NODE:-node}
PI_MODULES=${PI_MODULES:-$ROOT/tests/conformance/node_modules}
cat > "$STORE/listall.mjs" <<JS
import { SessionManager } from "$PI_MODULES/@earendil-works/pi-coding-agent/dist/index.js";
const s = await SessionManager.listAll();
console.log(s.length);
JS
describe
export PI_CODING_AGENT_DIR=$STORE
# pi-ls keeps what each file held (the cache): the rows without --no-cache
# are the runs after the first, which read only the files that changed.
export PI_SESSION_TOOLS_CACHE_DIR=$STORE.cache
rm -rf "$PI_SESSION_TOOLS_CACHE_DIR"
warm
hyperfine -N -w 1 -r "$RUNS" --export-json /tmp/bench-ls.json \
  -n "pi-ls --all --json" "$BIN/pi-ls --all --json -q" \
  -n "pi-ls --all" "$BIN/pi-ls --all -q" \
  -n "pi-ls --all --json --no-cache" "$BIN/pi-ls --all --json -q --no-cache" \
  -n "find | xargs head -c 512" "sh -c \"find $STORE/sessions -name '*.jsonl' | xargs head -c 512 >/dev/null\"" \
  -n "pi listAll()" "$NODE $STORE/listall.mjs" >/dev/null
echo "| command | median | ÷ pi-ls --all --json |"
echo "|---|---|---|"
medians /tmp/bench-ls.json
for c in "$BIN/pi-ls --all --json -q" "$NODE $STORE/listall.mjs"; do
  /usr/bin/time -f "peak RSS %M KB: $c" $c >/dev/null
done
describe | tail -1
