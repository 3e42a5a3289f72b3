// Answer kinds of pi-path and pi-convert on hand-made shapes that pi 1.x reads but
// its API does not write: context edits with odd replacements and targets, null
// and missing content, nested and keep-nothing compactions with and without a
// system checkpoint, messages that are not objects, an id-less last line.
//
// Every line is written with JSON.stringify (so "entries printed with their own
// bytes" and pi's re-serialisation agree), but for the shapes given as text
// (lines that are not objects, JavaScript white space); every answer is pi's own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { treeText } from "./pi-tree.mjs";

export const KINDS = {};

const H = (n) => ({ type: "session", version: 3, id: `00000000-0000-4000-8000-0000000000b${n}`, timestamp: "2026-07-20T09:00:00.000Z", cwd: "/tmp/p" });
const T = (s) => `2026-07-20T09:${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000Z`;
let clock = 0;
const e = (type, id, parentId, rest) => ({ type, id, parentId, timestamp: T(++clock), ...rest });
const m = (id, parentId, message) => e("message", id, parentId, { message });
const user = (content) => ({ role: "user", content, timestamp: 1 });
const asst = (content) => ({ role: "assistant", content, api: "x", provider: "p", model: "m", usage: {}, stopReason: "stop", timestamp: 2 });
const edit = (id, parentId, targetId, replacement) => {
	const x = e("context_edit", id, parentId, { targetId });
	if (replacement !== undefined) x.replacement = replacement;
	return x;
};
const SYS = { role: "system", content: "checkpoint prompt", sections: { "<rules>": "be brief" }, timestamp: 5 };

