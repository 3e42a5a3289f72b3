// pi-ls: pi's own SessionManager.list(cwd) and listAll() over a small fake agent
// directory (store/), built from the session files generate.mjs writes plus
// hand-made shapes: a fork (parentSession), v1 and v2 files, a file without
// messages, a named session, CRLF and lone-CR line ends, a byte order mark, an
// unparsable header timestamp (modified falls back to the file's mtime), a
// non-session .jsonl, an empty file, a directory named x.jsonl, a file at the
// sessions root (listAll reads only the project directories).
//
// Machine-independent answers: the store is copied to a temporary directory,
// the project directory `--PROJECT--` renamed for the temporary project path,
// every file's mtime set from MTIMES; in the answers the temporary agent
// directory is `$STORE` and the encoded project `--PROJECT--`. tests/ls.rs
// does the same before it runs pi-ls.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const KINDS = {};

const HERE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const STORE = path.join(HERE, "store");
const SESSIONS = path.join(HERE, "sessions");
const P = "sessions/--PROJECT--";
const O = "sessions/--home-dev-other--";

const H = (id, ts, extra = {}) => ({ type: "session", version: 3, id, timestamp: ts, cwd: "/home/dev/proj", ...extra });
const U = (id, parentId, ts, content, mts) => ({ type: "message", id, parentId, timestamp: ts, message: { role: "user", content, timestamp: mts } });
const A = (id, parentId, ts, content, mts) => ({ type: "message", id, parentId, timestamp: ts, message: { role: "assistant", content, api: "x", provider: "p", model: "m", usage: { totalTokens: 10, cost: { total: 0.5 } }, stopReason: "stop", timestamp: mts } });
const lines = (xs, eol = "\n") => xs.map((x) => (typeof x === "string" ? x : JSON.stringify(x)) + eol).join("");

