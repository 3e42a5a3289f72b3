#!/usr/bin/env python3
"""Deterministic benchmark workloads for pi-session-tools.

  bench/gen.py session ENTRIES OUT.jsonl [SEED]   one version-3 session
  bench/gen.py real ENTRIES OUT.jsonl [SEED]      one version-3 session shaped
                                                  like real ones (code-heavy)
  bench/gen.py v1dir COUNT OUTDIR [SEED]          COUNT version-1 sessions
  bench/gen.py shape FILE...                      the shape of sessions (below)

Sessions look like real pi sessions: user prompts, assistant turns with
thinking blocks and tool calls, long tool outputs (multi-line, quotes,
tabs, non-ASCII), model and thinking-level changes, labels, branches (a
prompt re-asked from an earlier entry, often with a branch summary) and a
compaction every ~1 500 entries. The average entry is about 1 KB, so
50 000 entries make ~50 MB. The leaf's path holds nearly every entry.
Output depends only on the arguments (random.Random(SEED)).

`real` is the workload of issue 21: the tool calls and results of real pi
sessions (`read` of source files, `bash` output, `edit` with old and new
text and a diff in `details`, `write` of whole files), with code indented
by tabs, quoted strings and escapes, and long-tailed sizes; it was fitted
to the real sessions in ../shared/fixtures (`shape` prints the numbers the
fit looks at: backslashes and quotes per KB, the median, p90 and p99 of
line lengths, the share of bytes in tool results). About 1.6 KB an entry:
300 000 entries make ~500 MB.
"""
import json
import os
import random
import re
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


IDENT = (
    "value result entry session path parent node index count text line file options "
    "config error items children label leaf tree context message output input buffer "
    "offset length width height state props event handler callback render theme"
).split()
TYPES = ["string", "number", "boolean", "Entry", "Session", "Node[]", "Map<string, Entry>", "void", "Promise<void>"]
CODE_LINES = [
    'import { {a}, {b} } from "./{c}.js";',
    'import {a} from "@earendil-works/{b}";',
    "export function {a}({b}: {T}, {c}?: {T}): {T} {",
    "const {a} = {b}.{c}({d});",
    'const {a} = "{b}-{c}";',
    "let {a}: {T} = {b}[{c}];",
    "if ({a} === undefined || {b}.length === 0) {",
    "} else if ({a} > {b}) {",
    "for (const {a} of {b}.{c}) {",
    "return {a}.{b}.map(({c}) => {c}.{d});",
    "return;",
    "}",
    "},",
    "});",
    "// {a} the {b} of the {c} before the {d}",
    "/** The {a} of {b}, or undefined. */",
    'throw new Error(`{a}: no {b} "${{c}}"`);',
    'console.log("{a}:", {b});',
    "{a}.push({b});",
    "const {a} = new {T}();",
    "{a}.{b} = {c} ?? {d};",
    "private {a}: {T} = {b};",
    'const {a} = {b}.split("\\n").filter((l) => l.trim() !== "");',
    "await this.{a}.{b}({c}, { {d}: true });",
    'expect({a}).toBe("{b}");',
    "{a} += {b}.length;",
    "case \"{a}\":",
    "",
]
BASH_LINES = [
    "src/{a}/{b}.ts:{n}:{m} - error TS2345: Argument of type '{T}' is not assignable to parameter of type '{T}'.",
    "  {a}.test.ts > {b} > {c} ({n} ms)",
    " ✓ {a}/{b}.test.ts ({n} tests) {m}ms",
    "-rw-r--r-- 1 dev dev {n} Nov 20 23:{m} {a}.ts",
    "{a}/{b}/{c}.ts",
    "npm warn deprecated {a}@{n}.{m}.0: use {b} instead",
    "    at {a} (/home/dev/project/src/{b}.ts:{n}:{m})",
    "{n} files changed, {m} insertions(+), {n} deletions(-)",
    '  "{a}": "^{n}.{m}.0",',
    "\t{a}\t{b}\t{n}",
]


class Code:
    """Source text, tool output and diffs for the `real` workload."""

    def __init__(self, rng):
        self.rng = rng
        self.code = self.make_code(30000)
        self.bash = self.make_bash(12000)

    def fill(self, t):
        r = self.rng
        pick = {"a": IDENT, "b": IDENT, "c": IDENT, "d": IDENT, "T": TYPES}
        return re.sub(r"\{([abcdTnm])\}", lambda m: r.choice(pick[m[1]]) if m[1] in pick
                      else str(r.randint(1, 999 if m[1] == "n" else 99)), t)

    def make_code(self, n):
        r, depth, out = self.rng, 0, []
        for _ in range(n):
            t = r.choice(CODE_LINES)
            if t.startswith("}") and depth > 0:
                depth -= 1
            out.append("\t" * depth + self.fill(t) if t else "")
            if t.endswith("{") and depth < 5:
                depth += 1
        return out

    def make_bash(self, n):
        return [self.fill(self.rng.choice(BASH_LINES)) for _ in range(n)]

    def size(self, median, lo, hi, sigma=1.25):
        return int(min(hi, max(lo, self.rng.lognormvariate(0, sigma) * median)))

    def lines(self, src, chars):
        o = self.rng.randrange(0, len(src) - 1)
        out, n = [], 0
        while n < chars:
            s = src[o % len(src)]
            out.append(s)
            n += len(s) + 1
            o += 1
        return out

    def text(self, src, median, lo, hi):
        return "\n".join(self.lines(src, self.size(median, lo, hi)))

    def diff(self, chars):
        r, out = self.rng, []
        no = r.randint(1, 500)
        for s in self.lines(self.code, chars):
            x = r.random()
            mark = "-" if x < 0.15 else "+" if x < 0.35 else " "
            out.append("%s%4d %s" % (mark, no, s))
            no += 1
        return "\n".join(out)