function shapes() {
	clock = 0;
	const edits = [
		H(1),
		m("e0000001", null, { role: "system", content: "base prompt", timestamp: 0 }),
		m("e0000002", "e0000001", user("first question")),
		m("e0000003", "e0000002", asst([{ type: "text", text: "first answer" }])),
		m("e0000004", "e0000003", { role: "toolResult", toolCallId: "c1", toolName: "read", content: null, isError: false, timestamp: 3 }),
		m("e0000005", "e0000004", { role: "system", timestamp: 4 }),
		e("custom_message", "e0000006", "e0000005", { customType: "ext", content: null, display: true }),
		m("e0000007", "e0000006", { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false, timestamp: 6 }),
		e("branch_summary", "e0000008", "e0000007", { fromId: "root", summary: "we went elsewhere" }),
		m("e0000009", "e0000008", { role: "custom", customType: "note", content: "custom role", display: true, timestamp: 7 }),
		m("e000000a", "e0000009", user([{ type: "text", text: "second" }])),
		m("e000000b", "e000000a", asst("a string content")),
		m("e000000c", "e000000b", "a message that is a string"),
		m("e000000d", "e000000c", 42),
		m("e000000e", "e000000d", user(null)),
		m("e000000f", "e000000e", { role: "user", timestamp: 8 }),
		// edits: string on an assistant (becomes a text block), blocks on a tool result,
		// omit a system message, string on a custom_message, on a bash execution and a
		// branch summary (unchanged and omitted), replacement that is no object, an
		// object without content, an array, an edit of an id that is not on the path,
		// two edits of one entry (the later wins)
		edit("ed000001", "e000000f", "e0000003", { content: "edited answer" }),
		edit("ed000002", "ed000001", "e0000004", { content: [{ type: "text", text: "edited result" }] }),
		edit("ed000003", "ed000002", "e0000005", null),
		edit("ed000004", "ed000003", "e0000006", { content: "custom edited" }),
		edit("ed000005", "ed000004", "e0000007", { content: "bash edited" }),
		edit("ed000006", "ed000005", "e0000008", null),
		edit("ed000007", "ed000006", "e0000009", { content: [{ type: "text", text: "custom role edited" }] }),
		edit("ed000008", "ed000007", "e000000a", "just a string"),
		edit("ed000009", "ed000008", "e000000b", {}),
		edit("ed00000a", "ed000009", "e000000e", [1, 2]),
		edit("ed00000b", "ed00000a", "ffffffff", null),
		edit("ed00000c", "ed00000b", "e0000002", { content: "first edit" }),
		edit("ed00000d", "ed00000c", "e0000002", { content: "second edit wins" }),
		edit("ed00000e", "ed00000d", "e0000001", { content: "a system message keeps its content" }),
		edit("ed00000f", "ed00000e", "e000000f", { content: 7 }),
		m("e0000010", "ed00000f", user("after the edits")),
	];
	clock = 0;
	const compactions = [
		H(2),
		m("c0000001", null, { role: "system", content: "prompt one", timestamp: 0 }),
		m("c0000002", "c0000001", user("one")),
		m("c0000003", "c0000002", asst([{ type: "text", text: "two" }])),
		m("c0000004", "c0000003", { role: "system", content: [{ type: "text", text: "prompt two" }], timestamp: 1 }),
		e("compaction", "c0000005", "c0000004", { summary: "first summary", firstKeptEntryId: "c0000002", tokensBefore: 1000, systemMessage: SYS }),
		m("c0000006", "c0000005", user("three")),
		edit("c0000007", "c0000006", "c0000003", { content: "edited before the compaction" }),
		m("c0000008", "c0000007", { role: "system", content: "prompt three", timestamp: 2 }),
		m("c0000009", "c0000008", asst([{ type: "text", text: "four" }])),
		// the newest compaction keeps from before the first one: the first is in the
		// kept range and contributes nothing; its system checkpoint is falsy
		e("compaction", "c000000a", "c0000009", { summary: "second summary", firstKeptEntryId: "c0000003", tokensBefore: 2000, systemMessage: null }),
		m("c000000b", "c000000a", user("five")),
		edit("c000000c", "c000000b", "c0000005", null),
		edit("c000000d", "c000000c", "c0000003", { content: "edited after the compaction" }),
		m("c000000e", "c000000d", asst([{ type: "text", text: "six" }])),
		// keep nothing: firstKeptEntryId is the compaction's own id
		e("compaction", "c000000f", "c000000e", { summary: "third summary", firstKeptEntryId: "c000000f", tokensBefore: 0, systemMessage: { role: "system", content: "", timestamp: 9 } }),
		m("c0000010", "c000000f", user("seven")),
		edit("c0000011", "c0000010", "c000000f", { content: "compaction edit: unchanged" }),
	];
	clock = 0;
	const idless = [
		H(3),
		m("d0000001", null, user("hi")),
		m("d0000002", "d0000001", user("second")),
		{ type: "message", parentId: "d0000001", timestamp: T(3), message: user("no id on the last line") },
	];
	clock = 0;
	// Duplicate ids: pi's getTree() holds the later entry's node once per
	// entry with that id (the earlier one is in no node), and /tree lays out
	// by id: only the last row of an id is laid out anew after filtering.
	const dups = [
		H(4),
		m("f0000001", null, user("root")),
		m("f0000002", "f0000001", asst([{ type: "text", text: "child" }])),
		m("f0000003", "f0000002", user("grand")),
		e("label", "f0000009", "f0000003", { targetId: "f0000003", label: "keep" }),
		m("f0000002", "f0000001", asst([{ type: "text", text: "dup of the child" }])),
		m("f0000004", "f0000002", user("under the dup")),
		e("model_change", "f0000005", "f0000004", { provider: "p", modelId: "m2" }),
		m("f0000006", "f0000005", user("after a hidden entry")),
		m("f0000001", null, user("the root again")),
		m("f0000007", "f0000006", asst([{ type: "text", text: "last" }])),
	];
	// Lines that are JSON but not objects: pi keeps the truthy ones as entries
	// (no type, no id: roots of getTree(), the leaf when last) and drops null,
	// false, 0 and "".
	const S = (x) => JSON.stringify(x);
	const notObject = [
		S(H(4)),
		S(m("f0000001", null, user("hi"))),
		"[1,2,3]",
		'"a string"',
		"42",
		"null",
		"true",
		"false",
		"0",
		'""',
		S(m("f0000002", "f0000001", user("after them"))),
		"[1]",
	].join("\n") + "\n";
	clock = 0;
	// The last entry says "id": null: pi's leaf is null, its context empty.
	const nullId = [H(5), m("f1000001", null, user("hi")), m(null, "f1000001", user("null id"))].map(S).join("\n") + "\n";
	clock = 0;
	// JavaScript white space that is not JSON's: a line of it alone is blank to
	// pi (String.prototype.trim); around an entry, JSON.parse fails and pi skips it.
	const WS = ["\u00a0", "\u3000", "\u2028", "\u2029", "\u000b", "\u000c", "\ufeff"];
	const jsSpace = [
		S(H(6)),
		...WS,
		S(m("f2000001", null, user("one"))),
		`${S(m("f2000002", "f2000001", user("nbsp before: skipped")))}`.replace(/^/, "\u00a0"),
		`${S(m("f2000003", "f2000001", user("ideographic space after: skipped")))}\u3000`,
		`${S(m("f2000004", "f2000001", user("CR then LS after: skipped")))}\r\u2028`,
		...WS.map((w) => w + w),
	].join("\n") + "\n" + WS.join("");
	// Labels that are not strings: pi keeps any truthy value (`if (entry.label)`),
	// shows `[${label}]` and writes the value itself (a lone surrogate stays an escape).
	const L = (id, parentId, s, target, label) =>
		`{"type":"label","id":"${id}","parentId":"${parentId}","timestamp":"${T(s)}","targetId":"${target}"${label === undefined ? "" : `,"label":${label}`}}`;
	const labels = [
		S(H(7)),
		S(m("f3000001", null, user("one"))),
		S(m("f3000002", "f3000001", user("two"))),
		S(m("f3000003", "f3000002", user("three"))),
		S(m("f3000004", "f3000003", user("four"))),
		L("f3000005", "f3000004", 5, "f3000001", "42"),
		L("f3000006", "f3000005", 6, "f3000002", '"x\\ud800"'),
		L("f3000007", "f3000006", 7, "f3000003", '[1,null,"a"]'),
		L("f3000008", "f3000007", 8, "f3000004", "{}"),
		L("f3000009", "f3000008", 9, "f3000004", "true"),
		L("f300000a", "f3000009", 10, "f3000003", "0"),
		L("f300000b", "f300000a", 11, "f3000003", "1.5e+300"),
		S(m("f300000c", "f300000b", user("after the labels"))),
	].join("\n") + "\n";
	clock = 0;
	// Ids that are not strings: pi keys its Maps by the value itself (the
	// number 1 and 1.0 are one key, the string "1" another; an object only
	// itself), follows truthy parent ids on a path, and any but null in /tree.
	const lab = (id, parentId, targetId, label) => e("label", id, parentId, { targetId, label });
	const nonString = [
		H(8),
		m(1, null, user("number one")),
		m("1", 1, asst([{ type: "text", text: "string one, child of the number" }])),
		m(2, "1", user("number two")),
		m(true, 2, asst([{ type: "text", text: "id true" }])),
		m("", true, user("empty-string id")),
		m(0, "", asst([{ type: "text", text: "id 0: its parent is the empty string, which a path does not follow" }])),
		m(false, 0, user("id false, parent 0")),
		m({ k: 1 }, false, user("an object id")),
		m("y", 2, user("a sibling of true")),
		lab("l1", "y", 2, "two-by-number"),
		lab("l2", "l1", "1", "one-by-string"),
		m(2.5, { k: 1 }, asst([{ type: "text", text: "parent is an object: a root" }])),
		m("z", 1, user("child of number one")),
		m(7, "z", asst([{ type: "text", text: "the last entry: pi's leaf is the number 7" }])),
	];
	clock = 0;
	// Falsy and missing parents with id-less entries: /tree looks up any
	// parentId but null (a missing one finds the last entry without an id).
	const falsy = [
		H(9),
		m("g0000001", null, user("root")),
		e("custom", undefined, "g0000001", { customType: "x", data: 1 }),
		m("g0000003", undefined, user("no parentId: under the id-less entry in /tree")),
		m("", "g0000003", asst([{ type: "text", text: "empty id" }])),
		m("g0000005", "", user("parent is the empty string")),
		m("g0000006", false, user("parent false")),
		m("g0000007", 0, user("parent 0")),
		m("g0000008", "g0000001", user("last")),
	];
	return [
		{ name: "path-non-string-ids", objs: nonString, leaves: [null, "y", "2", "true", "0", "2.5", "1"], writes: [null, "y", "2", "true", "1"] },
		{ name: "path-falsy-parents", objs: falsy, leaves: [null, "g0000005", "g0000006", "g0000007", "g0000003"] },
		{ name: "path-odd-labels", text: labels, leaves: [null, "f3000003"] },
		{ name: "path-dup-ids", objs: dups, leaves: [null, "f0000003", "f0000004"] },
		{ name: "path-not-object", text: notObject, leaves: [null, "f0000002"] },
		// (pi's /tree never returns at a null leaf: no tree text answers)
		{ name: "path-null-id-leaf", text: nullId, leaves: [null, "f1000001"], noTreeText: true },
		{ name: "path-js-space", text: jsSpace, leaves: [null] },
		{ name: "path-edits", objs: edits, leaves: [null, "ed000008", "e000000b"] },
		{ name: "path-compactions", objs: compactions, leaves: [null, "c000000e", "c000000b", "c0000009", "c0000006"] },
		{ name: "path-idless-leaf", objs: idless, leaves: [null, "d0000002"] },
	];
}

