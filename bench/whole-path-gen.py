#!/usr/bin/env python3
"""The whole-path workload of issue 32 item 5: a real pi session, repeated.

  bench/whole-path-gen.py MIGRATED.jsonl TARGET_MB OUT.jsonl

MIGRATED.jsonl is a version-3 session (bench/whole-path.sh migrates
../shared/fixtures/pi-v1-large-session.jsonl with pi-migrate). Its header is
written once; then its entries are written again and again, each copy with
fresh 8-hex-digit ids, every entry's parent the entry before it, so that the
file is one path from the root to the leaf, until the file reaches TARGET_MB
(10^6 bytes). Compactions are dropped: the whole path is what every tool
reads. Each line keeps its bytes but for its `id` and `parentId`, so the
file is as real as the session it comes from. Deterministic.
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, target, out = sys.argv[1], int(sys.argv[2]) * 1_000_000, sys.argv[3]
    with open(src, "rb") as f:
        lines = [l.rstrip(b"\n") for l in f if l.strip()]
    header, entries = lines[0], []
    for line in lines[1:]:
        e = json.loads(line)
        if e.get("type") == "compaction":
            continue
        # The migrated lines end with their ids: cut them off and append fresh ones.
        tail = b',"id":"%s","parentId":' % e["id"].encode()
        cut = line.rfind(tail)
        if cut < 0:
            sys.exit("%s: entry %s does not end with its ids" % (src, e["id"]))
        entries.append(line[:cut])
    n, parent, size = 0, None, 0
    with open(out, "wb") as f:
        f.write(header + b"\n")
        size += len(header) + 1
        while size < target:
            for body in entries:
                # An odd multiplier is a bijection on 32 bits: ids never repeat.
                id = b"%08x" % ((n * 0x9E3779B1 + 0x1234567) & 0xFFFFFFFF)
                n += 1
                p = b"null" if parent is None else b'"' + parent + b'"'
                line = body + b',"id":"' + id + b'","parentId":' + p + b"}\n"
                f.write(line)
                size += len(line)
                parent = id
    print("%s: %d entries, %d bytes" % (out, n, size))


main()
