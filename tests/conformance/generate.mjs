#!/usr/bin/env node
// Conformance-fixture generator for pi-session-tools.
//
// Builds session files ONLY through pi's public SessionManager API
// (@earendil-works/pi-coding-agent, pinned in package.json), derives old-version
// (v1/v2) files from them by rewriting the text, and records pi's own answers
// (getBranch, buildSessionContext, getHeader, ...) as test cases.
//
//   cd tests/conformance && npm ci && node generate.mjs
//
// Output (deterministic, byte for byte):
//   sessions/NAME.jsonl  session files
//   answers/TOOL/NAME.jsonl   one JSON object per line (cases of TOOL on sessions/NAME.jsonl):
//     {"tool":"pi-path","args":[...],"stdout":"...","what":"..."}
//   The Rust harness runs `<tool> <args...> sessions/NAME.jsonl` and compares stdout.
//
// To add an answer kind, add an entry to KINDS below (see README.md).

import crypto, { createHash } from "node:crypto";
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SESSIONS_DIR = path.join(HERE, "sessions");
const ANSWERS_DIR = path.join(HERE, "answers");

// ---------------------------------------------------------------------------
// Seeded PRNG
// ---------------------------------------------------------------------------

function seedFromString(s) {
	return createHash("sha256").update(s).digest().readUInt32LE(0);
}

