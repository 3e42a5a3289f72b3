// Answer kinds of pi-convert: pi's convertToLlm(buildSessionContext(...).messages),
// each message written with JSON.stringify, one per line.
//
// Every fixture session at several leaves (the generator's leaf choice), and
// message streams (what `pi-path --format messages` prints) written by hand
// as text so that they hold what pi itself never writes: every bashExecution
// variant, odd value types, custom messages, summaries and unknown roles.
// The expected output is always pi's answer on JSON.parse of each line.

const leafArgs = (ref) => (ref === null ? [] : ["--leaf", ref]);
const llmLines = (pi, messages) =>
	pi
		.convertToLlm(messages)
		.map((m) => `${JSON.stringify(m)}\n`)
		.join("");
const context = (s, id) => s.pi.buildSessionContext(s.entries, id, s.byId);

export const KINDS = {
	"convert-llm": {
		tool: "pi-convert",
		scope: "leaf",
		args: (ref) => leafArgs(ref),
		what: (ref, id) => `convertToLlm(buildSessionContext(${id}).messages)`,
		stdout: (s, id) => llmLines(s.pi, context(s, id).messages),
	},
	"convert-llm-explicit": {
		tool: "pi-convert",
		scope: "default-leaf",
		args: () => ["--from", "session", "--to", "llm", "--leaf", "leaf"],
		what: (ref, id) => `convertToLlm(buildSessionContext(${id}).messages), options spelled out`,
		stdout: (s, id) => llmLines(s.pi, context(s, id).messages),
	},
};

// Message streams, one AgentMessage per line, exactly as written here.
const BASH = String.raw`
{"role":"bashExecution","command":"ls -la","output":"a\nb\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1747762860990}
{"role":"bashExecution","command":"true","output":"","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1747762860991}
{"role":"bashExecution","command":"no output key","timestamp":1747762860992}
{"role":"bashExecution","command":"sleep 100","output":"partial","exitCode":130,"cancelled":true,"truncated":false,"timestamp":1747762860993}
{"role":"bashExecution","command":"sleep 1","output":"","exitCode":null,"cancelled":true,"truncated":false,"timestamp":1747762860994}
{"role":"bashExecution","command":"false","output":"","exitCode":1,"cancelled":false,"truncated":false,"timestamp":1747762860995}
{"role":"bashExecution","command":"killed","output":"x","exitCode":null,"cancelled":false,"truncated":false,"timestamp":1747762860996}
{"role":"bashExecution","command":"neg","output":"x","exitCode":-1,"cancelled":false,"truncated":false,"timestamp":1747762860997}
{"role":"bashExecution","command":"string code","output":"x","exitCode":"2","cancelled":false,"truncated":false,"timestamp":1747762860998}
{"role":"bashExecution","command":"string zero","output":"x","exitCode":"0","cancelled":false,"truncated":false,"timestamp":1747762860999}
{"role":"bashExecution","command":"zero forms","output":"x","exitCode":0.0,"cancelled":0,"truncated":false,"timestamp":1747762861000}
{"role":"bashExecution","command":"minus zero","output":"x","exitCode":-0,"cancelled":"","truncated":false,"timestamp":1747762861001}
{"role":"bashExecution","command":"odd codes","output":"x","exitCode":1.50,"cancelled":false,"truncated":false,"timestamp":1747762861002}
{"role":"bashExecution","command":"huge code","output":"x","exitCode":1e400,"timestamp":1e21}
{"role":"bashExecution","command":"exp code","output":"x","exitCode":25E-1,"timestamp":0.5}
{"role":"bashExecution","command":"cat big","output":"head\n...","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/pi-bash-aa3b54.log","timestamp":1747762861003}
{"role":"bashExecution","command":"cat big2","output":"head","exitCode":0,"cancelled":false,"truncated":true,"timestamp":1747762861004}
{"role":"bashExecution","command":"cat big3","output":"head","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"","timestamp":1747762861005}
{"role":"bashExecution","command":"cat big4","output":"head","exitCode":3,"cancelled":true,"truncated":1,"fullOutputPath":"/tmp/x y.log","timestamp":1747762861006}
{"role":"bashExecution","command":"not truncated","output":"head","exitCode":0,"truncated":false,"fullOutputPath":"/tmp/unused.log","timestamp":1747762861007}
{"role":"bashExecution","command":"secret","output":"hidden","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":1747762861008}
{"role":"bashExecution","command":"not secret","output":"shown","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":false,"timestamp":1747762861009}
{"role":"bashExecution","command":"falsy exclude","output":"shown","exitCode":0,"excludeFromContext":0,"timestamp":1747762861010}
{"role":"bashExecution","command":"truthy exclude","output":"hidden","exitCode":0,"excludeFromContext":"yes","timestamp":1747762861011}

{"role":"bashExecution","command":"echo \u0060x\u0060 | grep \"é\" \ud83d\ude00","output":"\u0060\u0060\u0060\nfence\n\u0060\u0060\u0060\n\u0000\u001b[31mred\u001b[0m \ud83d lone","exitCode":2,"timestamp":1747762861012}
{"role":"bashExecution","command":42,"output":["a",null,["b",[]],true,1e21,{"k":1}],"exitCode":false,"timestamp":1747762861013}
{"role":"bashExecution","output":{"x":1},"exitCode":true,"cancelled":null}
{"role":"bashExecution","command":null,"output":0,"exitCode":[],"truncated":"y","fullOutputPath":7}
{ "role" : "bashExecution" , "command" : "spaced" , "output" : "o" , "exitCode" : 4 , "timestamp" : 1747762861014 }
`;

