#!/usr/bin/env bash
# pi-grep against `rg -c` over the raw JSONL (a weaker question: keys,
# ids and JSON escapes are matched too) and against a jq pipeline doing
# the decoded search, on the store of bench/ls-store.sh. A rare pattern
# (in ~1 tool result in 3 000) and a common one (in most text lines'
# neighbourhood, in every file).
#
#   bench/grep.sh                 # RUNS=5; JQ=0 to leave the (slow) jq run out
source "$(dirname "$0")/ls-store.sh"
RARE=${RARE:-'deadlock detected'}
COMMON=${COMMON:-'session'}
S=$STORE/sessions
jqprog='select(.type=="message") | .message | (if (.content|type)=="string" then .content else ((.content // [])[]? | select(.type=="text" or .type=="thinking") | (.text // .thinking)) end), .command?, .output? | strings | split("\n")[] | select(test($p))'
describe
warm
hyperfine -N -w 1 -r "$RUNS" --export-json /tmp/bench-grep-rare.json \
  -n "pi-grep -c (rare)" "$BIN/pi-grep --all --session-dir $S -c '$RARE'" \
  -n "rg -c (rare)" "rg -c '$RARE' $S" >/dev/null
hyperfine -N -w 1 -r "$RUNS" --export-json /tmp/bench-grep-common.json \
  -n "pi-grep -c (common)" "$BIN/pi-grep --all --session-dir $S -c '$COMMON'" \
  -n "rg -c (common)" "rg -c '$COMMON' $S" \
  -n "pi-grep -c -i (common)" "$BIN/pi-grep --all --session-dir $S -c -i '$COMMON'" \
  -n "rg -c -i (common)" "rg -c -i '$COMMON' $S" >/dev/null
echo "| command | median | ÷ first |"
echo "|---|---|---|"
medians /tmp/bench-grep-rare.json
medians /tmp/bench-grep-common.json
if [ "${JQ:-1}" = 1 ]; then
  hyperfine -w 0 -r 1 --export-json /tmp/bench-grep-jq.json \
    -n "pi-grep -c (rare)" "$BIN/pi-grep --all --session-dir $S -c '$RARE'" \
    -n "jq pipeline (rare)" "find $S -name '*.jsonl' -print0 | xargs -0 cat | jq -r --arg p '$RARE' '$jqprog' | wc -l" >/dev/null
  medians /tmp/bench-grep-jq.json
fi
/usr/bin/time -f "peak RSS %M KB: pi-grep -c (common)" "$BIN/pi-grep" --all --session-dir "$S" -c "$COMMON" >/dev/null
echo "largest file: $(find "$S" -name '*.jsonl' -printf '%s\n' | sort -n | tail -1) bytes"
describe | tail -1
