// pi's own library doing what each pi-session-tools command does, for
// bench/run.sh. Usage: node ops.mjs OP FILE|DIR [ARGS...]
//   path FILE            SessionManager.open + getBranch(), entries as JSON lines
//   messages FILE        buildSessionContext().messages, one JSON line each
//   tree FILE            JSON.stringify(getTree())
//   convert FILE         convertToLlm(buildSessionContext().messages), JSON lines
//   label FILE ID NAME   appendLabelChange(ID, NAME) (appends to FILE)
//   migrate DIR          SessionManager.open on every *.jsonl (migrate-on-open rewrites v1/v2 files)
import { SessionManager, convertToLlm } from "@earendil-works/pi-coding-agent";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";

const [op, target, ...rest] = process.argv.slice(2);
const open = (f) => SessionManager.open(f, dirname(f));

function writeLines(items) {
  // Batched writes: one string per 1000 items.
  const out = [];
  for (let i = 0; i < items.length; i += 1000) {
    out.length = 0;
    for (const x of items.slice(i, i + 1000)) out.push(JSON.stringify(x));
    process.stdout.write(out.join("\n") + "\n");
  }
}

// JSON.stringify(getTree()), or, when the tree is too deep for
// JSON.stringify's recursion (a long session: "Maximum call stack size
// exceeded"), the same text written with an explicit stack.
function writeTree(roots) {
  try {
    process.stdout.write(JSON.stringify(roots) + "\n");
    return;
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  let buf = [];
  let size = 0;
  const emit = (s) => {
    buf.push(s);
    size += s.length;
    if (size > 1 << 20) {
      process.stdout.write(buf.join(""));
      buf = [];
      size = 0;
    }
  };
  const close = (node) => {
    let s = "]";
    if (node.label !== undefined) s += ',"label":' + JSON.stringify(node.label);
    if (node.labelTimestamp !== undefined) s += ',"labelTimestamp":' + JSON.stringify(node.labelTimestamp);
    emit(s + "}");
  };
  emit("[");
  const stack = [{ list: roots, i: 0, node: null }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i === top.list.length) {
      stack.pop();
      if (top.node) close(top.node);
      else emit("]");
      continue;
    }
    const node = top.list[top.i++];
    emit((top.i > 1 ? "," : "") + '{"entry":' + JSON.stringify(node.entry) + ',"children":[');
    stack.push({ list: node.children, i: 0, node });
  }
  process.stdout.write(buf.join("") + "\n");
}

switch (op) {
  case "path":
    writeLines(open(target).getBranch());
    break;
  case "messages":
    writeLines(open(target).buildSessionContext().messages);
    break;
  case "tree":
    writeTree(open(target).getTree());
    break;
  case "convert":
    writeLines(convertToLlm(open(target).buildSessionContext().messages));
    break;
  case "label":
    open(target).appendLabelChange(rest[0], rest[1]);
    break;
  case "migrate":
    for (const name of readdirSync(target)) {
      if (name.endsWith(".jsonl")) open(join(target, name));
    }
    break;
  default:
    console.error(`unknown op ${op}`);
    process.exit(2);
}