function files() {
	const read = (n) => fs.readFileSync(path.join(SESSIONS, `${n}.jsonl`), "utf8");
	const f = {};
	// pi-written sessions
	for (const n of ["v3-001", "v3-002", "v3-003", "v3-labels", "v3-clock-chaos"]) f[`${P}/${n}.jsonl`] = read(n);
	f[`${O}/v3-004.jsonl`] = read("v3-004");
	f[`${O}/v3-linear.jsonl`] = read("v3-linear");
	f[`${P}/v1-001.jsonl`] = read("v1-001");
	f[`${P}/v2-001.jsonl`] = read("v2-001");
	// a fork of v3-001 (parentSession), and one whose parent is not in the store
	const first = read("v3-001").split("\n").slice(1, 4).map((l) => JSON.parse(l));
	f[`${P}/fork.jsonl`] = lines([
		H("019c0000-0000-7000-8000-00000000f001", "2026-02-01T10:00:00.000Z", { parentSession: "/home/dev/.pi/agent/sessions/--home-dev-proj--/v3-001.jsonl" }),
		...first,
		U("f0000001", first[first.length - 1].id, "2026-02-01T10:00:01.000Z", "forked question", 1769940001000),
	]);
	f[`${P}/fork-orphan.jsonl`] = lines([
		H("019c0000-0000-7000-8000-00000000f002", "2026-02-01T11:00:00.000Z", { parentSession: "/gone/away.jsonl" }),
		U("f0000002", null, "2026-02-01T11:00:01.000Z", [{ type: "image", data: "", mimeType: "image/png" }, { type: "text", text: "look" }, { type: "text", text: "here" }], 1769943601000),
	]);
	// shapes
	f[`${P}/no-messages.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000a1", "2026-01-15T08:00:00.000Z")]);
	f[`${P}/named.jsonl`] = lines([
		H("019c0000-0000-7000-8000-0000000000a2", "2026-01-16T08:00:00.000Z"),
		U("a2000001", null, "2026-01-16T08:00:01.000Z", "  padded \u2028 text ", undefined),
		A("a2000002", "a2000001", "2026-01-16T08:00:02.000Z", [{ type: "text", text: "answer" }], 1768550402000),
		{ type: "session_info", id: "a2000003", parentId: "a2000002", timestamp: "2026-01-16T08:00:03.000Z", name: "  parser rewrite\t" },
		{ type: "session_info", id: "a2000004", parentId: "a2000003", timestamp: "2026-01-16T08:00:04.000Z", name: "" },
		{ type: "session_info", id: "a2000005", parentId: "a2000004", timestamp: "2026-01-16T08:00:05.000Z", name: " final \ud800name " },
	]);
	f[`${P}/crlf.jsonl`] = lines([
		H("019c0000-0000-7000-8000-0000000000a3", "2026-01-17T08:00:00.000Z"),
		U("a3000001", null, "2026-01-17T08:00:01.000Z", "crlf line ends", 1768636801000),
	], "\r\n");
	// a lone CR: readline splits there, so the second half of the message line is not JSON
	f[`${P}/lone-cr.jsonl`] =
		lines([H("019c0000-0000-7000-8000-0000000000a4", "2026-01-18T08:00:00.000Z")]) +
		'{"type":"message","id":"a4000001","parentId":null,\r"timestamp":"2026-01-18T08:00:01.000Z","message":{"role":"user","content":"split","timestamp":1768723201000}}\n' +
		lines([U("a4000002", null, "2026-01-18T08:00:02.000Z", "kept", 1768723202000)]);
	f[`${P}/bom.jsonl`] = "\ufeff" + lines([H("019c0000-0000-7000-8000-0000000000a5", "2026-01-19T08:00:00.000Z"), U("a5000001", null, "2026-01-19T08:00:01.000Z", "bom", 1)]);
	f[`${P}/bad-time.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000a6", "not a time"), { type: "message", id: "a6000001", parentId: null, timestamp: "garbage", message: { role: "user", content: "no usable time" } }]);
	f[`${P}/junk-first.jsonl`] = "not json\n\nnull\n" + lines([H("019c0000-0000-7000-8000-0000000000a7", "2026-01-20T08:00:00.000Z"), "{torn", { type: "message", id: "a7000001", parentId: null, timestamp: "2026-01-20T08:00:01.000Z", message: { role: "toolResult", content: "x", timestamp: 1 } }, { type: "message", id: "a7000002", parentId: null, timestamp: "2026-01-20T08:00:02.000Z", message: "a string" }]);
	f[`${P}/throws.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000a8", "2026-01-21T08:00:00.000Z"), { type: "message", id: "a8000001", parentId: null, timestamp: "2026-01-21T08:00:01.000Z", message: { role: "user", content: null } }]);
	f[`${P}/no-message.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000a9", "2026-01-22T08:00:00.000Z"), { type: "message", id: "a9000001", parentId: null, timestamp: "2026-01-22T08:00:01.000Z" }]);
	f[`${P}/name-number.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000aa", "2026-01-23T08:00:00.000Z"), { type: "session_info", id: "aa000001", parentId: null, timestamp: "2026-01-23T08:00:01.000Z", name: 42 }]);
	f[`${P}/odd-text.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000ab", "2026-01-24T08:00:00.000Z"), U("ab000001", null, "2026-01-24T08:00:01.000Z", [{ type: "text", text: 5 }, { type: "text" }, { type: "text", text: [1, [2, null]] }, { type: "text", text: { a: 1 } }, 7, "s"], 1769241601000)]);
	f[`${P}/notes.jsonl`] = lines([{ hello: "not a session" }]);
	f[`${P}/empty.jsonl`] = "";
	f[`${P}/dir.jsonl/.keep`] = "";
	f[`${P}/readme.txt`] = "not a .jsonl\n";
	f[`sessions/stray.jsonl`] = lines([H("019c0000-0000-7000-8000-0000000000ac", "2026-01-25T08:00:00.000Z")]);
	return f;
}

// Every file's mtime, in ms (files without a usable time sort by these).
const T0 = Date.UTC(2026, 2, 1);
export function mtimes(names) {
	const m = {};
	[...names].sort().forEach((n, k) => (m[n] = T0 + k * 60_000));
	return m;
}

// Copy the store to a temporary agent dir for project `cwd`: returns the agent dir.
export function install(storeDir, tmp, cwd, mt) {
	const enc = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
	for (const [rel, ms] of Object.entries(mt)) {
		const dst = path.join(tmp, rel.replace("--PROJECT--", enc));
		fs.mkdirSync(path.dirname(dst), { recursive: true });
		fs.copyFileSync(path.join(storeDir, rel), dst);
		fs.utimesSync(dst, ms / 1000, ms / 1000);
	}
	return enc;
}

export async function extraFixtures(pi) {
	const { SessionManager } = pi;
	fs.rmSync(STORE, { recursive: true, force: true });
	const f = files();
	for (const [rel, text] of Object.entries(f)) {
		fs.mkdirSync(path.dirname(path.join(STORE, rel)), { recursive: true });
		fs.writeFileSync(path.join(STORE, rel), text);
	}
	const mt = mtimes(Object.keys(f));
	fs.writeFileSync(path.join(STORE, "mtimes.json"), JSON.stringify(mt, null, 1) + "\n");
	const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-ls-conf-")));
	const agent = path.join(tmp, "agent");
	const cwd = path.join(tmp, "proj");
	fs.mkdirSync(cwd);
	const enc = install(STORE, agent, cwd, mt);
	const saved = process.env.PI_CODING_AGENT_DIR;
	process.env.PI_CODING_AGENT_DIR = agent;
	const show = (infos) =>
		infos
			.map((i) => {
				const { allMessagesText, ...rest } = i;
				return JSON.stringify(rest).split(agent).join("$STORE").split(enc).join("--PROJECT--") + "\n";
			})
			.join("");
	const cases = [
		{ args: ["--json"], stdout: show(await SessionManager.list(cwd)), what: "SessionManager.list(cwd)" },
		{ args: ["--json", "--all"], stdout: show(await SessionManager.listAll()), what: "SessionManager.listAll()" },
		{
			args: ["--json", "--all", "--session-dir", "$STORE/sessions/--home-dev-other--"],
			stdout: show(await SessionManager.listAll(path.join(agent, "sessions/--home-dev-other--"))),
			what: "SessionManager.listAll(sessionDir)",
		},
		{
			args: ["--json", "--session-dir", "$STORE/sessions/--home-dev-other--"],
			stdout: show(await SessionManager.list(cwd, path.join(agent, "sessions/--home-dev-other--"))),
			what: "SessionManager.list(cwd, sessionDir): only sessions of cwd",
		},
	];
	if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = saved;
	fs.rmSync(tmp, { recursive: true, force: true });
	fs.mkdirSync(path.join(HERE, "answers", "pi-ls"), { recursive: true });
	fs.writeFileSync(path.join(HERE, "answers", "pi-ls", "store.jsonl"), cases.map((c) => JSON.stringify({ tool: "pi-ls", ...c }) + "\n").join(""));
	return [];
}
