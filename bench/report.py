#!/usr/bin/env python3
"""Turn bench/run.sh's measurements into bench/RESULTS.md (on stdout)."""
import json
import os
import sys

out, data = sys.argv[1], sys.argv[2]


def hf(name):
    p = os.path.join(out, name + ".json")
    if not os.path.exists(p):
        return {}
    return {r["command"]: r for r in json.load(open(p))["results"]}


def med(rs, key):
    for cmd, r in rs.items():
        if key in cmd:
            return r["median"]
    return None


def read(name, ext):
    p = os.path.join(out, f"{name}.{ext}")
    return open(p).read().split() if os.path.exists(p) else None


def fmt_s(x):
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def fmt_kb(kb):
    if kb is None:
        return "—"
    kb = float(kb)
    return f"{kb / 1024:.1f} MB" if kb < 1024 * 1024 else f"{kb / 1024 / 1024:.2f} GB"


def ratio(a, b):
    if a is None or b is None:
        return "—"
    return f"{a / b:.1f}×"


machine = dict(l.split("=", 1) for l in open(os.path.join(out, "machine.txt")).read().splitlines() if "=" in l)
print("# Benchmark results\n")
print("Made by `bench/run.sh` (workloads from `bench/gen.py`, deterministic). All times are medians of")
print("whole processes measured with hyperfine in one run, files in page cache; ratios are")
print("measured side by side on the same machine at the same time.\n")
print("## Machine\n")
print(f"- {machine.get('nproc')} cores: {machine.get('cpu')}; {machine.get('mem')} memory")
print(f"- load average before: {machine.get('load_before')}; after: {machine.get('load_after')}")
try:
    load = float(str(machine.get("load_before", "0")).split()[0])
except ValueError:
    load = 0.0
if load > 1.0:
    print(f"- the machine was not idle (load average {load:.2f} on {machine.get('nproc')} cores at the start), so")
    print("  absolute times are pessimistic; each ratio compares commands measured one after the")
    print("  other in the same minutes")
print(f"- {machine.get('rustc')}; node {machine.get('node')}; pi {machine.get('pi')}; {machine.get('jq')}; {machine.get('hyperfine')}; {machine.get('date')}\n")

sizes = [s for s in ["S", "M", "L"] if os.path.exists(os.path.join(data, f"{s}.jsonl"))]
ops = [("path", "pi-path", "pi-path /", "path "), ("messages", "pi-path --format messages", "--format messages", "messages "),
       ("tree", "pi-tree --json", "pi-tree --json", "tree "), ("convert", "pi-convert", "pi-convert", "convert ")]
