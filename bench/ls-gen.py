#!/usr/bin/env python3
"""A generated session store for the pi-ls benchmark (bench/ls.sh).

  bench/ls-gen.py AGENT_DIR [SESSIONS] [SEED]

Writes AGENT_DIR/sessions/--home-dev-pNN--/<time>_<uuid>.jsonl: SESSIONS files
(default 10 000) over 40 projects, sizes log-normal (median ~90 KB, mean
~200 KB, at most 8 MB: ~2 GB for 10 000), made of pi-like lines (user prompts,
assistant turns with thinking and tool calls, tool results of a few KB);
5% are forks (a parentSession header naming an earlier file), 3% version-1
files (no ids, no version). Output depends only on the arguments.
"""
import json
import os
import random
import sys
import uuid

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
WORDS = ("the a of to in is it that for on with as this be are by file line function return value error "
         "test build cargo node path tree session entry parent id résumé naïve café 你好 → ✓ 🙂").split()


def text(k):
    return " ".join(rng.choice(WORDS) for _ in range(k))


def iso(ms):
    import datetime
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def session(sid, t0, cwd, v1, parent):
    lines = []
    h = {"type": "session", "version": 3, "id": sid, "timestamp": iso(t0), "cwd": cwd}
    if v1:
        del h["version"]
    if parent:
        h["parentSession"] = parent
    lines.append(json.dumps(h, separators=(",", ":"), ensure_ascii=False))
    target = min(int(rng.lognormvariate(11.4, 1.25)), 8 << 20)
    size = 0
    prev = None
    t = t0
    k = 0
    while size < target:
        k += 1
        t += rng.randint(500, 60000)
        r = rng.random()
        if r < 0.25:
            msg = {"role": "user", "content": [{"type": "text", "text": text(rng.randint(5, 80))}], "timestamp": t}
        elif r < 0.6:
            msg = {"role": "assistant", "content": [{"type": "thinking", "thinking": text(rng.randint(10, 200))},
                                                    {"type": "text", "text": text(rng.randint(10, 300))},
                                                    {"type": "toolCall", "id": "call_%d" % k, "name": "bash", "arguments": {"command": "ls -la"}}],
                   "api": "openai-responses", "provider": "openai", "model": "gpt-5.1",
                   "usage": {"input": 1000, "output": 200, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1200,
                             "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}},
                   "stopReason": "toolUse", "timestamp": t}
        else:
            msg = {"role": "toolResult", "toolCallId": "call_%d" % k, "toolName": "bash",
                   "content": [{"type": "text", "text": "\n".join(text(12) for _ in range(rng.randint(5, 120)))}],
                   "isError": False, "timestamp": t}
        e = {"type": "message"}
        if not v1:
            eid = "%08x" % rng.getrandbits(32)
            e["id"] = eid
            e["parentId"] = prev
            prev = eid
        e["timestamp"] = iso(t)
        e["message"] = msg
        line = json.dumps(e, separators=(",", ":"), ensure_ascii=False)
        size += len(line) + 1
        lines.append(line)
    return "\n".join(lines) + "\n"


made = []
total = 0
for i in range(n):
    p = i % 40
    d = os.path.join(out, "sessions", "--home-dev-p%02d--" % p)
    os.makedirs(d, exist_ok=True)
    t0 = 1735689600000 + i * 3_000_000 + rng.randint(0, 999)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    path = os.path.join(d, iso(t0).replace(":", "-").replace(".", "-") + "_" + sid + ".jsonl")
    parent = rng.choice(made) if made and rng.random() < 0.05 else None
    s = session(sid, t0, "/home/dev/p%02d" % p, rng.random() < 0.03, parent)
    with open(path, "w", encoding="utf-8") as f:
        f.write(s)
    total += len(s.encode())
    made.append(path)
print("%d sessions, %.2f GB" % (n, total / 1e9))
