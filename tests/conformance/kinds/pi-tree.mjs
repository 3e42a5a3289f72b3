// Answer kinds of pi-tree: pi's getTree() and the text of its /tree selector.
//
// Everything is computed by pi itself: `JSON.stringify(sm.getTree())` and
// `TreeSelectorComponent` rendered with a huge height and width, with the
// ANSI colours, the 2-column cursor, the fold glyphs and the (n/m) counter
// line removed. The cases are chosen per session (a subset of sessions gets
// every filter mode) to keep the fixtures small, so they are produced by
// extraFixtures() from the session files generate.mjs has just written.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SESSIONS = path.join(HERE, "..", "sessions");

export const KINDS = {};

const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"];
// Sessions that get every filter mode and several leaves.
const FULL = new Set([
	"v3-001", "v3-004", "v3-007", "v3-010", "v3-many-roots", "v3-labels", "v3-branch-summaries",
	"v3-clock-chaos", "v3-deep-compactions", "v2-002", "v3-usage", "v3-context-edits", "tree-pi16",
	"tree-cjk",
]);
// Sessions that get the exact getTree() JSON.
const JSON_SESSIONS = new Set(["v3-002", "v3-many-roots", "v3-labels", "v3-clock-chaos", "v2-002"]);
const SEARCH = [
	["v3-003", "json"],
	["v3-many-roots", "user tree"],
	["v3-labels", "LABEL"],
	["v3-branch-summaries", "branch summary"],
	["v3-005", "é"],
	["v3-context-edits", "context edit omit"],
	["v3-context-edits", "replace"],
];
// Sessions that get --width cases (pi rendered at N + 2, its cursor column).
const WIDTH_SESSIONS = new Set(["v3-005", "v3-labels", "v3-many-roots", "tree-pi16", "tree-cjk"]);
const WIDTHS = [1, 2, 5, 12, 20, 33, 47, 80];
// Wide text: widths where a row is cut just after "user: " or "assistant: "
// (pi's row then ends in a space, which its trimmed answer leaves out) and
// where a wide character would straddle the edge.
const CJK_WIDTHS = [7, 8, 9, 10, 11, 13, 14, 15, 16];

// Node writes a lone surrogate to stdout as U+FFFD.
const wellFormed = (s) => s.toWellFormed();

function open(pi, text) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-tree-"));
	const f = path.join(dir, "s.jsonl");
	fs.writeFileSync(f, text);
	const sm = pi.SessionManager.open(f);
	fs.rmSync(dir, { recursive: true, force: true });
	return sm;
}

