#!/usr/bin/env bash
# Two builds side by side on one session file: the same outputs (cmp) and
# their times (hyperfine, alternating, medians), for a refactor that must
# change nothing. OLD and NEW are directories holding the binaries.
#
#   git worktree add /tmp/old REV && (cd /tmp/old && cargo build --release)
#   cargo build --release
#   bench/compare.sh /tmp/old/target/release target/release FILE
set -euo pipefail
OLD=$1 NEW=$2 FILE=$3
RUNS=${RUNS:-10}
cmds=(
  "pi-path FILE"
  "pi-path --format ids FILE"
  "pi-path --format messages FILE"
  "pi-tree --stats FILE"
  "pi-tree --json FILE"
  "pi-tree --format jsonl FILE"
  "pi-tree --search 'parser json' FILE"
  "pi-convert FILE"
  "pi-convert --to markdown FILE"
  "pi-label FILE --list"
)
printf '| command | old | new | new ÷ old | same output |\n|---|---|---|---|---|\n'
for c in "${cmds[@]}"; do
  o="$OLD/${c//FILE/$FILE}" n="$NEW/${c//FILE/$FILE}"
  same=yes
  cmp -s <(eval "$o" 2>&1) <(eval "$n" 2>&1) || same=NO
  json=$(mktemp)
  hyperfine -w 2 -r "$RUNS" --export-json "$json" "$o > /dev/null" "$n > /dev/null" >/dev/null
  python3 - "$json" "$c" "$same" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
m = [x["median"] for x in r]
print(f"| `{sys.argv[2]}` | {m[0]*1000:.1f} ms | {m[1]*1000:.1f} ms | {m[1]/m[0]:.2f} | {sys.argv[3]} |")
PY
  rm -f "$json"
done