function open(pi, text) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-path-"));
	const f = path.join(dir, "s.jsonl");
	fs.writeFileSync(f, text);
	const sm = pi.SessionManager.open(f);
	fs.rmSync(dir, { recursive: true, force: true });
	return sm;
}

const jsonLines = (xs) => xs.map((x) => `${JSON.stringify(x)}\n`).join("");

export function extraFixtures(pi) {
	pi.initTheme("dark");
	const fixtures = [];
	for (const { name, objs, text: raw, leaves, noTreeText, writes } of shapes()) {
		const text = raw ?? jsonLines(objs);
		const sm = open(pi, text);
		const entries = sm.getEntries();
		const byId = new Map(entries.map((x) => [x.id, x]));
		const cases = [];
		// A REF names a string id first, then an id that is not a string
		// by its text (`2` the number 2), as the tools resolve it.
		const idOf = (ref) =>
			entries.some((x) => x.id === ref)
				? ref
				: (entries.find((x) => ["number", "boolean"].includes(typeof x.id) && String(x.id) === ref)?.id ?? ref);
		for (const leaf of leaves) {
			const id = leaf === null ? sm.getLeafId() : idOf(leaf);
			const la = leaf ? ["--leaf", leaf] : [];
			const ctx = pi.buildSessionContext(entries, id, byId);
			cases.push({ tool: "pi-path", args: [...la, "--format", "ids"], stdout: sm.getBranch(id).map((x) => `${x.id}\n`).join(""), what: `getBranch(${id}) ids` });
			cases.push({ tool: "pi-path", args: la, stdout: jsonLines(sm.getBranch(id)), what: `getBranch(${id}) entries` });
			cases.push({ tool: "pi-path", args: [...la, "--format", "messages"], stdout: jsonLines(ctx.messages), what: `buildSessionContext(${id}).messages` });
			cases.push({ tool: "pi-path", args: [...la, "--format", "context"], stdout: `${JSON.stringify(ctx)}\n`, what: `buildSessionContext(${id})` });
			cases.push({ tool: "pi-convert", args: la, stdout: jsonLines(pi.convertToLlm(ctx.messages)), what: `convertToLlm(buildSessionContext(${id}).messages)` });
		}
		for (const filter of noTreeText ? [] : ["default", "all", "user-only", "labeled-only"]) {
			const c = { tool: "pi-tree", args: filter === "default" ? [] : ["--filter", filter], stdout: "", what: `/tree text, filter ${filter}` };
			try {
				c.stdout = treeText(pi, sm, sm.getLeafId(), filter);
			} catch (err) {
				// pi's /tree throws here: the tool must fail (exit 1, FILE:LINE)
				c.fails = true;
				c.what += ` (pi throws: ${err.message})`;
			}
			cases.push(c);
		}
		cases.push({ tool: "pi-tree", args: ["--json"], stdout: `${JSON.stringify(sm.getTree())}\n`, what: "JSON.stringify(getTree())" });
		// What pi writes over these ids (pi-fork --at, pi-label): the tests
		// blank fresh ids, times and paths.
		for (const leaf of writes ?? []) {
			const id = leaf === null ? sm.getLeafId() : idOf(leaf);
			const ref = leaf ?? "leaf";
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-path-write-"));
			try {
				const f = path.join(dir, "s.jsonl");
				fs.writeFileSync(f, text);
				const b = pi.SessionManager.open(f);
				b.createBranchedSession(id);
				const out = `${b.fileEntries.map((x) => JSON.stringify(x)).join("\n")}\n`;
				cases.push({ tool: "pi-fork", args: ["--at", ref, "-o", "-"], stdout: out.split(JSON.stringify(dir).slice(1, -1)).join("/tmp/pi-conformance/work"), what: `createBranchedSession(${id})` });
				const l = pi.SessionManager.open(f);
				const lid = l.appendLabelChange(id, "conf label");
				cases.push({ tool: "pi-label", stdin: true, args: ["-", ref, "conf label"], stdout: `${JSON.stringify(l.getEntry(lid))}\n`, what: `appendLabelChange(${id}, label)` });
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		}
		if (writes) {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-path-write-"));
			try {
				const f = path.join(dir, "s.jsonl");
				fs.writeFileSync(f, text);
				const n = pi.SessionManager.open(f);
				const nid = n.appendSessionInfo("a name");
				cases.push({ tool: "pi-label", stdin: true, args: ["-", "--name", "a name"], stdout: `${JSON.stringify(n.getEntry(nid))}\n`, what: "appendSessionInfo(name) after a numeric leaf" });
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		}
		fixtures.push({ name, text, cases });
	}
	return fixtures;
}