function treeRows(pi, sm, leafId, filter, search, width) {
	const c = new pi.TreeSelectorComponent(sm.getTree(), leafId, 1e7, () => {}, () => {}, () => {}, undefined, filter);
	const list = c.getTreeList();
	if (search) {
		list.searchQuery = search;
		list.applyFilter();
	}
	const lines = list.render(width);
	lines.pop(); // the (n/m) counter
	return lines.map((l) => {
		const plain = l.replace(/\x1b\[[0-9;]*m/g, "");
		if (!plain.startsWith("› ") && !plain.startsWith("  ")) throw new Error(`no cursor column: ${plain}`);
		return wellFormed(plain.slice(2).replace(/[⊟⊞]/g, "─"));
	});
}

export function treeText(pi, sm, leafId, filter, search) {
	return treeRows(pi, sm, leafId, filter, search, 1e6)
		.map((l) => `${l.trimEnd()}\n`)
		.join("");
}

// pi's rows at our width N (pi's N + 2), or null where pi panned the rows
// sideways to show the selected one (we have no selection: no panning).
function treeTextAt(pi, sm, leafId, filter, n) {
	const wide = treeRows(pi, sm, leafId, filter, undefined, 1e6);
	const narrow = treeRows(pi, sm, leafId, filter, undefined, n + 2);
	if (narrow.length !== wide.length || narrow.some((l, k) => !wide[k].startsWith(l))) return null;
	return narrow.map((l) => `${l.trimEnd()}\n`).join("");
}

function leavesOf(sm, n) {
	const entries = sm.getEntries();
	const hasChild = new Set(entries.map((e) => e.parentId));
	const out = [];
	const push = (e) => {
		if (e && e.id !== sm.getLeafId() && !out.includes(e.id)) out.push(e.id);
	};
	push(entries.find((e) => !hasChild.has(e.id)));
	push(entries[Math.floor(entries.length / 2)]);
	push(entries.find((e) => e.type === "message" && e.message.role === "assistant" && !hasChild.has(e.id)));
	return out.slice(0, n);
}

function textCases(pi, name, sm) {
	const cases = [];
	const add = (args, what, stdout) => cases.push({ tool: "pi-tree", args, stdout, what });
	const full = FULL.has(name);
	const leaves = [null, ...leavesOf(sm, full ? 2 : 1)];
	for (const leaf of leaves) {
		const id = leaf ?? sm.getLeafId();
		for (const filter of full ? FILTERS : ["default"]) {
			const args = [...(leaf ? ["--leaf", leaf] : []), ...(filter === "default" ? [] : ["--filter", filter])];
			add(args, `/tree text, filter ${filter}, leaf ${id}`, treeText(pi, sm, id, filter));
		}
	}
	if (WIDTH_SESSIONS.has(name)) {
		for (const n of name === "tree-cjk" ? CJK_WIDTHS : WIDTHS) {
			for (const filter of ["default", "all"]) {
				const stdout = treeTextAt(pi, sm, sm.getLeafId(), filter, n);
				if (stdout === null) continue;
				const args = ["--width", String(n), ...(filter === "default" ? [] : ["--filter", filter])];
				add(args, `/tree text at width ${n + 2} (cursor column included), filter ${filter}`, stdout);
			}
		}
	}
	if (JSON_SESSIONS.has(name)) add(["--json"], "JSON.stringify(getTree())", `${wellFormed(JSON.stringify(sm.getTree()))}\n`);
	for (const [n, words] of SEARCH) {
		if (n === name) {
			add(["--search", words], `/tree text, search ${JSON.stringify(words)}`, treeText(pi, sm, sm.getLeafId(), "default", words));
			add(["--search", words, "--filter", "all"], `/tree text, filter all, search ${JSON.stringify(words)}`, treeText(pi, sm, sm.getLeafId(), "all", words));
		}
	}
	return cases;
}

// Hand-made shapes pi's API does not write (built as text, answered by pi).
const H = (id) => `{"type":"session","version":3,"id":"${id}","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/tmp/p"}`;
const msg = (id, parentId, ts, role, text) =>
	JSON.stringify({ type: "message", id, parentId, timestamp: ts, message: role === "user"
		? { role, content: text, timestamp: 1 }
		: { role, content: [{ type: "text", text }], api: "x", provider: "p", model: "m", usage: {}, stopReason: "stop", timestamp: 1 } });
const T = (s) => `2026-07-20T09:00:${String(s).padStart(2, "0")}.000Z`;

function shapes() {
	return [
		{
			name: "tree-roots",
			lines: [
				H("00000000-0000-4000-8000-0000000000a1"),
				msg("aaaa0001", null, T(1), "user", "first root"),
				msg("aaaa0002", "aaaa0001", T(2), "assistant", "answer one"),
				msg("aaaa0003", null, T(3), "user", "second root"),
				msg("aaaa0004", "aaaa0003", T(5), "assistant", "later child"),
				msg("aaaa0005", "aaaa0003", T(4), "assistant", "earlier child"),
				msg("aaaa0006", "ffff9999", T(6), "user", "orphan: parent missing"),
				msg("aaaa0007", "aaaa0007", T(7), "user", "self parent"),
				msg("aaaa0008", "aaaa0005", "not a date", "user", "bad timestamp child"),
				msg("aaaa0009", "aaaa0005", T(1), "user", "early child"),
				msg("aaaa000a", "aaaa0005", "garbage", "user", "second bad timestamp"),
				JSON.stringify({ type: "label", id: "aaaa000b", parentId: "aaaa000a", timestamp: T(9), targetId: "aaaa0003", label: "second" }),
				msg("aaaa000c", "aaaa0002", T(10), "user", "continue first"),
			],
		},
		{
			// pi 1.6: usage entries (hidden, one a branch point), context
			// edits, read ranges and home paths, wide text for --width.
			name: "tree-pi16",
			lines: (() => {
				const calls = [
					["read", { path: "/home/dev/src/a.rs", offset: "7", limit: " 3 " }],
					["read", { path: "/home/devx/b.rs", offset: null, limit: 5 }],
					["read", { file_path: "/home/dev/./x/../y//z/", offset: "x" }],
					["read", { path: "/home/dev", offset: 1e308, limit: 1e308 }],
					["read", { path: "rel/home/dev", offset: "0x10", limit: "1e1" }],
					["read", { path: "/home/dev/q", offset: 0, limit: 1 }],
					["read", { path: "/home/dev/r", limit: "  " }],
					["read", { path: "/home/dev/s", offset: true, limit: 2 }],
					["read", { path: "/home/dev/t", offset: "-0", limit: "+2.5" }],
					["ls", { path: "/home/dev/.." }],
					["grep", { pattern: "fn", path: "/home/dev/" }],
					["find", { pattern: "*.rs", path: "//home/dev/k" }],
					["edit", { path: "/home/dev2" }],
					["write", { file_path: "/" }],
				];
				const L = [H("00000000-0000-4000-8000-0000000000a3"), msg("cccc0001", null, T(1), "user", "日本語のテキストです、とても長い行になります 😀👍🏽 e\u0301 done")];
				const content = [{ type: "text", text: "I will read files ❤️ and 🇫🇷 flags" }, ...calls.map(([name, args], k) => ({ type: "toolCall", id: `call${k}`, name, arguments: args }))];
				L.push(JSON.stringify({ type: "message", id: "cccc0002", parentId: "cccc0001", timestamp: T(2), message: { role: "assistant", content, api: "x", provider: "p", model: "m", usage: {}, stopReason: "toolUse", timestamp: 1 } }));
				let parent = "cccc0002";
				calls.forEach(([name], k) => {
					const id = `cccd${String(k).padStart(4, "0")}`;
					L.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: T(3 + k), message: { role: "toolResult", toolCallId: `call${k}`, toolName: name, content: [{ type: "text", text: "ok" }], isError: false, timestamp: 1 } }));
					parent = id;
				});
				const usage = (id, parentId, ts) => JSON.stringify({ type: "usage", id, parentId, timestamp: ts, kind: "cache_warm", provider: "p", model: "m", usage: { input: 1, output: 2 } });
				L.push(usage("cccc0003", parent, T(20)));
				L.push(JSON.stringify({ type: "context_edit", id: "cccc0004", parentId: "cccc0003", timestamp: T(21), targetId: "cccc0002", replacement: null }));
				L.push(JSON.stringify({ type: "context_edit", id: "cccc0005", parentId: "cccc0004", timestamp: T(22), targetId: "cccd0001", replacement: { content: "short" } }));
				L.push(usage("cccc0006", "cccc0005", T(23)));
				L.push(msg("cccc0007", "cccc0006", T(24), "user", "ｈａｌｆ　ｗｉｄｔｈ ｶﾀｶﾅ and क्षि กำ"));
				L.push(msg("cccc0008", "cccc0006", T(25), "user", "second child of a usage entry"));
				L.push(usage("cccc0009", "cccc0008", T(26)));
				L.push(JSON.stringify({ type: "label", id: "cccc000a", parentId: "cccc0009", timestamp: T(27), targetId: "cccc0006", label: "on a usage" }));
				L.push(msg("cccc000b", "cccc000a", T(28), "assistant", "the end"));
				return L;
			})(),
		},
		{
			// --width on wide text: rows cut after a role label, before a
			// character two columns wide.
			name: "tree-cjk",
			lines: [
				H("00000000-0000-4000-8000-0000000000a4"),
				msg("dddd0001", null, T(1), "user", "日本語のテキストです"),
				msg("dddd0002", "dddd0001", T(2), "assistant", "中文回答很长的一行"),
				msg("dddd0003", "dddd0002", T(3), "user", "a 日本 b"),
				msg("dddd0004", "dddd0002", T(4), "user", "ｈａｌｆ　ｗｉｄｔｈ"),
				JSON.stringify({ type: "label", id: "dddd0005", parentId: "dddd0004", timestamp: T(5), targetId: "dddd0003", label: "日本" }),
			],
		},
		{
			name: "tree-cycle",
			lines: [
				H("00000000-0000-4000-8000-0000000000a2"),
				msg("bbbb0001", null, T(1), "user", "the root"),
				msg("bbbb0002", "bbbb0003", T(2), "user", "in a cycle"),
				msg("bbbb0003", "bbbb0002", T(3), "assistant", "also in the cycle"),
				msg("bbbb0004", "bbbb0001", T(4), "assistant", "reply to root"),
			],
		},
	];
}

