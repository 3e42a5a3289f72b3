#!/usr/bin/env python3
"""Writes the store the ccusage comparison runs on (assistant messages only,
no forks: what `ccusage pi` reads). Deterministic."""
import json, os, random, sys
root = sys.argv[1] if len(sys.argv) > 1 else "store"
rnd = random.Random(20)
models = [("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"), ("google", "gemini-2.5-pro")]
for p in range(2):
    cwd = f"/home/dev/proj{p}"
    d = os.path.join(root, "sessions", "--home-dev-proj%d--" % p)
    os.makedirs(d, exist_ok=True)
    for s in range(3):
        sid = "0198%04x-0000-7000-8000-%012x" % (p * 16 + s, p * 16 + s)
        day0 = 1772323200000 + (p * 3 + s) * 86400000 * 2  # 2026-03-01
        ts = lambda ms: __import__("datetime").datetime.utcfromtimestamp(ms / 1000).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)
        lines = [json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": ts(day0), "cwd": cwd}, separators=(",", ":"))]
        parent = None
        for i in range(12):
            ms = day0 + i * 3600000 * 5 + rnd.randrange(3600000)
            eid = "%08x" % rnd.getrandbits(32)
            prov, model = models[rnd.randrange(3)]
            inp, out, cr, cw = rnd.randrange(5000), rnd.randrange(2000), rnd.randrange(50000), rnd.randrange(3000)
            c = [inp * 3e-6, out * 15e-6, cr * 3e-7, cw * 3.75e-6]
            usage = {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw, "totalTokens": inp + out + cr + cw,
                     "cost": {"input": c[0], "output": c[1], "cacheRead": c[2], "cacheWrite": c[3], "total": c[0] + c[1] + c[2] + c[3]}}
            msg = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "api": "x", "provider": prov, "model": model,
                   "usage": usage, "stopReason": "stop", "timestamp": ms}
            lines.append(json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(ms), "message": msg}, separators=(",", ":")))
            # every third message starts a new branch from the same parent
            if i % 3 != 2:
                parent = eid
        with open(os.path.join(d, ts(day0).replace(":", "-").replace(".", "-") + "_" + sid + ".jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")
