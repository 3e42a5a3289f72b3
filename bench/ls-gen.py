#!/usr/bin/env python3
"""The generated session store of the store benchmarks (bench/ls.sh,
bench/grep.sh, bench/usage.sh).

  bench/ls-gen.py AGENT_DIR [SESSIONS] [SEED]

Writes AGENT_DIR/sessions/--home-dev-pNN--/<time>_<uuid>.jsonl: SESSIONS files
(default 10 000) over 40 projects, sizes log-normal (median ~100 KB, mean
~215 KB, at most 8 MB: ~2.1 GB for 10 000), made of pi-like lines (user
prompts, assistant turns with thinking, text and tool calls and their usage,
multi-line tool results of a few KB with quotes, tabs and non-ASCII text,
now and then a model change, a label or a session name); 5% are forks (a
parentSession header naming an earlier file, whose first entries they
repeat, ids and all, as pi's fork does), 3% version-1 files (no ids, no
version). The text comes from a 4 MB corpus drawn once, cut at random
offsets, so that files differ but generating stays fast. A rare phrase
("deadlock detected") is in about one tool result in 3 000, a common word
("session") in most files. Output depends only on the arguments.
"""
import datetime
import json
import os
import random
import sys
import uuid

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
WORDS = ("the a of to in is it that for on with as this be are by file line function return value error "
         "test build cargo node path tree session entry parent id const let fn impl struct match self "
         "résumé naïve café 你好 → ✓ 🙂").split()
CODE = [
    'fn main() {\n    println!("hello, {}", name);\n}\n',
    'const x = await fetch(url, { method: "POST" });\n',
    "\tif (a < b && c > d) { return a\\b; }\n",
    "error[E0308]: mismatched types\n  --> src/lib.rs:10:5\n",
    'diff --git a/src/x.rs b/src/x.rs\n@@ -1,3 +1,4 @@\n-old\n+new "quoted"\n',
]


def make_corpus(size):
    parts, k = [], 0
    while k < size:
        if rng.random() < 0.08:
            s = rng.choice(CODE)
        else:
            s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16)))
            s += rng.choice([". ", ".\n", ", ", "\n\n", "; "])
        parts.append(s)
        k += len(s)
    return "".join(parts)


CORPUS = make_corpus(4 << 20)


def text(chars):
    o = rng.randrange(0, len(CORPUS) - chars)
    return CORPUS[o:o + chars]


def iso(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def dump(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


MODELS = [("openai", "gpt-5.1", "openai-responses"), ("anthropic", "claude-sonnet-4-5", "anthropic-messages")]


def session(sid, t0, cwd, v1, parent):
    """The file's text; parent: (path, lines) of the session forked from."""
    lines = []
    h = {"type": "session", "version": 3, "id": sid, "timestamp": iso(t0), "cwd": cwd}
    if v1:
        del h["version"]
    if parent:
        h["parentSession"] = parent[0]
    lines.append(dump(h))
    target = min(int(rng.lognormvariate(11.5, 1.25)), 8 << 20)
    size = 0
    prev = None
    t = t0
    if parent and not v1 and "\"version\"" in parent[1][0]:
        # pi's fork: the path up to an entry, as it was in the source
        src = parent[1][1:]
        for line in src[: rng.randint(1, max(1, len(src)))]:
            lines.append(line)
            size += len(line) + 1
            prev = json.loads(line).get("id", prev)
    k = 0
    provider, model, api = rng.choice(MODELS)
    while size < target:
        k += 1
        t += rng.randint(500, 60000)
        r = rng.random()
        e = {"type": "message"}
        if r < 0.01:
            provider, model, api = rng.choice(MODELS)
            e = {"type": "model_change", "provider": provider, "modelId": model}
            msg = None
        elif r < 0.012 and not v1:
            e = {"type": "session_info", "name": text(rng.randint(10, 40)).replace("\n", " ")}
            msg = None
        elif r < 0.014 and not v1 and prev:
            e = {"type": "label", "targetId": prev, "label": "checkpoint %d" % k}
            msg = None
        elif r < 0.25:
            msg = {"role": "user", "content": [{"type": "text", "text": text(rng.randint(30, 600))}], "timestamp": t}
        elif r < 0.6:
            inp = rng.randint(500, 150000)
            out_t = rng.randint(20, 4000)
            cr = rng.randint(0, inp)
            cost = {"input": inp * 3e-6, "output": out_t * 15e-6, "cacheRead": cr * 3e-7, "cacheWrite": 0}
            cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"]
            msg = {"role": "assistant", "content": [{"type": "thinking", "thinking": text(rng.randint(60, 1200))},
                                                    {"type": "text", "text": text(rng.randint(60, 1800))},
                                                    {"type": "toolCall", "id": "call_%d" % k, "name": "bash",
                                                     "arguments": {"command": text(rng.randint(5, 60))}}],
                   "api": api, "provider": provider, "model": model,
                   "usage": {"input": inp, "output": out_t, "cacheRead": cr, "cacheWrite": 0,
                             "totalTokens": inp + out_t + cr, "cost": cost},
                   "stopReason": "toolUse", "timestamp": t}
        else:
            body = text(rng.randint(100, 6000))
            if rng.random() < 1 / 3000:
                body += "\nthread 'main' panicked: deadlock detected\n"
            msg = {"role": "toolResult", "toolCallId": "call_%d" % k, "toolName": "bash",
                   "content": [{"type": "text", "text": body}], "isError": False, "timestamp": t}
        if not v1:
            eid = "%08x" % rng.getrandbits(32)
            e = {"type": e["type"], "id": eid, "parentId": prev, **{a: b for a, b in e.items() if a != "type"}}
            prev = eid
        e["timestamp"] = iso(t)
        if msg is not None:
            e["message"] = msg
        line = dump(e)
        size += len(line) + 1
        lines.append(line)
    return lines


made = []
total = 0
for i in range(n):
    p = i % 40
    d = os.path.join(out, "sessions", "--home-dev-p%02d--" % p)
    os.makedirs(d, exist_ok=True)
    t0 = 1735689600000 + i * 3_000_000 + rng.randint(0, 999)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    path = os.path.join(d, iso(t0).replace(":", "-").replace(".", "-") + "_" + sid + ".jsonl")
    parent = None
    if made and rng.random() < 0.05:
        pp = rng.choice(made[-200:])
        with open(pp, encoding="utf-8") as f:
            parent = (pp, f.read().split("\n")[:-1])
    lines = session(sid, t0, "/home/dev/p%02d" % p, rng.random() < 0.03, parent)
    s = "\n".join(lines) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(s)
    total += len(s.encode())
    made.append(path)
print("%d sessions, %.2f GB" % (n, total / 1e9))