export function extraFixtures(pi) {
	pi.initTheme("dark");
	const fixtures = [];
	for (const f of fs.readdirSync(SESSIONS).sort()) {
		const name = f.replace(/\.jsonl$/, "");
		if (!f.endsWith(".jsonl") || name.startsWith("v1-") || name.startsWith("tree-")) continue;
		if (!/^v[23]-/.test(name)) continue;
		const text = fs.readFileSync(path.join(SESSIONS, f), "utf8");
		fixtures.push({ name, text, cases: textCases(pi, name, open(pi, text)) });
	}
	for (const { name, lines } of shapes()) {
		const text = `${lines.join("\n")}\n`;
		const sm = open(pi, text);
		if (FULL.has(name)) {
			const cases = textCases(pi, name, sm);
			cases.push({ tool: "pi-tree", args: ["--json"], stdout: `${JSON.stringify(sm.getTree())}\n`, what: "JSON.stringify(getTree())" });
			fixtures.push({ name, text, cases });
			continue;
		}
		const cases = [];
		for (const filter of FILTERS) {
			cases.push({ tool: "pi-tree", args: filter === "default" ? [] : ["--filter", filter], stdout: treeText(pi, sm, sm.getLeafId(), filter), what: `/tree text, filter ${filter}` });
		}
		const other = sm.getEntries()[1].id;
		cases.push({ tool: "pi-tree", args: ["--leaf", other], stdout: treeText(pi, sm, other, "default"), what: `/tree text, leaf ${other}` });
		cases.push({ tool: "pi-tree", args: ["--json"], stdout: `${JSON.stringify(sm.getTree())}\n`, what: "JSON.stringify(getTree())" });
		fixtures.push({ name, text, cases });
	}
	return fixtures;
}
