#!/usr/bin/env bash
# The read-only commands on the realistic L (`bench/gen.py real`, ~500 MB) and
# the old L (`bench/gen.py session 500000`, 606 MB), with the scanner's vector
# unit forced each way (PI_SESSION_TOOLS_SIMD), against `wc -l` and `cat`, all
# in one run per file (output to /dev/null, files in page cache; the
# commands interleaved round by round, medians).
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
  python3 - "$F" "$BIN" "$RUNS" "$UNITS" "$DATA/simd-$f.json" <<'PY'
# Interleaved: every command once per round, RUNS rounds (after one warm-up
# round), so that a change of load on the shared machine hits every command
# alike; medians of wall time, and of CPU time (user + system) beside it.
import json, os, statistics, subprocess, sys, time
path, bin_, runs, units, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), sys.argv[5]
cmds = ["pi-path --format ids", "pi-tree --stats", "pi-path", "pi-tree --json", "pi-convert"]
todo = [("wc", ["wc", "-l", path], {}), ("cat", ["cat", path], {})]
for u in units:
    for c in cmds:
        todo.append((f"{u} {c}", [f"{bin_}/{c.split()[0]}", *c.split()[1:], path], {"PI_SESSION_TOOLS_SIMD": u}))
wall = {k: [] for k, _, _ in todo}
cpu = {k: [] for k, _, _ in todo}
with open(os.devnull, "wb") as null:
    for r in range(runs + 1):
        for k, argv, env in todo:
            t = time.perf_counter()
            p = subprocess.Popen(argv, stdout=null, stderr=null, env={**os.environ, **env})
            _, status, ru = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t
            if status != 0:
                sys.exit(f"{k} failed")
            if r:
                wall[k].append(dt)
                cpu[k].append(ru.ru_utime + ru.ru_stime)
med = {k: statistics.median(v) for k, v in wall.items()}
cmed = {k: statistics.median(v) for k, v in cpu.items()}
json.dump({"wall": wall, "cpu": cpu}, open(out, "w"))
wc, cat = med["wc"], med["cat"]
print(f"\n{os.path.basename(path)} ({os.path.getsize(path) / 1e6:.0f} MB): `wc -l` {wc * 1e3:.0f} ms (CPU {cmed['wc'] * 1e3:.0f} ms), "
      f"`cat > /dev/null` {cat * 1e3:.0f} ms (CPU {cmed['cat'] * 1e3:.0f} ms); medians of {runs}, interleaved\n")
print("| unit | " + " | ".join(f"`{c}`" for c in cmds) + " |")
print("|---|" + "---|" * len(cmds))
for u in units:
    cells = []
    for c in cmds:
        k = f"{u} {c}"
        base, name = (wc, "wc -l") if c in cmds[:2] else (cat, "cat")
        cells.append(f"{med[k] * 1e3:.0f} ms, **{med[k] / base:.1f}×** {name} (CPU {cmed[k] * 1e3:.0f} ms)")
    print(f"| {u} | " + " | ".join(cells) + " |")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