class Rng {
	constructor(seed) {
		this.reseed(seed);
	}
	reseed(seed) {
		this.s = typeof seed === "string" ? seedFromString(seed) : seed >>> 0;
	}
	// mulberry32
	next() {
		this.s = (this.s + 0x6d2b79f5) >>> 0;
		let t = this.s;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(lo, hi) {
		// inclusive
		return lo + Math.floor(this.next() * (hi - lo + 1));
	}
	chance(p) {
		return this.next() < p;
	}
	pick(arr) {
		return arr[Math.floor(this.next() * arr.length)];
	}
	hex(n) {
		let s = "";
		for (let i = 0; i < n; i++) s += "0123456789abcdef"[this.int(0, 15)];
		return s;
	}
	weighted(table) {
		// table: [[name, weight], ...]
		let total = 0;
		for (const [, w] of table) total += w;
		let r = this.next() * total;
		for (const [name, w] of table) {
			if ((r -= w) < 0) return name;
		}
		return table[table.length - 1][0];
	}
}

// ---------------------------------------------------------------------------
// Determinism: patch crypto.randomUUID and Date BEFORE importing pi
// ---------------------------------------------------------------------------

const uuidRng = new Rng(1);
/** UUIDs returned (in order) before falling back to the PRNG. */
const uuidQueue = [];
crypto.randomUUID = function fakeRandomUUID() {
	if (uuidQueue.length > 0) return uuidQueue.shift();
	const h = uuidRng.hex(32);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[uuidRng.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
// pi 1.x draws session ids with its own uuidv7 (crypto.getRandomValues).
const randomValuesRng = new Rng("getRandomValues");
globalThis.crypto.getRandomValues = function fakeGetRandomValues(array) {
	const bits = 8 * array.BYTES_PER_ELEMENT;
	for (let i = 0; i < array.length; i++) {
		const v = Math.floor(randomValuesRng.next() * 2 ** Math.min(bits, 32));
		array[i] = bits > 32 ? BigInt(v) : v;
	}
	return array;
};
module.syncBuiltinESMExports();

// /tree shortens paths under $HOME: answers are computed with this home, and the
// Rust harness runs the tools with the same HOME.
process.env.HOME = "/home/dev";
delete process.env.USERPROFILE;

const RealDate = globalThis.Date;
const clock = { now: RealDate.UTC(2026, 0, 1) };
class FakeDate extends RealDate {
	constructor(...args) {
		if (args.length === 0) super(clock.now);
		else super(...args);
	}
	static now() {
		return clock.now;
	}
}
globalThis.Date = FakeDate;

const pi = await import("@earendil-works/pi-coding-agent");
const { SessionManager, buildSessionContext } = pi;
if (typeof SessionManager !== "function" || typeof buildSessionContext !== "function") {
	throw new Error("pi exports changed: SessionManager/buildSessionContext missing");
}

// Sanity: pi's module-level `import { randomUUID } from "crypto"` must see our patch.
{
	uuidRng.reseed("sanity");
	const sm = SessionManager.inMemory("/sanity");
	uuidQueue.push("abcdef01-0000-4000-8000-000000000000");
	const id = sm.appendMessage({ role: "user", content: "x", timestamp: 0 });
	if (id !== "abcdef01") throw new Error(`randomUUID patch not seen by pi (got id ${id})`);
	if (sm.getEntries()[0].timestamp !== new RealDate(clock.now).toISOString())
		throw new Error("Date patch not seen by pi");
}

// What pi 1.6 refuses to open, checked here so the tools' errors stay pi's:
// a file that starts with a byte order mark (its first line is no JSON, so no header).
{
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-refuse-"));
	const f = path.join(dir, "bom.jsonl");
	const text = '\ufeff{"type":"session","version":3,"id":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n';
	fs.writeFileSync(f, text);
	let refused = false;
	try {
		SessionManager.open(f);
	} catch {
		refused = true;
	}
	if (!refused || fs.readFileSync(f, "utf8") !== text) throw new Error("pi 1.6 no longer refuses a file with a BOM, or changed it");
	fs.rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------
// Content pools
// ---------------------------------------------------------------------------

const WORDS = [
	"read", "the", "parser", "fix", "test", "branch", "tree", "leaf", "write", "file", "cargo", "build",
	"error", "ok", "plan", "refactor", "summary", "tool", "call", "path", "json", "line", "merge", "done",
];

const TRICKY = [
	"emoji 🦀🎉👩‍💻",
	"CJK 你好，世界 日本語 한국어",
	"combining e\u0301 n\u0303 A\u030a",
	'quote " and \'single\'',
	"back\\slash C:\\Users\\x \\n",
	"tab\there",
	"ctl \u0001\u001f\u007f",
	"line\u2028sep\u2029para",
	"</script><script>alert(1)</script>",
	"<!-- c --> &amp; <b>",
	"newline\nsecond",
	"${x} `tick`",
	"crlf\r\nnext",
	"astral 𝄞 𝕏",
	"bom\ufeffmid",
	"nul\u0000byte",
];

function text(rng, maxWords = 3) {
	const n = rng.int(1, maxWords);
	const parts = [];
	for (let i = 0; i < n; i++) parts.push(rng.pick(WORDS));
	if (rng.chance(0.3)) parts.splice(rng.int(0, parts.length), 0, rng.pick(TRICKY));
	return parts.join(" ");
}

const IMAGE = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };

const PROVIDERS = [
	["anthropic", "anthropic-messages", "claude-4-5"],
	["openai", "openai-responses", "gpt-5.1"],
	["google", "google-generative-ai", "gemini-3"],
	["openrouter", "openai-completions", "z-ai/glm"],
];

const FLOATS = [0.1, 1e-7, 0.000001, 0.30000000000000004, 0.013875000000000002, 1.5, 2.5e-8, 1e21, 0, 123.456];
const BIGINTS = [0, 1, 42, 2775, 175004, 1234567890, 9007199254740991, 4294967296];

function usage(rng) {
	const input = rng.chance(0.15) ? rng.pick(BIGINTS) : rng.int(0, 999);
	const output = rng.int(0, 99);
	const cacheRead = rng.chance(0.7) ? 0 : rng.int(0, 9999);
	const cacheWrite = rng.chance(0.8) ? 0 : rng.int(0, 999);
	const c = () => (rng.chance(0.15) ? rng.pick(FLOATS) : rng.chance(0.6) ? 0 : rng.int(0, 99) / 100);
	const cost = { input: c(), output: c(), cacheRead: c(), cacheWrite: c(), total: c() };
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

// Paths around HOME=/home/dev: inside, equal, a sibling that only shares the prefix, unnormalised.
const READ_PATHS = ["/home/dev/proj/src/lib.rs", "/home/dev", "/home/dev/", "/home/devious/x.rs", "/home/dev/./a//b/../c.rs", "/home/dev/../other/x", "relative/x.rs", "/tmp/y.rs"];
// What formatReadLineRange makes of offset/limit (numbers, numeric strings, null, junk).
const READ_RANGES = [{ offset: 10 }, { limit: 5 }, { offset: 3, limit: 4 }, { offset: "12", limit: "2" }, { offset: null, limit: 3 }, { offset: "abc" }, { offset: 0, limit: 1 }, { offset: 1, limit: 0.5 }, { offset: " ", limit: 2 }, { offset: 5, limit: null }];

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const CUSTOM_TYPES = ["ext-a", "ext-b", "todo", "plan-mode", "ext/ünï"];
const LABELS = ["plan", "checkpoint", "good", "v2-🚀", "naïve", "日本", "fix_1", "with space", "a^b", "-dash", "x~2", "final"];
const SESSION_NAMES = ["My session", "  padded name  ", "", "   ", "重构 parser", "quote \" name", "tab\tname", "🦀 rust port"];

// ---------------------------------------------------------------------------
// Session builder (pi API only)
// ---------------------------------------------------------------------------

const DEFAULT_WEIGHTS = {
	user: 12,
	assistant: 11,
	bash: 4,
	customRole: 2,
	unknownRole: 1,
	thinking: 3,
	model: 3,
	compaction: 4,
	customEntry: 3,
	customMessage: 4,
	sessionInfo: 2,
	label: 5,
	branch: 10,
	branchSummary: 3,
	resetLeaf: 1,
};

// What pi 1.x writes on top of 0.73.1: system prompts (with sections and tool
// deltas), usage entries, context edits, messages with null or missing content,
// keep-nothing compactions, summaries that carry usage.
const X_WEIGHTS = {
	...DEFAULT_WEIGHTS,
	system: 3,
	usageEntry: 3,
	contextEdit: 5,
	nullContent: 2,
};

const LINEAR_OLD_WEIGHTS = {
	user: 14,
	assistant: 16,
	bash: 4,
	customRole: 4,
	thinking: 3,
	model: 3,
	compaction: 4,
};

function uuidV7Like(rng, ms) {
	const t = ms.toString(16).padStart(12, "0");
	const r = rng.hex(20);
	return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${r.slice(0, 3)}-${"89ab"[rng.int(0, 3)]}${r.slice(3, 6)}-${r.slice(6, 18)}`;
}

class Builder {
	constructor(name, opts) {
		this.name = name;
		this.opts = opts;
		this.rng = new Rng(`content/${name}`);
		uuidRng.reseed(`uuid/${name}`);
		const rng = this.rng;
		clock.now = RealDate.UTC(2025, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59), rng.int(0, 59)) + rng.int(0, 999);
		this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-build-"));
		const cwd = opts.cwd ?? rng.pick(["/home/dev/proj", "/home/dev/my project", "/Users/ünï/code/pi-mono", "/srv/C:\\work\\repo"]);
		this.sm = SessionManager.create(cwd, this.tmp);
		this.sessionId = uuidV7Like(rng, clock.now);
		this.sm.newSession({ id: this.sessionId });
		this.pendingToolCalls = [];
		this.provider = rng.pick(PROVIDERS);
		this.tick();
	}

	tick() {
		const rng = this.rng;
		const back = this.opts.backProb ?? 0.14;
		const same = this.opts.sameProb ?? 0.12;
		if (this.holdClock) {
			this.holdClock = false;
			return;
		}
		const r = rng.next();
		if (r < same) return; // repeat the same ms
		if (r < same + back) clock.now -= rng.int(1, 600000);
		else if (r < same + back + 0.03) clock.now += rng.int(1, 3) * 86400000 + rng.int(0, 999);
		else clock.now += rng.int(1, 20000);
	}

	msgTime() {
		const rng = this.rng;
		const r = rng.next();
		if (r < 0.6) return clock.now - rng.int(0, 40);
		if (r < 0.9) return clock.now;
		return clock.now - rng.int(1, 5000000);
	}

	entries() {
		return this.sm.getEntries();
	}

	randomEntryId(pred = () => true) {
		const es = this.entries().filter(pred);
		return es.length ? this.rng.pick(es).id : undefined;
	}

	offPathEntryId() {
		const onPath = new Set(this.sm.getBranch().map((e) => e.id));
		return this.randomEntryId((e) => !onPath.has(e.id));
	}

	freshHexId() {
		const ids = new Set(this.entries().map((e) => e.id));
		let id;
		do id = this.rng.hex(8);
		while (ids.has(id));
		return id;
	}

	// ---- operations ----
	user() {
		const rng = this.rng;
		let content;
		if (rng.chance(0.55)) content = text(rng, 6);
		else {
			content = [{ type: "text", text: text(rng, 4) }];
			if (rng.chance(0.5)) content.push({ ...IMAGE });
			if (rng.chance(0.3)) content.push({ type: "text", text: text(rng, 2) });
		}
		this.sm.appendMessage({ role: "user", content, timestamp: this.msgTime() });
	}

	assistant() {
		const rng = this.rng;
		if (rng.chance(0.12)) this.provider = rng.pick(PROVIDERS);
		const [provider, api, model] = this.provider;
		const content = [];
		if (rng.chance(0.3)) {
			const r = rng.next();
			if (r < 0.45) content.push({ type: "thinking", thinking: text(rng, 2), thinkingSignature: `sig${rng.hex(6)}` });
			else if (r < 0.8) content.push({ type: "thinking", thinking: text(rng, 2) });
			else content.push({ type: "thinking", thinking: "", thinkingSignature: `enc${rng.hex(8)}`, redacted: true });
		}
		let stopReason = rng.weighted([
			["stop", 10],
			["toolUse", 8],
			["length", 1],
			["error", 1],
			["aborted", 1],
		]);
		if (stopReason !== "toolUse" || rng.chance(0.3)) content.push({ type: "text", text: text(rng, 3) });
		const calls = [];
		if (stopReason === "toolUse") {
			const n = rng.chance(0.8) ? 1 : 2;
			for (let i = 0; i < n; i++) {
				const name = rng.pick(["read", "bash", "edit", "write"]);
				const args =
					name === "bash"
						? { command: rng.pick(["ls -la", "cargo test", 'echo "hi\\n"', "grep -r 'x' ."]) }
						: this.opts.x
							? { path: rng.pick(READ_PATHS), ...(rng.chance(0.5) ? rng.pick(READ_RANGES) : {}) }
							: { path: rng.pick(["src/main.rs", "a b/ü.txt", "C:\\x\\y.rs"]), ...(rng.chance(0.3) ? { offset: rng.int(1, 500), limit: 0.5 } : {}) };
				const call = { type: "toolCall", id: `toolu_${rng.hex(6)}`, name, arguments: args };
				if (rng.chance(0.25)) call.thoughtSignature = `ts${rng.hex(6)}`;
				content.push(call);
				calls.push(call);
			}
		} else if (rng.chance(0.05)) {
			// a toolCall with a non-toolUse stop reason (aborted mid-stream)
			content.push({ type: "toolCall", id: `toolu_${rng.hex(10)}`, name: "read", arguments: {} });
		}
		const msg = { role: "assistant", content, api, provider, model, usage: usage(rng), stopReason };
		if (stopReason === "error") msg.errorMessage = rng.pick(["429 rate limited", "overloaded_error: \"Overloaded\"", text(rng, 3)]);
		if (stopReason === "aborted") msg.errorMessage = "Request was aborted";
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
		this.pendingToolCalls = calls;
	}

	toolResult() {
		const rng = this.rng;
		const call = this.pendingToolCalls.shift();
		const isError = rng.chance(0.2);
		const msg = {
			role: "toolResult",
			toolCallId: call.id,
			toolName: call.name,
			content: [{ type: "text", text: isError ? `Error: ${text(rng, 3)}` : text(rng, 5) }],
		};
		if (rng.chance(0.5)) msg.details = rng.chance(0.5) ? {} : { diff: "-a\n+b", lines: rng.int(1, 99) };
		msg.isError = isError;
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	bash() {
		const rng = this.rng;
		const cancelled = rng.chance(0.15);
		const truncated = rng.chance(0.2);
		const exit = rng.weighted([
			["zero", 5],
			["nonzero", 3],
			["null", 1],
			["absent", 1],
		]);
		this.sm.appendMessage({
			role: "bashExecution",
			command: rng.pick(["ls", "cargo build", "echo '\\t' | cat -A", "git status", "printf 'a\\nb'"]),
			output: rng.chance(0.25) ? "" : `${text(rng, 4)}\n`,
			exitCode: exit === "zero" ? 0 : exit === "nonzero" ? rng.pick([1, 2, 127, -1, 255]) : exit === "null" ? null : undefined,
			cancelled,
			truncated,
			fullOutputPath: truncated && rng.chance(0.6) ? `/tmp/pi-bash-${rng.hex(6)}.log` : undefined,
			timestamp: this.msgTime(),
			excludeFromContext: rng.chance(0.2) ? true : rng.chance(0.1) ? false : undefined,
		});
	}

	customRole() {
		const rng = this.rng;
		const content = rng.chance(0.6) ? text(rng, 4) : [{ type: "text", text: text(rng, 3) }, ...(rng.chance(0.3) ? [{ ...IMAGE }] : [])];
		const msg = { role: "custom", customType: rng.pick(CUSTOM_TYPES), content, display: rng.chance(0.6) };
		if (rng.chance(0.4)) msg.details = { n: rng.int(0, 9), note: text(rng, 2) };
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	unknownRole() {
		const rng = this.rng;
		const r = rng.next();
		let msg;
		if (r < 0.4) msg = { role: "systemNote", text: text(rng, 3), level: rng.int(0, 3), timestamp: this.msgTime() };
		else if (r < 0.6) msg = { role: "hookMessage", customType: "old-hook", content: text(rng, 3), display: true, timestamp: this.msgTime() };
		else if (r < 0.8) msg = { role: "branchSummary", summary: text(rng, 3), fromId: this.randomEntryId() ?? "root", timestamp: this.msgTime() };
		else msg = { role: "compactionSummary", summary: text(rng, 3), tokensBefore: rng.int(100, 90000), timestamp: this.msgTime() };
		this.sm.appendMessage(msg);
	}

	// ---- pi 1.x operations ----
	system() {
		const rng = this.rng;
		const r = rng.next();
		const content = r < 0.6 ? `System: ${text(rng, 5)}` : r < 0.85 ? [{ type: "text", text: `Blocks: ${text(rng, 3)}` }, { type: "text", text: text(rng, 2) }] : "";
		const msg = { role: "system", content };
		if (rng.chance(0.5)) {
			msg.sections = {};
			for (const name of ["<rules>", "## Project", "tools-note"]) {
				if (rng.chance(0.5)) msg.sections[name] = rng.chance(0.2) ? null : `${name}: ${text(rng, 3)}`;
			}
		}
		if (rng.chance(0.35)) {
			const name = rng.pick(["read", "bash", "grep", "ext_tool"]);
			msg.toolsAdded = [{ name, description: `The ${name} tool: ${text(rng, 2)}`, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
		}
		if (rng.chance(0.15)) msg.toolsRemoved = [{ name: rng.pick(["read", "grep", "ext_tool"]) }];
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	usageEntry() {
		const rng = this.rng;
		const [provider, , model] = rng.pick(PROVIDERS);
		const kind = rng.pick(["cache_warm", "title", "session_name", "ext:summary"]);
		this.sm.appendUsage(kind, provider, model, usage(rng), rng.chance(0.4) ? rng.pick(["extension override", text(rng, 2)]) : undefined);
	}

	contextEdit() {
		const rng = this.rng;
		const editable = (e) =>
			e.type === "custom_message" ||
			(e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role));
		const targets = this.sm.getBranch().filter(editable);
		if (targets.length === 0) return this.user();
		// re-edit a target already edited now and then: the latest edit wins
		const t = rng.pick(targets);
		const r = rng.next();
		let replacement;
		if (r < 0.3) replacement = null;
		else if (r < 0.7) replacement = { content: rng.chance(0.2) ? "" : `edited: ${text(rng, 4)}` };
		else replacement = { content: [{ type: "text", text: `edited blocks: ${text(rng, 3)}` }, ...(rng.chance(0.3) ? [{ ...IMAGE }] : [])] };
		this.sm.appendContextEdit(t.id, replacement);
	}

	nullContent() {
		// Session files are not validated: old versions, forks and hand edits hold
		// messages whose content is null or missing; pi 1.x builds [] / "" for them.
		const rng = this.rng;
		const role = rng.pick(["user", "assistant", "toolResult", "system", "custom"]);
		const missing = rng.chance(0.5);
		const msg = { role };
		if (!missing) msg.content = null;
		if (role === "assistant") Object.assign(msg, { api: this.provider[1], provider: this.provider[0], model: this.provider[2], usage: usage(rng), stopReason: "stop" });
		if (role === "toolResult") Object.assign(msg, { toolCallId: `toolu_${rng.hex(6)}`, toolName: "read", isError: false });
		if (role === "custom") Object.assign(msg, { customType: "ext-a", display: true });
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	thinking() {
		this.sm.appendThinkingLevelChange(this.rng.pick(THINKING_LEVELS));
	}

	model() {
		const p = this.rng.pick(PROVIDERS);
		this.provider = p;
		this.sm.appendModelChange(p[0], p[2]);
	}

	compaction() {
		const rng = this.rng;
		const pathIds = this.sm.getBranch().map((e) => e.id);
		if (pathIds.length === 0) return this.user();
		const r = rng.next();
		let kept;
		if (r < 0.6 || this.opts.linear) kept = rng.pick(pathIds);
		else if (r < 0.85) kept = this.offPathEntryId() ?? rng.pick(pathIds);
		else kept = this.freshHexId();
		const details = rng.chance(0.5) ? { readFiles: ["src/a.rs", text(rng, 1)], modifiedFiles: rng.chance(0.5) ? [] : ["b.rs"] } : undefined;
		const fromHook = rng.chance(0.25) ? true : rng.chance(0.1) ? false : undefined;
		if (this.opts.x && rng.chance(0.2)) kept = undefined; // keep nothing: pi stores the compaction's own id
		const u = this.opts.x && rng.chance(0.5) ? usage(rng) : undefined;
		this.sm.appendCompaction(`Summary: ${text(rng, 6)}`, kept, rng.chance(0.1) ? 0 : rng.int(1000, 200000), details, fromHook, u);
	}

	customEntry() {
		const rng = this.rng;
		const r = rng.next();
		const data =
			r < 0.3
				? undefined
				: r < 0.6
					? { count: rng.int(0, 99), note: text(rng, 2) }
					: r < 0.7
						? [1, "two", { three: 3.5 }]
						: r < 0.8
							? text(rng, 2)
							: r < 0.85
								? null
								: r < 0.9
									? rng.chance(0.5)
									: rng.pick(FLOATS);
		this.sm.appendCustomEntry(rng.pick(CUSTOM_TYPES), data);
	}

	customMessage() {
		const rng = this.rng;
		const content = rng.chance(0.6) ? text(rng, 4) : [{ type: "text", text: text(rng, 3) }, ...(rng.chance(0.3) ? [{ ...IMAGE }] : [])];
		const details = rng.chance(0.4) ? { k: rng.int(0, 99) } : undefined;
		this.sm.appendCustomMessageEntry(rng.pick(CUSTOM_TYPES), content, rng.chance(0.6), details);
	}

	sessionInfo() {
		this.sm.appendSessionInfo(this.rng.pick(SESSION_NAMES));
	}

	label() {
		const rng = this.rng;
		const entries = this.entries();
		if (entries.length === 0) return this.user();
		const labelled = entries.filter((e) => this.sm.getLabel(e.id) !== undefined);
		const r = rng.next();
		if (r < 0.5 || labelled.length === 0) {
			// set a label: sometimes on an entry off the active path
			const target = rng.chance(0.3) ? (this.offPathEntryId() ?? rng.pick(entries).id) : rng.pick(entries).id;
			this.sm.appendLabelChange(target, rng.pick(LABELS));
		} else if (r < 0.75) {
			// relabel
			const t = rng.pick(labelled).id;
			this.sm.appendLabelChange(t, rng.pick(LABELS.filter((l) => l !== this.sm.getLabel(t))));
		} else if (r < 0.95) {
			// clear (undefined → no key, "" → empty string written)
			this.sm.appendLabelChange(rng.pick(labelled).id, rng.chance(0.5) ? undefined : "");
		} else {
			// clear a label that is not set
			this.sm.appendLabelChange(rng.pick(entries).id, undefined);
		}
	}

	branch() {
		const rng = this.rng;
		const pathIds = this.sm.getBranch().map((e) => e.id);
		const target = rng.chance(0.8) && pathIds.length > 1 ? rng.pick(pathIds.slice(0, -1)) : this.randomEntryId();
		if (target) {
			this.sm.branch(target);
			// sometimes the next child gets exactly the timestamp of an existing sibling
			const siblings = this.entries().filter((e) => e.parentId === target);
			if (siblings.length && rng.chance(0.35)) {
				clock.now = RealDate.parse(rng.pick(siblings).timestamp);
				this.holdClock = true;
			}
		}
		this.pendingToolCalls = [];
	}

	branchSummary() {
		const rng = this.rng;
		const target = rng.chance(0.12) ? null : (this.randomEntryId() ?? null);
		const summary = rng.chance(0.2) ? "" : `Branch: ${text(rng, 5)}`;
		const details = rng.chance(0.4) ? { readFiles: [], modifiedFiles: ["x.rs"] } : undefined;
		const fromHook = rng.chance(0.3) ? true : rng.chance(0.1) ? false : undefined;
		const u = this.opts.x && rng.chance(0.5) ? usage(rng) : undefined;
		this.sm.branchWithSummary(target, summary, details, fromHook, u);
		this.pendingToolCalls = [];
	}

	resetLeaf() {
		this.sm.resetLeaf();
		this.pendingToolCalls = [];
		this.tick();
		const r = this.rng.next();
		if (r < 0.2) this.sm.branchWithSummary(this.randomEntryId() ?? null, `Branch from nowhere: ${text(this.rng, 2)}`);
		else if (r < 0.75) this.user();
		else this.customMessage();
	}

	/** Often end on a short branch, so the file's last entry is not the deepest one. */
	finish() {
		const rng = this.rng;
		const r = rng.next();
		if (r < 0.45) return;
		const shallow = this.entries().filter((e) => this.sm.getBranch(e.id).length <= 4);
		const target = rng.pick(shallow).id;
		this.tick();
		if (r < 0.75) {
			this.sm.branch(target);
			this[rng.pick(["user", "customMessage", "sessionInfo", "thinking", "label", "bash"])]();
		} else {
			this.sm.branchWithSummary(target, `Branch: ${text(rng, 2)}`);
		}
	}

	// ---- driver ----
	run(target) {
		const rng = this.rng;
		const w = this.opts.weights ?? DEFAULT_WEIGHTS;
		const table = Object.entries(w);
		// preamble: always produce an assistant early so pi writes the file
		if (this.opts.x && rng.chance(0.8)) this.system();
		if (rng.chance(0.5)) this.model();
		if (rng.chance(0.3)) this.thinking();
		this.tick();
		this.user();
		this.tick();
		this.assistant();
		while (this.entries().length < target) {
			this.tick();
			if (this.pendingToolCalls.length > 0 && rng.chance(0.85)) {
				this.toolResult();
				continue;
			}
			const op = rng.weighted(table);
			this[op]();
		}
		for (const op of this.opts.tail ?? []) {
			this.tick();
			this[op]();
		}
		if (!this.opts.linear) this.finish();
		const file = this.sm.getSessionFile();
		const textOut = fs.readFileSync(file, "utf8");
		fs.rmSync(this.tmp, { recursive: true, force: true });
		return textOut;
	}
}

// ---------------------------------------------------------------------------
// Old-version transforms (text → text)
// ---------------------------------------------------------------------------

function parseLines(t) {
	return t
		.split("\n")
		.filter((l) => l.length > 0)
		.map((l) => JSON.parse(l));
}
function serialize(objs) {
	return objs.map((o) => `${JSON.stringify(o)}\n`).join("");
}

/** v3 (linear, pi-written) → v1. `edge` adds compactions whose index is odd. */
function toV1(t, rng, { oldHeaderKeys, edge }) {
	const objs = parseLines(t);
	const indexById = new Map();
	objs.forEach((o, i) => {
		if (i > 0) indexById.set(o.id, i);
	});
	const out = objs.map((o, i) => {
		if (i === 0) {
			const h = {};
			for (const [k, v] of Object.entries(o)) if (k !== "version") h[k] = v;
			if (oldHeaderKeys) {
				h.provider = "anthropic";
				h.modelId = "claude-sonnet-4-5";
				h.thinkingLevel = rng.pick(THINKING_LEVELS);
				if (oldHeaderKeys === "branched")
					h.branchedFrom = `/home/dev/.pi/agent/sessions/--home-dev-proj--/2025-12-09T00-52-54-397Z_${uuidV7Like(rng, 1765241574397)}.jsonl`;
			}
			return h;
		}
		const e = {};
		for (const [k, v] of Object.entries(o)) {
			if (k === "id" || k === "parentId") continue;
			if (k === "firstKeptEntryId") {
				e.firstKeptEntryIndex = indexById.get(v);
				if (e.firstKeptEntryIndex === undefined) throw new Error("v1: firstKeptEntryId not in file");
				continue;
			}
			e[k] = v;
		}
		if (e.type === "message" && e.message.role === "custom" && rng.chance(0.6)) e.message = { ...e.message, role: "hookMessage" };
		return e;
	});
	let edgeN = 0;
	if (edge) {
		// compactions whose index names the header, a later entry, or nothing
		for (const c of out.filter((e) => e.type === "compaction")) {
			const i = out.indexOf(c);
			const kind = ["header", "forward", "range"][edgeN++ % 3];
			c.firstKeptEntryIndex = kind === "header" ? 0 : kind === "forward" ? Math.min(i + 1, out.length - 1) : out.length + 50;
		}
	}
	return serialize(out);
}

function toV2(t, rng) {
	const objs = parseLines(t);
	objs[0].version = 2;
	for (const o of objs) {
		if (o.type === "message" && o.message.role === "custom" && rng.chance(0.7)) o.message.role = "hookMessage";
	}
	return serialize(objs);
}

// ---------------------------------------------------------------------------
// pi-session-tools' deterministic ids for v1 entries
// ---------------------------------------------------------------------------

export function v1Ids(fileText) {
	const lines = fileText.split("\n");
	if (lines[lines.length - 1] === "") lines.pop();
	const header = JSON.parse(lines[0]);
	const used = new Set();
	const ids = [];
	for (let i = 1; i < lines.length; i++) {
		const L = i + 1;
		const base = `pi-session-tools/v1-id/${header.id}/${L}`;
		let id = createHash("sha1").update(base).digest("hex").slice(0, 8);
		for (let k = 1; used.has(id); k++) id = createHash("sha1").update(`${base}/${k}`).digest("hex").slice(0, 8);
		used.add(id);
		ids.push(id);
	}
	return ids;
}

// ---------------------------------------------------------------------------
// Answer kinds: name -> { tool, scope, args(ref), what(ref, id), stdout(s, id) }
//   scope "leaf":         every leaf (default leaf: --leaf omitted)
//   scope "explicit-leaf": only leaves given with --leaf
//   scope "default-leaf": only the default leaf
//   scope "session":      once per session (ref/id are null)
// s = { sm, entries, byId, header, name }
// ---------------------------------------------------------------------------

const leafArgs = (ref) => (ref === null ? [] : ["--leaf", ref]);
const jsonLines = (xs) => xs.map((x) => `${JSON.stringify(x)}\n`).join("");
const ctx = (s, id) => buildSessionContext(s.entries, id, s.byId);

export const KINDS = {
	"path-ids": {
		tool: "pi-path",
		scope: "leaf",
		args: (ref) => [...leafArgs(ref), "--format", "ids"],
		what: (ref, id) => `getBranch(${id}) ids`,
		stdout: (s, id) => s.sm.getBranch(id).map((e) => `${e.id}\n`).join(""),
	},
	"path-entries": {
		tool: "pi-path",
		scope: "explicit-leaf",
		args: (ref) => [...leafArgs(ref), "--format", "entries"],
		what: (ref, id) => `getBranch(${id}) entries`,
		stdout: (s, id) => jsonLines(s.sm.getBranch(id)),
	},
	"path-default": {
		tool: "pi-path",
		scope: "default-leaf",
		args: () => [],
		what: (ref, id) => `getBranch(${id}) entries (default format, default leaf)`,
		stdout: (s, id) => jsonLines(s.sm.getBranch(id)),
	},
	"path-messages": {
		tool: "pi-path",
		scope: "leaf",
		args: (ref) => [...leafArgs(ref), "--format", "messages"],
		what: (ref, id) => `buildSessionContext(${id}).messages`,
		stdout: (s, id) => jsonLines(ctx(s, id).messages),
	},
	"path-context": {
		tool: "pi-path",
		scope: "leaf",
		args: (ref) => [...leafArgs(ref), "--format", "context"],
		what: (ref, id) => `buildSessionContext(${id})`,
		stdout: (s, id) => `${JSON.stringify(ctx(s, id))}\n`,
	},
	"path-header": {
		tool: "pi-path",
		scope: "default-leaf",
		args: () => ["--header"],
		what: (ref, id) => `getHeader() + getBranch(${id}) entries`,
		stdout: (s, id) => `${JSON.stringify(s.sm.getHeader())}\n${jsonLines(s.sm.getBranch(id))}`,
	},
};

// Answer kinds of later tools live in kinds/*.mjs, one module per tool:
//   export const KINDS = { "<kind>": { tool, scope, args, what, stdout } };
//   export function extraFixtures(pi) -> [{ name, text, cases: [{tool,args,stdout,what}] }]   (optional)
// Each kind's stdout(s, id) gets s = { sm, entries, byId, header, name, linear, pi, rewritten }
// (rewritten = the file text after pi opened it); optional only(s) limits a kind to some sessions.
const KINDS_DIR = path.join(HERE, "kinds");
const KIND_MODULES = [];
if (fs.existsSync(KINDS_DIR)) {
	for (const f of fs.readdirSync(KINDS_DIR).sort()) {
		if (!f.endsWith(".mjs")) continue;
		const mod = await import(path.join(KINDS_DIR, f));
		KIND_MODULES.push(mod);
		for (const [k, v] of Object.entries(mod.KINDS ?? {})) {
			if (KINDS[k]) throw new Error(`kinds/${f}: kind ${k} defined twice`);
			KINDS[k] = v;
		}
	}
}

const SAFE_LABEL = /^[^\s^~@\-][^\s^~]*$/u;

function chooseLeaves(s, rng) {
	const { sm, entries } = s;
	const leafId = sm.getLeafId();
	const chosen = [{ ref: null, id: leafId }];
	const used = new Set([leafId]);
	const add = (id, ref = id) => {
		if (id === undefined || id === null || used.has(ref)) return;
		used.add(ref);
		chosen.push({ ref, id });
	};
	const hasChild = new Set(entries.map((e) => e.parentId));
	const fresh = (pred) => entries.filter((e) => pred(e) && !used.has(e.id));
	const pickFrom = (pred) => {
		const xs = fresh(pred);
		if (xs.length) add(rng.pick(xs).id);
		return xs.length > 0;
	};
	const treeLeaf = (e) => !hasChild.has(e.id);
	// in linear files every path is a prefix: prefer the early part to keep answers small
	const early = new Set(entries.slice(0, s.linear ? Math.ceil(entries.length * 0.4) : entries.length).map((e) => e.id));
	const middle = (e) => hasChild.has(e.id) && early.has(e.id);
	pickFrom(treeLeaf) || pickFrom(middle);
	pickFrom(middle);
	pickFrom((e) => e.type === "label") || pickFrom(treeLeaf) || pickFrom(middle);
	pickFrom((e) => e.type === "compaction" && (early.has(e.id) || !s.linear)) || pickFrom(middle);
	// @NAME for a label in force (unique name, no awkward characters)
	const byName = new Map();
	for (const e of entries) {
		const l = sm.getLabel(e.id);
		if (l !== undefined) byName.set(l, byName.has(l) ? null : e.id);
	}
	const names = [...byName.entries()].filter(([n, id]) => id !== null && SAFE_LABEL.test(n));
	if (names.length) {
		const [n, id] = rng.pick(names);
		add(id, `@${n}`);
	}
	return chosen;
}

function computeAnswers(name, fileText, { ids: v1QueueIds, linear } = {}) {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-open-"));
	const copy = path.join(tmp, `${name}.jsonl`);
	fs.writeFileSync(copy, fileText);
	if (v1QueueIds) for (const id of v1QueueIds) uuidQueue.push(`${id}-0000-4000-8000-000000000000`);
	const sm = SessionManager.open(copy);
	if (uuidQueue.length !== 0) throw new Error(`${name}: pi did not consume all v1 ids (${uuidQueue.length} left)`);
	const rewritten = fs.readFileSync(copy, "utf8"); // the file as pi left it (rewritten when it migrated)
	fs.rmSync(tmp, { recursive: true, force: true });
	const entries = sm.getEntries();
	const byId = new Map();
	for (const e of entries) byId.set(e.id, e);
	const header = sm.getHeader();
	if (v1QueueIds) {
		const got = entries.map((e) => e.id).join(",");
		if (got !== v1QueueIds.join(",")) throw new Error(`${name}: migrated ids differ from our scheme`);
	} else if (JSON.parse(fileText.slice(0, fileText.indexOf("\n"))).version === 3) {
		// pi wrote these lines itself: re-serialising must give the same text
		const lines = fileText.split("\n").filter((l) => l.length);
		const objs = [header, ...entries];
		if (lines.length !== objs.length) throw new Error(`${name}: line count mismatch`);
		objs.forEach((o, i) => {
			if (JSON.stringify(o) !== lines[i]) throw new Error(`${name}:${i + 1}: JSON.stringify(entry) differs from line`);
		});
	}
	const s = { sm, entries, byId, header, name, linear, pi, rewritten };
	const rng = new Rng(`answers/${name}`);
	const leaves = chooseLeaves(s, rng);
	const cases = [];
	const emit = (kind, ref, id) => {
		const k = KINDS[kind];
		if (k.only && !k.only(s)) return; // a kind may apply to some sessions only
		const what = k.what(ref, id) + (ref !== null && ref !== id ? ` via ${ref}` : "");
		const c = { tool: k.tool, args: k.args(ref), stdout: k.stdout(s, id), what };
		if (k.stdin) c.stdin = true; // feed the session on stdin instead of passing its path
		if (k.inPlace) c.inPlace = true; // run on a temporary copy (see kinds/pi-fork.mjs)
		cases.push(c);
	};
	for (const [kind, k] of Object.entries(KINDS)) if (k.scope === "session") emit(kind, null, null);
	for (const { ref, id } of leaves) {
		for (const [kind, k] of Object.entries(KINDS)) {
			if (k.scope === "leaf" || (k.scope === "default-leaf" && ref === null) || (k.scope === "explicit-leaf" && ref !== null))
				emit(kind, ref, id);
		}
	}
	return cases;
}

// ---------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------

const SPECS = [];
for (let i = 1; i <= 30; i++) {
	const n = String(i).padStart(3, "0");
	const r = new Rng(`size/${n}`);
	SPECS.push({ name: `v3-${n}`, version: 3, target: r.int(60, i % 10 === 0 ? 110 : 68), opts: {} });
}
// Sessions with what only pi 1.x writes (system prompts, usage entries, context
// edits, null content, keep-nothing compactions, summaries with usage).
for (let i = 1; i <= 16; i++) {
	const n = String(i).padStart(2, "0");
	const r = new Rng(`size/x${n}`);
	SPECS.push({ name: `v3-x${n}`, version: 3, target: r.int(60, i % 8 === 0 ? 110 : 72), opts: { x: true, weights: X_WEIGHTS } });
}
SPECS.push(
	{
		name: "v3-many-roots",
		version: 3,
		target: 70,
		opts: { weights: { ...DEFAULT_WEIGHTS, resetLeaf: 7, branch: 3 } },
	},
	{
		name: "v3-deep-compactions",
		version: 3,
		target: 100,
		opts: { weights: { ...DEFAULT_WEIGHTS, compaction: 14, branch: 2, branchSummary: 1, resetLeaf: 0 } },
	},
	{
		name: "v3-labels",
		version: 3,
		target: 60,
		opts: { weights: { ...DEFAULT_WEIGHTS, label: 22 } },
	},
	{
		name: "v3-branch-summaries",
		version: 3,
		target: 60,
		opts: { weights: { ...DEFAULT_WEIGHTS, branchSummary: 14, branch: 8 } },
	},
	{
		name: "v3-clock-chaos",
		version: 3,
		target: 60,
		opts: { backProb: 0.35, sameProb: 0.3, weights: { ...DEFAULT_WEIGHTS, branch: 12 } },
	},
	{
		name: "v3-linear",
		version: 3,
		target: 50,
		opts: { linear: true, weights: { ...LINEAR_OLD_WEIGHTS, customEntry: 2, customMessage: 3, sessionInfo: 1 } },
	},
	{
		name: "v3-system-prompts",
		version: 3,
		target: 70,
		opts: { x: true, weights: { ...X_WEIGHTS, system: 14, compaction: 8 } },
	},
	{
		name: "v3-context-edits",
		version: 3,
		target: 70,
		opts: { x: true, weights: { ...X_WEIGHTS, contextEdit: 20, branch: 6 } },
	},
	{
		name: "v3-usage",
		version: 3,
		target: 64,
		opts: { x: true, weights: { ...X_WEIGHTS, usageEntry: 16, branchSummary: 6, compaction: 6 } },
	},
	{
		name: "v3-nested-compactions",
		version: 3,
		target: 100,
		opts: { x: true, weights: { ...X_WEIGHTS, compaction: 16, system: 5, branch: 2, branchSummary: 1, resetLeaf: 0 } },
	},
	{
		name: "v3-null-content",
		version: 3,
		target: 60,
		opts: { x: true, weights: { ...X_WEIGHTS, nullContent: 14 } },
	},
	{ name: "v1-001", version: 1, target: 28, opts: { linear: true, weights: LINEAR_OLD_WEIGHTS }, v1: { oldHeaderKeys: "branched" } },
	{ name: "v1-002", version: 1, target: 28, opts: { linear: true, weights: LINEAR_OLD_WEIGHTS }, v1: { oldHeaderKeys: "plain" } },
	{ name: "v1-003", version: 1, target: 28, opts: { linear: true, weights: LINEAR_OLD_WEIGHTS }, v1: {} },
	{
		name: "v1-004",
		version: 1,
		target: 28,
		opts: { linear: true, weights: { ...LINEAR_OLD_WEIGHTS, compaction: 8 } },
		v1: { oldHeaderKeys: "plain" },
	},
	{
		name: "v1-odd-compaction-index",
		version: 1,
		target: 24,
		opts: { linear: true, weights: LINEAR_OLD_WEIGHTS, tail: ["compaction", "user", "compaction", "assistant", "compaction", "user"] },
		v1: { edge: true },
	},
	{ name: "v2-001", version: 2, target: 28, opts: { linear: true, weights: LINEAR_OLD_WEIGHTS } },
	{ name: "v2-002", version: 2, target: 28, opts: { weights: { ...DEFAULT_WEIGHTS, customRole: 6 } } },
);

// Coverage: features the corpus must contain (checked on the written v3 text).
function features(objs) {
	const f = new Set();
	for (const o of objs) {
		f.add(`type:${o.type}`);
		if (o.type === "message") {
			const m = o.message;
			f.add(`role:${m.role}`);
			if (m.role === "user") f.add(typeof m.content === "string" ? "user:string" : "user:array");
			if (m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "image")) f.add("user:image");
			if (m.role === "assistant") {
				f.add(`stop:${m.stopReason}`);
				for (const b of m.content ?? []) {
					if (b.type === "thinking") f.add(b.redacted ? "thinking:redacted" : b.thinkingSignature ? "thinking:sig" : "thinking:nosig");
					if (b.type === "toolCall" && b.thoughtSignature) f.add("toolCall:thoughtSignature");
				}
			}
			if (m.role === "toolResult") f.add(`toolResult:isError:${m.isError}`);
			if (!("content" in m)) f.add("content:missing");
			else if (m.content === null) f.add("content:null");
			if (m.role === "system") {
				f.add(typeof m.content === "string" ? "system:string" : "system:array");
				if (m.sections) f.add("system:sections");
				if (m.toolsAdded) f.add("system:toolsAdded");
				if (m.toolsRemoved) f.add("system:toolsRemoved");
			}
			if (m.role === "bashExecution") {
				f.add(`bash:exit:${m.exitCode === undefined ? "absent" : m.exitCode === null ? "null" : m.exitCode === 0 ? "0" : "nonzero"}`);
				if (m.cancelled) f.add("bash:cancelled");
				if (m.output === "") f.add("bash:empty");
				if (m.truncated) f.add(m.fullOutputPath ? "bash:truncated:path" : "bash:truncated:nopath");
				if (m.excludeFromContext) f.add("bash:exclude");
			}
		}
		if (o.type === "compaction") {
			if (o.details) f.add("compaction:details");
			if (o.fromHook) f.add("compaction:fromHook");
			if (o.systemMessage) f.add("compaction:systemMessage");
			if (o.firstKeptEntryId === o.id) f.add("compaction:keepNothing");
			if (o.usage) f.add("compaction:usage");
		}
		if (o.type === "context_edit") {
			f.add(o.replacement === null ? "ce:omit" : typeof o.replacement.content === "string" ? "ce:string" : "ce:array");
		}
		if (o.type === "usage") f.add("note" in o ? "usage:note" : "usage:nonote");
		if (o.type === "custom") f.add("data" in o ? "custom:data" : "custom:nodata");
		if (o.type === "custom_message") {
			f.add(typeof o.content === "string" ? "cm:string" : "cm:array");
			f.add(`cm:display:${o.display}`);
			if ("details" in o) f.add("cm:details");
		}
		if (o.type === "session_info") f.add(o.name === "" ? "info:empty" : "info:name");
		if (o.type === "label") f.add("label" in o ? (o.label === "" ? "label:empty" : "label:set") : "label:clear");
		if (o.type === "branch_summary") {
			f.add(o.fromId === "root" ? "bs:root" : "bs:id");
			if (o.summary === "") f.add("bs:empty");
			if (o.details) f.add("bs:details");
			if (o.fromHook) f.add("bs:fromHook");
			if (o.usage) f.add("bs:usage");
		}
		if (o.type !== "session" && o.parentId === null) f.add("root");
	}
	return f;
}
const REQUIRED = [
	"type:message", "type:thinking_level_change", "type:model_change", "type:compaction", "type:custom",
	"type:custom_message", "type:session_info", "type:label", "type:branch_summary", "role:user", "role:assistant",
	"role:toolResult", "role:bashExecution", "role:custom", "role:systemNote", "role:hookMessage", "user:string",
	"user:array", "user:image", "stop:stop", "stop:length", "stop:toolUse", "stop:error", "stop:aborted",
	"thinking:redacted", "thinking:sig", "thinking:nosig", "toolCall:thoughtSignature", "toolResult:isError:true",
	"toolResult:isError:false", "bash:exit:absent", "bash:exit:null", "bash:exit:0", "bash:exit:nonzero",
	"bash:cancelled", "bash:empty", "bash:truncated:path", "bash:truncated:nopath", "bash:exclude",
	"compaction:details", "compaction:fromHook", "custom:data", "custom:nodata", "cm:string", "cm:array",
	"cm:display:true", "cm:display:false", "cm:details", "info:empty", "info:name", "label:empty", "label:set",
	"label:clear", "bs:root", "bs:id", "bs:empty", "bs:details", "bs:fromHook",
	// pi 1.x
	"role:system", "system:string", "system:array", "system:sections", "system:toolsAdded", "system:toolsRemoved",
	"type:usage", "usage:note", "usage:nonote", "type:context_edit", "ce:omit", "ce:string", "ce:array",
	"compaction:systemMessage", "compaction:keepNothing", "compaction:usage", "bs:usage", "content:null", "content:missing",
];

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

// PI_CONFORMANCE_STRESS=DIR[:ROUNDS]: only write ROUNDS (default 3) fresh copies of
// the corpus, with other seeds, to DIR, for check.mjs to compare the tools with pi on.
if (process.env.PI_CONFORMANCE_STRESS) {
	const [dir, rounds = "3"] = process.env.PI_CONFORMANCE_STRESS.split(":");
	fs.mkdirSync(dir, { recursive: true });
	let n = 0;
	for (let r = 0; r < Number(rounds); r++) {
		for (const spec of SPECS) {
			const name = `r${r}-${spec.name}`;
			let t = new Builder(name, spec.opts).run(spec.target);
			try {
				if (spec.version === 1) t = toV1(t, new Rng(`v1/${name}`), spec.v1);
				else if (spec.version === 2) t = toV2(t, new Rng(`v2/${name}`));
			} catch {
				continue;
			}
			fs.writeFileSync(path.join(dir, `${name}.jsonl`), t);
			n++;
		}
	}
	console.log(`${n} sessions in ${dir}`);
	process.exit(0);
}

fs.rmSync(ANSWERS_DIR, { recursive: true, force: true });
for (const dir of [SESSIONS_DIR, ANSWERS_DIR]) {
	fs.mkdirSync(dir, { recursive: true });
	for (const f of fs.readdirSync(dir)) if (f.endsWith(".jsonl")) fs.rmSync(path.join(dir, f));
}

// answers/<tool>/<name>.jsonl: the cases of one tool for one fixture
function writeAnswers(name, cases) {
	const byTool = new Map();
	for (const c of cases) {
		if (!byTool.has(c.tool)) byTool.set(c.tool, []);
		byTool.get(c.tool).push(c);
	}
	for (const [tool, cs] of byTool) {
		fs.mkdirSync(path.join(ANSWERS_DIR, tool), { recursive: true });
		fs.writeFileSync(path.join(ANSWERS_DIR, tool, `${name}.jsonl`), jsonLines(cs));
	}
}

const seen = new Set();
let nCases = 0;
let bytes = 0;
const perVersion = { 1: 0, 2: 0, 3: 0 };
for (const spec of SPECS) {
	const b = new Builder(spec.name, spec.opts);
	let t = b.run(spec.target);
	let ids;
	if (spec.version === 3) for (const x of features(parseLines(t))) seen.add(x);
	if (spec.version === 1) {
		t = toV1(t, new Rng(`v1/${spec.name}`), spec.v1);
		ids = v1Ids(t);
	} else if (spec.version === 2) t = toV2(t, new Rng(`v2/${spec.name}`));
	const cases = computeAnswers(spec.name, t, { ids, linear: spec.opts.linear });
	const a = jsonLines(cases);
	fs.writeFileSync(path.join(SESSIONS_DIR, `${spec.name}.jsonl`), t);
	writeAnswers(spec.name, cases);
	nCases += cases.length;
	bytes += Buffer.byteLength(t) + Buffer.byteLength(a);
	perVersion[spec.version]++;
	const nEntries = t.split("\n").length - 2;
	console.log(`${spec.name}: v${spec.version}, ${nEntries} entries, ${cases.length} cases, ${Buffer.byteLength(t)}+${Buffer.byteLength(a)} bytes`);
}
for (const mod of KIND_MODULES) {
	for (const fx of (await mod.extraFixtures?.(pi)) ?? []) {
		fs.writeFileSync(path.join(SESSIONS_DIR, `${fx.name}.jsonl`), fx.text);
		writeAnswers(fx.name, fx.cases);
		nCases += fx.cases.length;
		bytes += Buffer.byteLength(fx.text) + Buffer.byteLength(jsonLines(fx.cases));
	}
	// answers of their own, outside the cases (kinds/pi-check.mjs: pi on the broken corpus)
	await mod.extraAnswers?.();
}
const missing = REQUIRED.filter((x) => !seen.has(x));
if (missing.length) throw new Error(`corpus lacks features: ${missing.join(", ")}`);
console.log(
	`sessions: ${SPECS.length} (v3 ${perVersion[3]}, v2 ${perVersion[2]}, v1 ${perVersion[1]}), cases: ${nCases}, total bytes: ${bytes}`,
);
