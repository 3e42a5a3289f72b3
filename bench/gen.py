#!/usr/bin/env python3
"""Deterministic benchmark workloads for pi-session-tools.

  bench/gen.py session ENTRIES OUT.jsonl [SEED]   one version-3 session
  bench/gen.py v1dir COUNT OUTDIR [SEED]          COUNT version-1 sessions

Sessions look like real pi sessions: user prompts, assistant turns with
thinking blocks and tool calls, long tool outputs (multi-line, quotes,
tabs, non-ASCII), model and thinking-level changes, labels, branches (a
prompt re-asked from an earlier entry, often with a branch summary) and a
compaction every ~1 500 entries. The average entry is about 1 KB, so
50 000 entries make ~50 MB. The leaf's path holds nearly every entry.
Output depends only on the arguments (random.Random(SEED)).
"""
import json
import os
import random
import sys

WORDS = (
    "the a of to in is it that for on with as this be are by file line function "
    "return value error test build cargo node path tree session entry parent id "
    "const let fn impl struct match self mut pub use crate mod async await string "
    "number object array null true false undefined import export default class "
    "résumé naïve café 你好 世界 日本語 한국어 Ωmega λ → ✓ 🙂"
).split()
CODE = [
    'fn main() {\n    println!("hello, {}", name);\n}\n',
    'const x = await fetch(url, { method: "POST" });\n',
    "\tif (a < b && c > d) { return a\\b; }\n",
    "error[E0308]: mismatched types\n  --> src/lib.rs:10:5\n",
    'diff --git a/src/x.rs b/src/x.rs\n@@ -1,3 +1,4 @@\n-old\n+new "quoted"\n',
]


def corpus(rng, size):
    parts, n = [], 0
    while n < size:
        if rng.random() < 0.15:
            s = rng.choice(CODE)
        else:
            s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16)))
            s += rng.choice([". ", ".\n", ", ", "\n\n", "; "])
        parts.append(s)
        n += len(s)
    return "".join(parts)


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.text = corpus(self.rng, 1 << 20)
        self.ids = set()
        self.t = 1_740_000_000_000  # ms

    def snippet(self, lo, hi):
        n = self.rng.randint(lo, hi)
        o = self.rng.randrange(0, len(self.text) - n)
        return self.text[o : o + n]

    def new_id(self):
        while True:
            i = "%08x" % self.rng.getrandbits(32)
            if i not in self.ids:
                self.ids.add(i)
                return i

    def tick(self):
        self.t += self.rng.randint(200, 30_000)
        return self.t

    @staticmethod
    def iso(ms):
        import datetime

        d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)

    def uuid(self):
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def usage(self):
        r = self.rng
        i, o = r.randint(100, 20000), r.randint(10, 4000)
        return {
            "input": i, "output": o, "cacheRead": r.randint(0, 100000), "cacheWrite": 0,
            "totalTokens": i + o,
            "cost": {"input": i * 3e-6, "output": o * 1.5e-5, "cacheRead": 0, "cacheWrite": 0, "total": i * 3e-6 + o * 1.5e-5},
        }

    def user(self, ms):
        return {"role": "user", "content": self.snippet(20, 400), "timestamp": ms}

    def assistant(self, ms, tool):
        r = self.rng
        content = []
        if r.random() < 0.7:
            content.append({"type": "thinking", "thinking": self.snippet(100, 1200), "thinkingSignature": "sig" + "%x" % r.getrandbits(64)})
        content.append({"type": "text", "text": self.snippet(20, 600)})
        if tool:
            content.append({"type": "toolCall", "id": "toolu_%012x" % r.getrandbits(48), "name": r.choice(["bash", "read", "edit", "write"]),
                            "arguments": {"command": self.snippet(10, 120)}})
        return {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
                "model": "claude-sonnet-4-5", "usage": self.usage(), "stopReason": "toolUse" if tool else "stop", "timestamp": ms}

    def tool_result(self, ms, call):
        return {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                "content": [{"type": "text", "text": self.snippet(50, 2000)}], "isError": self.rng.random() < 0.05, "timestamp": ms}


