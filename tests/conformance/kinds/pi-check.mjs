// pi 1.6.0 on pi-check's corpus (issue 33 item 5): tests/conformance/check/
// holds one small broken session per code, written by tests/check.rs
// (UPDATE_CHECK_CORPUS=1). For each, pi opens the file in a child process
// (pi-check-open.mjs) with a time and memory limit, and what it did is
// recorded in answers/pi-check/CODE.json: opens / throws (the error) /
// timeout (8 s or 512 MB of heap) / crashes, what it printed, whether it rewrote the file, its
// entries and leaf, the context's messages at the leaf. Then `pi-check
// --fix` repairs a copy and pi opens the repair; that is recorded too.
// tests/check.rs reads the answers (no node needed) and checks them against
// each code's "what pi does" and against the repair.
//
// Needs pi-check built: PI_CHECK=path, else $CARGO_TARGET_DIR/debug/pi-check,
// else ../../target/debug/pi-check. Run by generate.mjs, or alone:
// `node kinds/pi-check.mjs`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const KINDS = {};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONF = path.resolve(HERE, "..");
const REPO = path.resolve(CONF, "..", "..");
const CORPUS = path.join(CONF, "check");
const ANSWERS = path.join(CONF, "answers", "pi-check");
const CHILD = path.join(CONF, "pi-check-open.mjs");
// A cycle on the leaf's path takes pi 10-18 s and 2-2.7 GB before its
// RangeError; short limits record it as "timeout" without taking the
// machine's memory.
const LIMIT_MS = 8000;
const HEAP_MB = 512;

const FILE_NAME = "2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl";
const NEIGHBOUR_NAME = "2026-07-19T09-00-00-000Z_0190cccc-0000-7000-8000-000000000009.jsonl";
const NEIGHBOUR =
	'{"type":"session","version":3,"id":"0190cccc-0000-7000-8000-000000000009","timestamp":"2026-07-19T09:00:00.000Z","cwd":"/p"}\n' +
	'{"type":"message","id":"cccc0001","parentId":null,"timestamp":"2026-07-19T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n';

function binary() {
	const candidates = [
		process.env.PI_CHECK,
		process.env.CARGO_TARGET_DIR && path.join(process.env.CARGO_TARGET_DIR, "debug", "pi-check"),
		path.join(REPO, "target", "debug", "pi-check"),
	].filter(Boolean);
	const found = candidates.find((p) => fs.existsSync(p));
	if (!found) throw new Error(`kinds/pi-check.mjs: no pi-check binary (tried ${candidates.join(", ")}): cargo build --bins`);
	return found;
}

// pi opens `file` in a child process, in a fixed working directory (pi
// writes it into the header of an empty file).
function piOpens(file, cwd) {
	const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CHILD, file], {
		cwd,
		encoding: "utf8",
		timeout: LIMIT_MS,
		killSignal: "SIGKILL",
		env: { ...process.env, NODE_PATH: path.join(CONF, "node_modules") },
	});
	// Which limit a cycle meets first depends on the machine's load: both
	// are recorded as one outcome, so that a rerun gives the same bytes.
	const oom = /heap out of memory/.test(r.stderr ?? "");
	if (r.error?.code === "ETIMEDOUT" || oom) return { outcome: "timeout", limit: `${LIMIT_MS / 1000} s or ${HEAP_MB} MB of heap` };
	if (r.status !== 0 || !r.stdout.trim()) return { outcome: "crashes", error: `${r.signal ?? r.status}: ${r.stderr.slice(0, 300)}` };
	return JSON.parse(r.stdout);
}

// Ids pi or pi-check made up (pi's migration of an old file, the
// context_edit --fix appends) are random: shown as <new 1>, <new 2>, ...
function freshIds(answer, original) {
	const ids = (answer.entries ?? []).map((e) => e[0]).filter((id) => typeof id === "string" && !original.includes(JSON.stringify(id)));
	let text = JSON.stringify(answer);
	ids.forEach((id, i) => {
		text = text.split(id).join(`<new ${i + 1}>`);
	});
	return JSON.parse(text);
}

function checkJson(bin, file) {
	const r = spawnSync(bin, ["--json", file], { encoding: "utf8" });
	return r.stdout
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l))
		.map((f) => ({ code: f.code, severity: f.severity, line: f.line }));
}

export function extraAnswers() {
	const bin = binary();
	fs.mkdirSync(ANSWERS, { recursive: true });
	for (const f of fs.readdirSync(ANSWERS)) if (f.endsWith(".json")) fs.rmSync(path.join(ANSWERS, f));
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-check-"));
	const cwd = path.join(tmp, "cwd");
	fs.mkdirSync(cwd);
	try {
		for (const name of fs.readdirSync(CORPUS).sort()) {
			if (!name.endsWith(".jsonl")) continue;
			const code = name.slice(0, -".jsonl".length);
			const dir = fs.mkdtempSync(path.join(tmp, `${code}-`));
			// Named as pi names sessions, beside another session of the same
			// cwd: what a missing header is rebuilt from.
			const copy = path.join(dir, FILE_NAME);
			fs.writeFileSync(path.join(dir, NEIGHBOUR_NAME), NEIGHBOUR);
			fs.copyFileSync(path.join(CORPUS, name), copy);
			const original = fs.readFileSync(path.join(CORPUS, name), "utf8"); // as pi reads it: a bad byte is U+FFFD
			const pi = freshIds(piOpens(copy, cwd), original);
			fs.copyFileSync(path.join(CORPUS, name), copy);
			const fix = spawnSync(bin, ["--fix", "-q", copy], { encoding: "utf8" });
			const repaired = fs.readFileSync(copy);
			const changed = !repaired.equals(fs.readFileSync(path.join(CORPUS, name)));
			const after = {
				fixStatus: fix.status,
				changed,
				findings: checkJson(bin, copy),
				pi: freshIds(piOpens(copy, cwd), original),
			};
			const answer = { code, what: `pi 1.6.0 SessionManager.open + buildSessionContext on check/${name}, then on pi-check --fix's repair`, pi, afterFix: after };
			fs.writeFileSync(path.join(ANSWERS, `${code}.json`), `${JSON.stringify(answer, null, "\t")}\n`);
			console.log(`${code}: ${pi.outcome}${pi.error ? ` (${pi.error})` : ""}; fixed: ${changed ? "changed" : "unchanged"}, then ${after.pi.outcome}`);
		}
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) extraAnswers();
