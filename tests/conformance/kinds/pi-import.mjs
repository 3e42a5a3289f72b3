// pi's view of what pi-import writes (issue 34): the imports of the examples
// (examples/claude.jsonl, examples/codex.jsonl) become fixture sessions
// `import-claude` and `import-codex`, and pi 1.6.0's own answers at each of
// their leaves are recorded: getBranch ids, buildSessionContext (what pi
// sends when it continues there), its messages, convertToLlm.
//
// The sessions are written by pi-import itself, so generating needs it built:
// PI_IMPORT=path/to/pi-import, else $CARGO_TARGET_DIR/debug/pi-import, else
// ../../target/debug/pi-import. The header's importedFrom.path (the source's
// absolute path, which depends on the checkout) is replaced by
// `/tmp/pi-conformance/examples/NAME.jsonl`; tests/import.rs checks that
// the fixtures are still what pi-import writes, with the same replacement.
//
// Checked here, where pi reads them: pi opens each without a warning, the
// context at every leaf answers each tool call with its result, in order,
// and `pi -c` (continueRecent) picks the import and goes on from its leaf.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const KINDS = {};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..", "..");
export const SHOWN_SOURCE = (name) => `/tmp/pi-conformance/examples/${name}.jsonl`;

function binary() {
	const candidates = [
		process.env.PI_IMPORT,
		process.env.CARGO_TARGET_DIR && path.join(process.env.CARGO_TARGET_DIR, "debug", "pi-import"),
		path.join(REPO, "target", "debug", "pi-import"),
	].filter(Boolean);
	const found = candidates.find((p) => fs.existsSync(p));
	if (!found) throw new Error(`kinds/pi-import.mjs: no pi-import binary (tried ${candidates.join(", ")}): cargo build --bins`);
	return found;
}

// The import of examples/NAME.jsonl, its header's source path made fixed.
function imported(bin, name) {
	const src = path.join(REPO, "examples", `${name}.jsonl`);
	const text = execFileSync(bin, ["-q", src, "-o", "-"], { encoding: "utf8" });
	const nl = text.indexOf("\n");
	const header = JSON.parse(text.slice(0, nl));
	const from = JSON.stringify(header.importedFrom.path);
	return text.slice(0, nl).split(from).join(JSON.stringify(SHOWN_SOURCE(name))) + text.slice(nl);
}

// Opened by pi, with whatever pi says on the console collected.
function open(pi, text) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-import-"));
	const said = [];
	const saved = { warn: console.warn, error: console.error, log: console.log };
	for (const k of Object.keys(saved)) console[k] = (...a) => said.push(a.join(" "));
	try {
		const f = path.join(dir, "s.jsonl");
		fs.writeFileSync(f, text);
		const sm = pi.SessionManager.open(f);
		if (fs.readFileSync(f, "utf8") !== text) said.push("pi rewrote the file on open");
		return { sm, said };
	} finally {
		Object.assign(console, saved);
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// Every toolCall of an assistant message answered by the toolResult
// messages that follow it, in the calls' order.
function pairsComplete(messages) {
	for (let i = 0; i < messages.length; i++) {
		const m = messages[i];
		if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
		const calls = m.content.filter((b) => b.type === "toolCall").map((b) => b.id);
		const results = messages.slice(i + 1, i + 1 + calls.length).map((r) => (r.role === "toolResult" ? r.toolCallId : null));
		if (calls.join("\n") !== results.join("\n")) return `message ${i}: calls ${calls} answered by ${results}`;
	}
	return null;
}

// `pi -c`: pi's continueRecent in a store holding only the import finds it
// at its leaf (pi appends under the leaf). Nothing is appended here: that
// would draw on the seeded ids and clock the later fixtures are made with.
function continues(pi, name, text, leaf) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-import-c-"));
	try {
		const f = path.join(dir, `import-${name}.jsonl`);
		fs.writeFileSync(f, text);
		const cwd = JSON.parse(text.slice(0, text.indexOf("\n"))).cwd;
		const sm = pi.SessionManager.continueRecent(cwd, dir);
		if (sm.getSessionFile() !== f) throw new Error(`import-${name}: pi -c does not pick the import`);
		if (sm.getLeafId() !== leaf) throw new Error(`import-${name}: pi -c continues at ${sm.getLeafId()}, not ${leaf}`);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const jsonLines = (xs) => xs.map((x) => `${JSON.stringify(x)}\n`).join("");

export function extraFixtures(pi) {
	const bin = binary();
	const fixtures = [];
	for (const name of ["claude", "codex"]) {
		const text = imported(bin, name);
		const { sm, said } = open(pi, text);
		if (said.length) throw new Error(`import-${name}: pi said on open: ${said.join("; ")}`);
		const entries = sm.getEntries();
		const byId = new Map(entries.map((x) => [x.id, x]));
		const hasChild = new Set(entries.map((x) => x.parentId));
		const leaves = [null, ...entries.filter((x) => !hasChild.has(x.id) && x.id !== sm.getLeafId()).map((x) => x.id)];
		const cases = [];
		for (const leaf of leaves) {
			const id = leaf ?? sm.getLeafId();
			const la = leaf ? ["--leaf", leaf] : [];
			const ctx = pi.buildSessionContext(entries, id, byId);
			const bad = pairsComplete(ctx.messages);
			if (bad) throw new Error(`import-${name} at ${id}: ${bad}`);
			cases.push({ tool: "pi-path", args: [...la, "--format", "ids"], stdout: sm.getBranch(id).map((x) => `${x.id}\n`).join(""), what: `import of examples/${name}.jsonl: getBranch(${id}) ids` });
			cases.push({ tool: "pi-path", args: [...la, "--format", "context"], stdout: `${JSON.stringify(ctx)}\n`, what: `import of examples/${name}.jsonl: buildSessionContext(${id})` });
			cases.push({ tool: "pi-path", args: [...la, "--format", "messages"], stdout: jsonLines(ctx.messages), what: `import of examples/${name}.jsonl: buildSessionContext(${id}).messages` });
			cases.push({ tool: "pi-convert", args: la, stdout: jsonLines(pi.convertToLlm(ctx.messages)), what: `import of examples/${name}.jsonl: convertToLlm(buildSessionContext(${id}).messages)` });
		}
		continues(pi, name, text, sm.getLeafId());
		if (name === "claude" && leaves.length < 2) throw new Error(`import-${name}: the example should hold a branch`);
		fixtures.push({ name: `import-${name}`, text, cases });
	}
	return fixtures;
}