const MIXED = String.raw`
{"role":"user","content":"hello","timestamp":1747762855472}
{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"timestamp":1747762855473}
{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":"ok"},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1747762855474}
{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"a\nb"}],"isError":false,"timestamp":1747762855475}
{"role":"custom","customType":"note","content":"a string custom message","display":true,"timestamp":1747762855476}
{"role":"custom","customType":"note","content":[{"type":"text","text":"array"},{"type":"image","data":"AAAA","mimeType":"image/jpeg"}],"display":false,"details":{"k":[1,2]},"timestamp":1747762855477}
{"role":"custom","customType":"empty","content":[],"display":true,"timestamp":1747762855478}
{"role":"custom","customType":"none","display":true,"timestamp":1747762855479}
{"role":"custom","customType":"null","content":null,"display":true,"timestamp":1747762855480}
{"role":"custom","customType":"num","content":5,"display":true}
{"role":"branchSummary","summary":"we tried X\nit failed","fromId":"abcd1234","timestamp":1747762855481}
{"role":"branchSummary","summary":"","fromId":"root","timestamp":1747762855482}
{"role":"branchSummary","fromId":"root","timestamp":1747762855483}
{"role":"compactionSummary","summary":"## Goal\nstuff <b>&amp;</b>","tokensBefore":12345,"timestamp":1747762855484}
{"role":"compactionSummary","summary":["x",2],"tokensBefore":1}
{"role":"systemNote","content":"unknown roles are dropped","timestamp":1747762855485}
{"role":"hookMessage","customType":"old","content":"v2 name, unknown to convertToLlm","display":true,"timestamp":1747762855486}
{"role":"","content":"empty role"}
{"role":"User","content":"case matters"}
{"role":"toolResult","toolCallId":"orphan","toolName":"read","content":[{"type":"text","text":"no call"}],"isError":true,"timestamp":1747762855487}
{"role":"user","content":"first","content":"last wins","timestamp":1747762855488}
{"content":"role last","timestamp":1747762855489,"role":"user"}
{"role":"assistant","content":[],"api":"x","provider":"p","model":"m","usage":{},"stopReason":"error","errorMessage":"overloaded \ud800 lone","timestamp":1.0}
{"role":"system","content":"You are pi.","sections":{"<rules>":"be brief","gone":null},"toolsAdded":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}],"timestamp":0}
{"role":"system","content":[{"type":"text","text":"blocks"}],"toolsRemoved":[{"name":"read"}],"timestamp":2}
{"role":"system","content":null,"timestamp":3}
{"role":"system","timestamp":4}
{"role":"user","content":null,"timestamp":5}
{"role":"assistant","api":"x","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":6}
`;

const streamCases = (pi, text, label) => {
	const messages = text
		.split("\n")
		.filter((l) => l.trim() !== "")
		.map((l) => JSON.parse(l));
	const stdout = llmLines(pi, messages);
	return [
		{ tool: "pi-convert", args: [], stdout, what: `convertToLlm(${label}) (detected as messages)` },
		{ tool: "pi-convert", args: ["--from", "messages", "--to", "llm"], stdout, what: `convertToLlm(${label})` },
		// --include-hidden never changes what the model sees
		{ tool: "pi-convert", args: ["--include-hidden"], stdout, what: `convertToLlm(${label}) with --include-hidden` },
	];
};

export function extraFixtures(pi) {
	const fixtures = [];
	for (const [name, text] of [
		["convert-bash", BASH],
		["convert-mixed", MIXED],
	]) {
		const body = `${text.replace(/^\n/, "")}`;
		fixtures.push({ name, text: body, cases: streamCases(pi, body, name) });
	}
	return fixtures;
}
