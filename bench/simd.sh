#!/usr/bin/env bash
# The read-only commands on the realistic L (`bench/gen.py real`, ~500 MB) and
# the old L (`bench/gen.py session 500000`, 606 MB), with the scanner's vector
# unit forced each way (PI_SESSION_TOOLS_SIMD), against `wc -l` and `cat`, all
# in one hyperfine run per file (output to /dev/null, files in page cache).
# Prints a markdown table of medians and ratios (issue 21.3).
#
#   bench/simd.sh                      # both files, every unit this CPU has
#   FILES=real UNITS="avx2 none" bench/simd.sh
#
# Environment: BENCH_DIR (default /tmp/pi-bench), RUNS (default 5).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DIR:-/tmp/pi-bench}
RUNS=${RUNS:-5}
FILES=${FILES:-"real old"}
if [ -z "${UNITS:-}" ]; then
  UNITS="none"
  case $(uname -m) in
    x86_64)
      UNITS="avx512 avx2 sse2 none"
      grep -qw avx512bw /proc/cpuinfo || UNITS=${UNITS/avx512 /}
      grep -qw avx2 /proc/cpuinfo || UNITS=${UNITS/avx2 /}
      ;;
    aarch64) UNITS="neon none" ;;
  esac
fi
mkdir -p "$DATA"
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release
[ -n "${NO_BUILD:-}" ] || (cd "$ROOT" && cargo build --release --locked -q)
declare -A GEN=([real]="real 330000" [old]="session 500000")
CMDS=("pi-path --format ids" "pi-tree --stats" "pi-path" "pi-tree --json" "pi-convert")
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores;" \
  "flags: $(grep -m1 -ow 'avx512bw\|avx2\|sse2\|asimd' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ); runs: $RUNS"
for f in $FILES; do
  F=$DATA/L-$f.jsonl
  [ -s "$F" ] || python3 "$ROOT/bench/gen.py" ${GEN[$f]% *} ${GEN[$f]#* } "$F"
  cat "$F" >/dev/null
  args=("wc -l $F" "cat $F")
  for u in $UNITS; do
    for c in "${CMDS[@]}"; do args+=("env PI_SESSION_TOOLS_SIMD=$u $BIN/$c $F"); done
  done
  hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$DATA/simd-$f.json" "${args[@]}" >"$DATA/simd-$f.log" 2>&1
  python3 - "$DATA/simd-$f.json" "$F" "$UNITS" <<'PY'
import json, os, sys
res = {r["command"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
path, units = sys.argv[2], sys.argv[3].split()
wc, cat = res["wc -l " + path], res["cat " + path]
cmds = ["pi-path --format ids", "pi-tree --stats", "pi-path", "pi-tree --json", "pi-convert"]
floor = {"pi-path --format ids": ("wc", wc), "pi-tree --stats": ("wc", wc)}
print(f"\n{os.path.basename(path)} ({os.path.getsize(path) / 1e6:.0f} MB): `wc -l` {wc * 1e3:.0f} ms, `cat > /dev/null` {cat * 1e3:.0f} ms\n")
print("| unit | " + " | ".join(f"`{c}`" for c in cmds) + " |")
print("|---|" + "---|" * len(cmds))
for u in units:
    cells = []
    for c in cmds:
        t = next(v for k, v in res.items() if k.startswith(f"env PI_SESSION_TOOLS_SIMD={u} ") and k.endswith(f"/{c} {path}"))
        name, base = floor.get(c, ("cat", cat))
        cells.append(f"{t * 1e3:.0f} ms = {t / base:.1f}× {name}")
    print(f"| {u} | " + " | ".join(cells) + " |")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
