// Answer kinds of pi-fork and pi-label (see generate.mjs): what pi itself
// writes for createBranchedSession (/fork --at and before a user message),
// forkFrom, branchWithSummary / branch (in place), appendLabelChange and
// appendSessionInfo. Fresh ids, times and paths differ by nature; the Rust
// tests normalize them (tests/fork.rs, tests/label.rs).
//
// Case fields beyond {tool, args, stdout, what}:
//   stdin: true      feed sessions/NAME.jsonl on stdin instead of passing its path;
//                    the tool echoes the session, then the new line: stdout holds
//                    only that new line (the test checks the echo itself)
//   inPlace: true    run on a temporary copy; stdout is then JSON
//                    {"line": appended line, "context": buildSessionContext() after}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const V3 = (s) => /^v3-/.test(s.name);
// Forks repeat whole paths: answer them on every third v3 session only.
const SOME_V3 = (s) => V3(s) && [...s.name].reduce((a, c) => a + c.charCodeAt(0), 0) % 3 === 0;

// A fresh SessionManager on a private copy of the session (pi mutates it).
export function fresh(s) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-fork-"));
	const file = path.join(dir, `${s.name}.jsonl`);
	fs.writeFileSync(file, s.rewritten);
	const sm = s.pi.SessionManager.open(file);
	return { dir, file, sm };
}

// The temporary directory's random name in a path (parentSession) becomes a
// fixed one, so that a rerun writes the same bytes (the tests blank it anyway).
const stable = (t, dir) => t.split(JSON.stringify(dir).slice(1, -1)).join("/tmp/pi-conformance/work");

const text = (sm) => `${sm.fileEntries.map((e) => JSON.stringify(e)).join("\n")}\n`;

export function branched(s, leafId) {
	const { dir, file, sm } = fresh(s);
	try {
		if (!leafId) {
			// pi's /fork before a root message: a new session with only a header.
			const m = s.pi.SessionManager.create(sm.getCwd(), dir);
			m.newSession({ parentSession: file });
			return stable(text(m), dir);
		}
		sm.createBranchedSession(leafId);
		return stable(text(sm), dir);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

export const isUser = (e) => e.type === "message" && e.message?.role === "user";

// The k-th user message of the file (from the end when k < 0).
function userMessage(s, k) {
	const us = s.entries.filter(isUser);
	return us.length ? us[(k + us.length) % us.length] : undefined;
}

function beforeKind(k) {
	return {
		tool: "pi-fork",
		scope: "session",
		only: (s) => SOME_V3(s) && userMessage(s, k) !== undefined,
		args: () => ["--before", userMessage(globalThis.__piForkS, k).id, "-o", "-"],
		what: () => `/fork before user message #${k}: createBranchedSession(parentId)`,
		stdout: (s) => branched(s, userMessage(s, k).parentId),
	};
}

// args() gets no session; remember the one being answered.
function withS(kind) {
	return {
		...kind,
		only: (s) => {
			globalThis.__piForkS = s;
			return kind.only ? kind.only(s) : true;
		},
	};
}

export function inPlace(s, id, summary) {
	const { dir, sm } = fresh(s);
	try {
		let line;
		if (summary !== undefined) {
			const newId = sm.branchWithSummary(id, summary);
			line = JSON.stringify(sm.getEntry(newId));
		} else {
			sm.branch(id);
			line = null;
		}
		const ctx = sm.buildSessionContext();
		return JSON.stringify({ line, context: ctx });
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function appended(s, f) {
	const { dir, sm } = fresh(s);
	try {
		const newId = f(sm);
		// The tool prints the whole session and then this line; only the line is kept here.
		return `${JSON.stringify(sm.getEntry(newId))}\n`;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const NAME = "  a name\twith tab\r\n\nand lines\u2028  ";

export const KINDS = {
	"fork-at": {
		tool: "pi-fork",
		scope: "leaf",
		only: (s) => SOME_V3(s) || /^v[12]-00[12]/.test(s.name),
		args: (ref) => ["--at", ref ?? "leaf", "-o", "-"],
		what: (ref, id) => `createBranchedSession(${id})`,
		stdout: (s, id) => branched(s, id),
	},
	"fork-before-first": withS(beforeKind(0)),
	"fork-before-last": withS(beforeKind(-1)),
	"fork-cwd": {
		tool: "pi-fork",
		scope: "session",
		only: SOME_V3,
		args: () => ["--cwd", "/tmp/pi-conformance/other project", "-o", "-"],
		what: () => "SessionManager.forkFrom(source, cwd)",
		stdout: (s) => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-forkfrom-"));
			try {
				const src = path.join(dir, "src.jsonl");
				fs.writeFileSync(src, s.rewritten);
				const m = s.pi.SessionManager.forkFrom(src, "/tmp/pi-conformance/other project", path.join(dir, "out"));
				return stable(fs.readFileSync(m.getSessionFile(), "utf8"), dir);
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		},
	},
	"fork-in-place-summary": {
		tool: "pi-fork",
		scope: "explicit-leaf",
		only: SOME_V3,
		inPlace: true,
		args: (ref) => ["--in-place", "--at", ref, "--summary", "Tried the parser route; 日本語 \"quotes\"\nsecond line"],
		what: (ref, id) => `branchWithSummary(${id}, summary) then buildSessionContext()`,
		stdout: (s, id) => inPlace(s, id, "Tried the parser route; 日本語 \"quotes\"\nsecond line"),
	},
	"fork-in-place": {
		tool: "pi-fork",
		scope: "explicit-leaf",
		only: SOME_V3,
		inPlace: true,
		args: (ref) => ["--in-place", "--at", ref],
		what: (ref, id) => `branch(${id}) then buildSessionContext()`,
		stdout: (s, id) => inPlace(s, id, undefined),
	},
	"label-set": {
		tool: "pi-label",
		scope: "explicit-leaf",
		only: V3,
		stdin: true,
		args: (ref) => ["-", ref, "conf 🏷 label"],
		what: (ref, id) => `appendLabelChange(${id}, label)`,
		stdout: (s, id) => appended(s, (sm) => sm.appendLabelChange(id, "conf 🏷 label")),
	},
	"label-clear": {
		tool: "pi-label",
		scope: "explicit-leaf",
		only: V3,
		stdin: true,
		args: (ref) => ["-", ref, "--clear"],
		what: (ref, id) => `appendLabelChange(${id}, undefined)`,
		stdout: (s, id) => appended(s, (sm) => sm.appendLabelChange(id, undefined)),
	},
	"label-name": {
		tool: "pi-label",
		scope: "default-leaf",
		only: V3,
		stdin: true,
		args: () => ["-", "--name", NAME],
		what: () => "appendSessionInfo(name): runs of CR/LF become one space, then trim",
		stdout: (s) => appended(s, (sm) => sm.appendSessionInfo(NAME)),
	},
};