summary = []
for s in sizes:
    f = os.path.join(data, f"{s}.jsonl")
    size = os.path.getsize(f)
    lines = sum(1 for _ in open(f, "rb"))
    floor, ours, pi, jq, lab = hf(f"{s}-floor"), hf(f"{s}-path"), hf(f"{s}-pi"), hf(f"{s}-jq"), hf(f"{s}-label")
    cat, wc, grep = med(floor, "cat "), med(floor, "wc -l"), med(floor, "grep -c")
    print(f"## {s}: {lines - 1} entries, {size / 1e6:.0f} MB\n")
    print(f"Floor: `cat` {fmt_s(cat)}, `wc -l` {fmt_s(wc)}, `grep -c ID` {fmt_s(grep)}.\n")
    print("| operation | ours | peak memory (% of file) | pi's library | pi memory | pi ÷ ours | jq -s | jq ÷ ours | ours ÷ wc -l |")
    print("|---|---|---|---|---|---|---|---|---|")
    for op, label, key, pikey in ops:
        t = None
        for cmd, r in ours.items():
            if (key == "pi-path /" and "pi-path" in cmd and "--format" not in cmd) or (key != "pi-path /" and key in cmd):
                t = r["median"]
        m = read(f"{s}-ours-{op}", "mem")
        m = m[0] if m and m[0] != "?" else None
        pct = f" ({float(m) * 1024 / size * 100:.1f}%)" if m else ""
        if s == "L":
            o = read(f"L-pi-{op}", "once")
            if o and o[0] == "ok":
                pit, pim = float(o[1]), o[2]
                pis = fmt_s(pit)
            elif o and o[0] == "timeout":
                pit, pim = None, None
                pis = f"> {o[1]} s (killed)"
            elif o:
                pit, pim = None, (o[2] if len(o) > 2 else None)
                err = " ".join(o[3:]) if len(o) > 3 else ""
                pis = f"fails after {o[1]} s" + (" (cannot read the file: string too long)" if "STRING_TOO_LONG" in err or "longer than" in err else "")
            else:
                pit, pim, pis = None, None, "—"
        else:
            pit = med(pi, pikey)
            pis = fmt_s(pit)
            pm = read(f"{s}-pi-{op}", "mem")
            pim = pm[0] if pm and pm[0] != "?" else None
        o = read(f"L-pi-{op}", "once") if s == "L" else None
        if pit:
            rpi = ratio(pit, t)
        elif o and o[0] == "timeout" and t:
            rpi = f"> {float(o[1]) / t:.0f}×"
        elif o and t:
            rpi = "∞ (pi fails)"
        else:
            rpi = "—"
        jqt, rjq = "—", "—"
        if op == "path":
            if s == "L":
                o = read("L-jq-path", "once")
                if o and o[0] == "ok":
                    jqv = float(o[1])
                    jqt, rjq = fmt_s(jqv), ratio(jqv, t)
                elif o:
                    jqt, rjq = f"> {o[1]} s (killed)", (f"> {float(o[1]) / t:.0f}×" if t else "—")
            else:
                jqv = med(jq, "jq ")
                jqt, rjq = fmt_s(jqv), ratio(jqv, t)
        print(f"| `{label}` | {fmt_s(t)} | {fmt_kb(m)}{pct} | {pis} | {fmt_kb(pim)} | {rpi} | {jqt} | {rjq} | {ratio(t, wc)} |")
        if s in ("M", "L"):
            summary.append((s, label, t, rpi, rjq, ratio(t, wc), pct))
    li, ll = med(lab, f"-label.jsonl {''}"), None
    lid = [r["median"] for c, r in lab.items() if " leaf " not in c]
    lleaf = [r["median"] for c, r in lab.items() if " leaf " in c]
    lm = read(f"{s}-ours-label", "mem")
    pil = med(pi, "label ") if s != "L" else None
    print(f"| `pi-label FILE ID NAME` | {fmt_s(lid[0] if lid else None)} | {fmt_kb(lm[0] if lm else None)} | {fmt_s(pil)} | | {ratio(pil, lid[0] if lid else None)} | | | {ratio(lid[0] if lid else None, wc)} |")
    print(f"| `pi-label FILE leaf NAME` | {fmt_s(lleaf[0] if lleaf else None)} | | | | | | | |")
    print()
    if lid:
        print(f"`pi-label` with a full id ÷ `grep -c ID`: {ratio(lid[0], grep)}.\n")
        if s in ("M", "L"):
            lmem = f"{fmt_kb(lm[0])} (constant)" if lm else ""
            summary.append((s, "pi-label FILE ID NAME", lid[0], ratio(pil, lid[0]) if pil else "—", "—", f"{ratio(lid[0], grep)} of `grep -c ID`", lmem))

