// Child of kinds/pi-check.mjs: pi 1.6.0 opens one session file, as `pi
// --session FILE` does, and builds the context at its leaf. Run in a child
// process with a time limit, as a parentId cycle makes pi walk for seconds
// and gigabytes. Prints one JSON object: what pi said on the console,
// whether it threw (and what), whether it rewrote the file, the leaf, the
// entries' ids and types, the context's messages.
import fs from "node:fs";

const file = process.argv[2];
const before = fs.readFileSync(file);
const said = [];
for (const k of ["warn", "error", "log", "info"]) console[k] = (...a) => said.push(a.map(String).join(" "));
const out = { said };
const step = (name) => (out.step = name);
try {
	step("import");
	const pi = await import("@earendil-works/pi-coding-agent");
	step("open");
	const sm = pi.SessionManager.open(file);
	step("entries");
	const entries = sm.getEntries();
	out.entries = entries.map((e) => [e?.id ?? null, e?.type ?? null]);
	out.leaf = sm.getLeafId() ?? null;
	step("context");
	const ctx = sm.buildSessionContext();
	out.messages = ctx.messages;
	delete out.step;
	out.outcome = "opens";
} catch (e) {
	out.outcome = "throws";
	out.error = `${e?.name}: ${e?.message}`;
}
const after = fs.readFileSync(file);
out.rewritten = !before.equals(after);
// The lines pi wrote itself (an empty file's new header) hold a random id,
// the time and the working directory: shown as <uuid>, <time>, <cwd>.
if (out.rewritten) {
	const had = new Set(before.toString("utf8").split(/\r?\n/));
	out.after = after
		.toString("utf8")
		.split("\n")
		.map((l) =>
			had.has(l)
				? l
				: l
						.split(JSON.stringify(process.cwd()))
						.join('"<cwd>"')
						.replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"<uuid>"')
						.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"'),
		)
		.join("\n");
}
// The file's temporary path, as <file>.
if (out.error) out.error = out.error.split(file).join("<file>");
process.stdout.write(`${JSON.stringify(out)}\n`);