def real_messages(g, code):
    """The messages of one turn of the `real` workload: a user prompt, then
    assistant turns with tool calls and their results."""
    r = g.rng

    def path():
        return "src/%s/%s.ts" % (r.choice(IDENT), r.choice(IDENT))

    def call():
        x = r.random()
        if x < 0.42:
            name, args = "bash", {"command": r.choice(["npm run check 2>&1 | tail -40", "git diff --stat", "rg -n \"%s\" src/" % r.choice(IDENT),
                                                       "cd /home/dev/project && npx vitest run %s" % path(), "ls -la src/%s" % r.choice(IDENT)])}
            if r.random() < 0.3:
                args["timeout"] = 120
        elif x < 0.72:
            name, args = "edit", {"path": path(), "oldText": code.text(code.code, 150, 20, 6000), "newText": code.text(code.code, 180, 20, 8000)}
        elif x < 0.95:
            name, args = "read", {"path": path()}
            if r.random() < 0.7:
                args.update({"offset": r.randint(1, 400), "limit": r.choice([50, 100, 200])})
        else:
            name, args = "write", {"path": path(), "content": code.text(code.code, 3000, 200, 40000)}
        return {"type": "toolCall", "id": "toolu_%024x" % r.getrandbits(96), "name": name, "arguments": args}

    def result(c):
        name, args = c["name"], c["arguments"]
        details = None
        if name == "bash":
            text = code.text(code.bash, 300, 10, 30000)
        elif name == "read":
            text = code.text(code.code, 1500, 100, 50000)
        elif name == "edit":
            text = "Successfully replaced text in %s. Changed %d characters to %d characters." % (args["path"], len(args["oldText"]), len(args["newText"]))
            details = {"diff": code.diff(code.size(700, 100, 12000))}
        else:
            text = "Successfully wrote %d bytes to %s" % (len(args["content"]), args["path"])
        m = {"role": "toolResult", "toolCallId": c["id"], "toolName": name, "content": [{"type": "text", "text": text}]}
        if details:
            m["details"] = details
        m["isError"] = r.random() < 0.04
        return m

    yield {"role": "user", "content": [{"type": "text", "text": g.snippet(10, 300)}]}
    for k in range(r.randint(1, 8)):
        content = []
        if r.random() < 0.2:
            content.append({"type": "thinking", "thinking": g.snippet(50, 800), "thinkingSignature": "sig" + "%x" % r.getrandbits(64)})
        if r.random() < 0.5:
            content.append({"type": "text", "text": g.snippet(10, 300)})
        tool = k < 7 and r.random() < 0.9
        calls = [call() for _ in range(1 if r.random() < 0.85 else 2)] if tool else []
        content.extend(calls)
        if not content:
            content.append({"type": "text", "text": g.snippet(20, 200)})
        yield {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
               "model": "claude-sonnet-4-5", "usage": g.usage(), "stopReason": "toolUse" if calls else "stop"}
        for c in calls:
            yield result(c)
        if not calls:
            break


def dump(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def session(n, out, seed, real=False):
    g = Gen(seed)
    code = Code(g.rng) if real else None
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
            if real:
                for m in real_messages(g, code):
                    if count >= n:
                        break
                    _, ms = add({"type": "message", "message": None})
                    m["timestamp"] = ms
                    lines[-1] = lines[-1][:-len(',"message":null}')] + ',"message":' + dump(m) + "}"
                    count += 1
            else:
                _, ms = add({"type": "message", "message": None})
                lines[-1] = lines[-1][:-len(',"message":null}')] + ',"message":' + dump(g.user(ms)) + "}"
                count += 1
            for k in range(0 if real else r.randint(0, 4)):
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


def shape(paths):
    """Backslashes and quotes per KB, line lengths (median, p90, p99) and the
    share of bytes in tool results (toolResult messages and bashExecution
    entries) of the session files `paths`, taken together."""
    total = backslashes = quotes = tool = 0
    lengths = []
    for p in paths:
        with open(p, "rb") as f:
            for line in f:
                line = line.rstrip(b"\n")
                if not line:
                    continue
                total += len(line)
                backslashes += line.count(b"\\")
                quotes += line.count(b'"')
                lengths.append(len(line))
                try:
                    m = json.loads(line).get("message")
                except (ValueError, AttributeError):
                    continue
                if isinstance(m, dict) and m.get("role") in ("toolResult", "bashExecution"):
                    tool += len(line)
    lengths.sort()
    at = lambda q: lengths[min(len(lengths) - 1, int(len(lengths) * q))]
    return {"MB": total / 1e6, "lines": len(lengths), "backslashes/KB": backslashes / total * 1024, "quotes/KB": quotes / total * 1024,
            "median": at(0.5), "p90": at(0.9), "p99": at(0.99), "tool share": tool / total}


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "shape":
        s = shape(sys.argv[2:])
        print(" ".join("%s=%s" % (k, ("%.2f" % v) if isinstance(v, float) else v) for k, v in s.items()))
        sys.exit(0)
    n, out = int(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if kind == "real":
        session(n, out, seed, real=True)
    else:
        {"session": session, "v1dir": v1dir}[kind](n, out, seed)