mg, mg1, mgs = hf("migrate"), hf("migrate-1core"), hf("migrate-settled")
ours_m = med(mg, "pi-migrate")
pi_m = med(mg, "ops.mjs migrate")
one = med(mg1, "pi-migrate")
settled = med(mgs, "pi-migrate") if mgs else None
print("## Batch migration: 2 000 version-1 files\n")
print("Each run migrates a fresh copy of the directory (`rm -rf` of the previous copy, `cp -r`).")
print("\"Settled\": the same, then a wait of 61 s before the run, so that ext4 (no journal here)")
print("no longer makes each new inode skip the inodes the `rm -rf` just freed (see the notes).\n")
print("| | time |")
print("|---|---|")
print(f"| `pi-migrate -i DIR` (all cores, settled) | {fmt_s(settled)} |")
print(f"| `pi-migrate -i DIR` (all cores, right after the `rm -rf`) | {fmt_s(ours_m)} |")
print(f"| `pi-migrate -i DIR` (one core, taskset, right after the `rm -rf`) | {fmt_s(one)} |")
print(f"| pi's migrate-on-open (SessionManager.open per file) | {fmt_s(pi_m)} |")
print(f"| pi ÷ ours (settled) | {ratio(pi_m, settled)} |")
print(f"| pi ÷ ours (right after the `rm -rf`) | {ratio(pi_m, ours_m)} |")
print(f"| one core ÷ all cores | {ratio(one, ours_m)} |\n")
mgt = hf("migrate-tmpfs")
tmpfs_ours = tmpfs_pi = None
if mgt:
    tmpfs_ours, tmpfs_pi = med(mgt, "pi-migrate"), med(mgt, "ops.mjs migrate")
    print("On a RAM file system (tmpfs: no disk, no inode-table scan, `fsync` costs nothing), the")
    print("same fresh copy each run, both tools side by side:\n")
    print("| | time |")
    print("|---|---|")
    print(f"| `pi-migrate -i DIR` | {fmt_s(tmpfs_ours)} |")
    print(f"| pi's migrate-on-open | {fmt_s(tmpfs_pi)} |")
    print(f"| pi ÷ ours | {ratio(tmpfs_pi, tmpfs_ours)} |\n")

agree = os.path.join(out, "agree.txt")
if os.path.exists(agree):
    print("## Same output as pi\n")
    print("Each compared command's output against pi's library doing the same (md5 of stdout):\n")
    for l in open(agree).read().splitlines():
        print(f"- {l}")
    print()
chk = os.path.join(out, "migrate-check.txt")
if os.path.exists(chk):
    print(f"Migration check: {open(chk).read().strip()}.\n")

notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")
if os.path.exists(notes):
    print(open(notes).read().rstrip() + "\n")
# bench/simd.sh's section (issue 21), kept by hand from its output.
simd = os.path.join(os.path.dirname(os.path.abspath(__file__)), "simd.md")
if os.path.exists(simd):
    print(open(simd).read().rstrip() + "\n")

print("## README summary\n")
print("Measured by `bench/run.sh` on a " + f"{machine.get('nproc')}-core {machine.get('cpu')} (load average at the start {machine.get('load_before')}; see bench/RESULTS.md). Outputs are byte for byte pi's own.\n")
print("| workload | command | time | vs pi's library | vs `jq -s` | vs `wc -l` | memory (of file) |")
print("|---|---|---|---|---|---|---|")
def faster(r):
    if r.startswith("∞"):
        return "pi cannot open the file"
    return "—" if r == "—" else f"{r} faster"


def show(p):
    p = p.strip()
    return p[1:-1] if p.startswith("(") and p.endswith(")") else p


for s, label, t, rpi, rjq, rwc, pct in summary:
    print(f"| {s} | `{label}` | {fmt_s(t)} | {faster(rpi)} | {faster(rjq)} | {rwc} | {show(pct)} |")
print(f"| 2 000 v1 files | `pi-migrate -i` (settled) | {fmt_s(settled)} | {faster(ratio(pi_m, settled))} | | | |")
print(f"| 2 000 v1 files | `pi-migrate -i` (right after `rm -rf`) | {fmt_s(ours_m)} | {faster(ratio(pi_m, ours_m))} | | | |")
if tmpfs_ours:
    print(f"| 2 000 v1 files | `pi-migrate -i` (tmpfs) | {fmt_s(tmpfs_ours)} | {faster(ratio(tmpfs_pi, tmpfs_ours))} | | | |")
