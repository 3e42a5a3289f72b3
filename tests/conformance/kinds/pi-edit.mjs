// Answer kinds of pi-edit (see generate.mjs): what pi 1.6.0's
// appendContextEdit(targetId, replacement) writes, and the context pi builds
// after it, on every v3 session that has such a target on the active branch;
// and pi's refusals. tests/edit.rs runs each case as
// `pi-edit COPY ARGS...` on a temporary copy of the session.
//
// Every case is inPlace; stdout is JSON:
//   {"line": the appended line, "context": buildSessionContext() after}   pi wrote it
//   {"error": pi's message}                                               pi threw: the tool
//                                                                         must fail, file untouched

import crypto from "node:crypto";
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";

const V3 = (s) => /^v3-/.test(s.name);

function fresh(s) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-edit-"));
	const file = path.join(dir, `${s.name}.jsonl`);
	fs.writeFileSync(file, s.rewritten);
	return { dir, sm: s.pi.SessionManager.open(file) };
}

// The new entries' ids come from a counter of this module, not from the
// generator's seeded stream, so that these kinds leave every other kind's
// answers as they were (the tests blank ids anyway).
let counter = 0;
function ownIds(f) {
	const orig = crypto.randomUUID;
	crypto.randomUUID = () => `ed17${(counter++ % 0x10000).toString(16).padStart(4, "0")}-0000-4000-8000-000000000000`;
	module.syncBuiltinESMExports();
	try {
		return f();
	} finally {
		crypto.randomUUID = orig;
		module.syncBuiltinESMExports();
	}
}

// appendContextEdit on a private copy: the line and the context after it,
// or pi's error.
function edited(s, targetId, replacement) {
	const { dir, sm } = fresh(s);
	try {
		let id;
		try {
			id = ownIds(() => sm.appendContextEdit(targetId, replacement));
		} catch (e) {
			return JSON.stringify({ error: e.message });
		}
		return JSON.stringify({ line: JSON.stringify(sm.getEntry(id)), context: sm.buildSessionContext() });
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const branch = (s) => s.sm.getBranch();
const role = (e) => (e.type === "message" ? e.message?.role : e.type === "custom_message" ? "custom" : undefined);
const lastOnBranch = (s, pred) => branch(s).filter(pred).at(-1);
const firstOnBranch = (s, pred) => branch(s).find(pred);
const isRole = (r) => (e) => role(e) === r;
const hasArrayOrUserString = (e) => {
	const c = e.type === "message" ? e.message.content : e.content;
	return Array.isArray(c) || c === undefined || c === null || (typeof c === "string" && (role(e) === "user" || role(e) === "custom"));
};

// The context entries pi keeps (compaction-aware) and the edit in force for each.
function editsInForce(s) {
	const ctx = s.sm.buildContextEntries();
	const edits = new Map();
	for (const e of ctx) if (e.type === "context_edit") edits.set(e.targetId, e);
	const ids = new Set(ctx.map((e) => e.id));
	return [...edits.keys()]
		.filter((id) => ids.has(id))
		.map((id) => s.byId.get(id))
		.filter((e) => e && ["user", "assistant", "toolResult", "custom"].includes(role(e)));
}

// An editable entry that is not on the active branch.
function offBranch(s) {
	const on = new Set(branch(s).map((e) => e.id));
	return s.entries.filter((e) => !on.has(e.id) && ["user", "assistant", "toolResult", "custom"].includes(role(e))).at(-1);
}

const TEXT = 'edited 日本語 "quotes"\nsecond line \u2028 \\ end';
const BLOCKS = [
	{ type: "text", text: "shortened output" },
	{ type: "text", text: "\u0000 control \u001f and 🦀" },
];

// kind(name, pick(s) -> entry, args(entry) -> args, replacement(entry) -> pi's argument)
function kind(what, pick, args, replacement) {
	let target;
	return {
		tool: "pi-edit",
		scope: "session",
		inPlace: true,
		only: (s) => {
			if (!V3(s)) return false;
			target = pick(s);
			return target !== undefined;
		},
		args: () => args(target),
		what: () => `appendContextEdit(${target.id}, ${what}) then buildSessionContext()`,
		stdout: (s) => edited(s, target.id, replacement(target)),
	};
}

function originalContent(e) {
	const c = e.type === "message" ? e.message.content : e.content;
	return c === undefined || c === null ? [] : c;
}

export const KINDS = {
	"edit-replace-user": kind(
		"{content: string} on the last user message",
		(s) => lastOnBranch(s, isRole("user")),
		(e) => [e.id, "--replace", TEXT],
		() => ({ content: TEXT }),
	),
	"edit-replace-assistant": kind(
		"{content: string} on the last assistant message (a text block)",
		(s) => lastOnBranch(s, isRole("assistant")),
		(e) => [e.id.slice(0, 6), "--replace", TEXT],
		() => ({ content: TEXT }),
	),
	"edit-replace-json-tool-result": kind(
		"{content: blocks} on the last tool result",
		(s) => lastOnBranch(s, isRole("toolResult")),
		(e) => [e.id, "--replace-json", JSON.stringify(BLOCKS)],
		() => ({ content: BLOCKS }),
	),
	"edit-replace-json-string-tool-result": kind(
		"{content: string} given as JSON on the first tool result (a text block)",
		(s) => firstOnBranch(s, isRole("toolResult")),
		(e) => [e.id, "--replace-json", JSON.stringify(TEXT)],
		() => ({ content: TEXT }),
	),
	"edit-replace-custom": kind(
		"{content: string} on the last custom_message",
		(s) => lastOnBranch(s, isRole("custom")),
		(e) => [e.id, "--replace", TEXT],
		() => ({ content: TEXT }),
	),
	"edit-omit-first-user": kind(
		"null on the first user message",
		(s) => firstOnBranch(s, isRole("user")),
		(e) => [e.id, "--omit"],
		() => null,
	),
	"edit-omit-leaf": kind(
		"null on the leaf",
		(s) => s.sm.getLeafEntry(),
		() => ["leaf", "--omit"],
		() => null,
	),
	"edit-restore": kind(
		"{content: original content} on the last entry with an edit in force",
		(s) => editsInForce(s).filter(hasArrayOrUserString).at(-1),
		(e) => [e.id, "--restore"],
		(e) => ({ content: originalContent(e) }),
	),
	"edit-off-branch": kind(
		"null on an entry off the active branch",
		(s) => offBranch(s),
		(e) => [e.id, "--omit"],
		() => null,
	),
	"edit-not-editable": kind(
		"null on an entry that adds no editable content",
		(s) => lastOnBranch(s, (e) => !["user", "assistant", "toolResult", "custom"].includes(role(e))),
		(e) => [e.id, "--omit"],
		() => null,
	),
	"edit-bad-replacement": kind(
		"{content: object}: neither a string nor an array",
		(s) => lastOnBranch(s, isRole("user")),
		(e) => [e.id, "--replace-json", '{"type":"text","text":"x"}'],
		() => ({ type: "text", text: "x" }),
	),
};
