// Issue 32: forks and paths at REFs that step over bookkeeping, answered by
// pi for the entries they resolve to. A module of its own, named to load
// after the others: its extra fixture runs last, so the fresh ids pi draws
// for it (its uuidv7 keeps state between calls) change no other answer.

import crypto from "node:crypto";
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";
import { branched, fresh, inPlace, isUser } from "./pi-fork.mjs";

// REF steps count only what puts something in pi's context.
const CONVERSATION = new Set(["message", "custom_message", "branch_summary", "compaction"]);

// Run f with ids drawn from a private counter instead of the generator's
// seeded sources: the fixture's ids do not depend on the rest of the corpus,
// and it consumes nothing the answers made after it would draw.
function isolated(f) {
	const uuid = crypto.randomUUID;
	const values = globalThis.crypto.getRandomValues;
	let n = 0;
	crypto.randomUUID = () => `${(0xc0de0000 + ++n).toString(16)}-0000-4000-8000-${String(n).padStart(12, "0")}`;
	globalThis.crypto.getRandomValues = (a) => {
		const bits = 8 * a.BYTES_PER_ELEMENT;
		for (let i = 0; i < a.length; i++) {
			const v = (++n * 2654435761) % 2 ** Math.min(bits, 32);
			a[i] = bits > 32 ? BigInt(v) : v;
		}
		return a;
	};
	module.syncBuiltinESMExports();
	try {
		return f();
	} finally {
		crypto.randomUUID = uuid;
		globalThis.crypto.getRandomValues = values;
		module.syncBuiltinESMExports();
	}
}

const USAGE = { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

// A session, written by pi's API only, where every conversation entry is
// followed by every bookkeeping entry pi writes (label, session_info,
// model_change, thinking_level_change, custom, usage, context_edit).
function bookkeepingSession(pi) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-conf-refs-"));
	try {
		const sm = pi.SessionManager.create("/home/dev/proj", dir);
		sm.newSession({ id: "019b0000-0000-7000-8000-00000000b00c" });
		let k = 0;
		let lastUser;
		const keep = (target) => {
			k++;
			sm.appendLabelChange(target, `mark-${k}`);
			sm.appendSessionInfo(`name ${k}`);
			sm.appendModelChange("anthropic", `claude-${k}`);
			sm.appendThinkingLevelChange(k % 2 ? "high" : "low");
			sm.appendCustomEntry("ext-state", { k });
			sm.appendUsage("title", "anthropic", "claude", USAGE);
			sm.appendContextEdit(lastUser, { content: `edited ${k}` });
		};
		const user = (text) => {
			lastUser = sm.appendMessage({ role: "user", content: text, timestamp: 1 });
			keep(lastUser);
		};
		const assistant = (text) => {
			const id = sm.appendMessage({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "claude", usage: USAGE, stopReason: "stop", timestamp: 2 });
			keep(id);
		};
		user("first question");
		assistant("first answer");
		keep(sm.appendCustomMessageEntry("ext-note", "a note for the model", true));
		user("second question");
		assistant("second answer");
		keep(sm.appendCompaction("Summary: two questions", lastUser, 1234));
		user("third question");
		keep(sm.branchWithSummary(sm.getLeafId(), "Branch: nothing left behind"));
		user("fourth question");
		assistant("fourth answer");
		return fs.readFileSync(sm.getSessionFile(), "utf8");
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

// The entry `n` steps up from entry `from` (pi's leaf when undefined) that
// `counts`: the n-th from the end of the counted entries of getBranch(from),
// bookkeeping stepped over.
function stepped(sm, n, counts, from) {
	const xs = sm.getBranch(from).filter(counts);
	return xs[xs.length - 1 - n]?.id;
}

// Forks made at stepping REFs on bookkeepingSession(), with pi's answers for
// the entries they resolve to: createBranchedSession (--at), branch then
// buildSessionContext (--in-place), getBranch ids (pi-path).
export function extraFixtures(pi) {
	return isolated(() => {
		const name = "refs-bookkeeping";
		const rewritten = bookkeepingSession(pi);
		const s = { name, rewritten, pi };
		const { dir, sm } = fresh(s);
		fs.rmSync(dir, { recursive: true, force: true });
		const convo = (e) => CONVERSATION.has(e.type);
		const marked = sm.getEntries().find((e) => sm.getLabel(e.id) === "mark-3").id;
		// A bookkeeping base: the context edit after the compaction.
		const edit = sm.getEntries().filter((e) => e.type === "context_edit")[5].id;
		const refs = [
			["leaf~1", stepped(sm, 1, convo)],
			["leaf^^", stepped(sm, 2, convo)],
			["last", stepped(sm, 0, convo)],
			["last~4", stepped(sm, 4, convo)],
			["user", stepped(sm, 0, isUser)],
			["user~2", stepped(sm, 2, isUser)],
			["@mark-3~1", stepped(sm, 1, convo, marked)],
			[`${edit}^`, stepped(sm, 1, convo, edit)],
		];
		if (refs.some(([, id]) => id === undefined)) throw new Error(`${name}: a REF resolves to nothing`);
		const cases = [];
		for (const [ref, id] of refs) {
			const how = `via ${ref}, bookkeeping stepped over`;
			cases.push({ tool: "pi-path", args: ["--leaf", ref, "--format", "ids"], stdout: sm.getBranch(id).map((e) => `${e.id}\n`).join(""), what: `getBranch(${id}) ids ${how}` });
			cases.push({ tool: "pi-fork", args: ["--at", ref, "-o", "-"], stdout: branched(s, id), what: `createBranchedSession(${id}) ${how}` });
			cases.push({ tool: "pi-fork", args: ["--in-place", "--at", ref], inPlace: true, stdout: inPlace(s, id, undefined), what: `branch(${id}) then buildSessionContext() ${how}` });
		}
		return [{ name, text: rewritten, cases }];
	});
}