def dump(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def session(n, out, seed):
    g = Gen(seed)
    r = g.rng
    lines = []
    path = []  # ids on the current path (most recent last)

    def add(entry):
        entry["id"] = g.new_id()
        entry["parentId"] = path[-1] if path else None
        ms = g.tick()
        entry["timestamp"] = g.iso(ms)
        # key order as pi writes: type, id, parentId, timestamp, ...
        order = ["type", "id", "parentId", "timestamp"]
        e = {k: entry[k] for k in order}
        e.update({k: v for k, v in entry.items() if k not in order})
        lines.append(dump(e))
        path.append(e["id"])
        return e, ms

    with open(out, "w", encoding="utf-8") as f:
        f.write(dump({"type": "session", "version": 3, "id": g.uuid(), "timestamp": g.iso(g.t), "cwd": "/home/dev/project"}) + "\n")
        add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
        add({"type": "thinking_level_change", "thinkingLevel": "medium"})
        count = 2
        next_compaction = 1500
        while count < n:
            # a branch: go back a few entries and ask again
            if len(path) > 60 and r.random() < 0.01:
                back = r.randint(5, 50)
                abandoned = path[-1]
                del path[-back:]
                if r.random() < 0.6:
                    add({"type": "branch_summary", "fromId": abandoned, "summary": g.snippet(200, 1200)})
                    count += 1
            if count >= next_compaction and len(path) > 30:
                add({"type": "compaction", "summary": g.snippet(1000, 4000), "firstKeptEntryId": path[-20],
                     "tokensBefore": r.randint(50000, 180000)})
                count += 1
                next_compaction += r.randint(1200, 1800)
            _, ms = add({"type": "message", "message": None})
            lines[-1] = lines[-1][:-len(',"message":null}')] + ',"message":' + dump(g.user(ms)) + "}"
            count += 1
            for k in range(r.randint(0, 4)):
                if count >= n:
                    break
                tool = k < 3 and r.random() < 0.85
                e, ms = add({"type": "message", "message": None})
                a = g.assistant(ms, tool)
                lines[-1] = lines[-1][:-len(',"message":null}')] + ',"message":' + dump(a) + "}"
                count += 1
                if tool and count < n:
                    e, ms = add({"type": "message", "message": None})
                    lines[-1] = lines[-1][:-len(',"message":null}')] + ',"message":' + dump(g.tool_result(ms, a["content"][-1])) + "}"
                    count += 1
            x = r.random()
            if count < n and x < 0.01:
                add({"type": "label", "targetId": r.choice(path[-20:]), "label": r.choice(["plan", "good", "bug", "checkpoint"]) + str(r.randint(0, 99))})
                count += 1
            elif count < n and x < 0.015:
                add({"type": "model_change", "provider": "anthropic", "modelId": r.choice(["claude-sonnet-4-5", "claude-opus-4-1"])})
                count += 1
            elif count < n and x < 0.02:
                add({"type": "thinking_level_change", "thinkingLevel": r.choice(["low", "medium", "high"])})
                count += 1
            if len(lines) >= 2000:
                f.write("\n".join(lines) + "\n")
                lines.clear()
        if lines:
            f.write("\n".join(lines) + "\n")


def v1dir(count, outdir, seed):
    os.makedirs(outdir, exist_ok=True)
    g = Gen(seed)
    r = g.rng
    for k in range(count):
        sid = g.uuid()
        ms = g.tick()
        out = [dump({"type": "session", "id": sid, "timestamp": g.iso(ms), "cwd": "/home/dev/project"})]
        n = r.randint(10, 80)
        out.append(dump({"type": "model_change", "timestamp": g.iso(g.tick()), "provider": "anthropic", "modelId": "claude-sonnet-4-5"}))
        while len(out) <= n:
            ms = g.tick()
            out.append(dump({"type": "message", "timestamp": g.iso(ms), "message": g.user(ms)}))
            ms = g.tick()
            a = g.assistant(ms, True)
            out.append(dump({"type": "message", "timestamp": g.iso(ms), "message": a}))
            ms = g.tick()
            out.append(dump({"type": "message", "timestamp": g.iso(ms), "message": g.tool_result(ms, a["content"][-1])}))
            if len(out) > 30 and r.random() < 0.05:
                out.append(dump({"type": "compaction", "timestamp": g.iso(g.tick()), "summary": g.snippet(200, 1000),
                                 "firstKeptEntryIndex": len(out) - 10, "tokensBefore": r.randint(50000, 180000)}))
        name = g.iso(ms).replace(":", "-").replace(".", "-") + "_" + sid + ".jsonl"
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    {"session": session, "v1dir": v1dir}[kind](n, out, seed)
