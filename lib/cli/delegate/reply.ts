/** `observal delegate reply`: answer a remote agent's question, with text, data or both. */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Part } from "../../a2a/tasks/mod.ts";
import { type Context, ObservalError } from "../../core/mod.ts";
import { MAX_MESSAGE_CHARS } from "../../delegation/mod.ts";
import { type Command, int, type Invocation, str } from "../command.ts";
import { follow, TASK_JSON_NOTE, waitFlags } from "./_follow.ts";
import { messageFileFlag, readMessage } from "./_brief.ts";

const USAGE = "observal delegate reply TASK-ID [MESSAGE | -] [flags]";

/** Largest --data-file read. */
const MAX_DATA_FILE_BYTES = 1024 * 1024;

/** The answer as A2A parts: the message as a text part, then --data or --data-file. */
async function answerParts(inv: Invocation, ctx: Context): Promise<Part[]> {
  const inline = str(inv, "data");
  const file = str(inv, "data-file");
  if (inline !== undefined && file !== undefined) {
    throw new ObservalError("USAGE", "Give the data once: --data or --data-file, not both");
  }
  const parts: Part[] = [];
  const text = await readMessage(inv, ctx, {
    usage: USAGE,
    piped: "observal delegate reply TASK-ID - < answer.md",
  });
  if (text !== undefined) parts.push({ text });
  if (inline !== undefined) parts.push({ data: dataObject(inline, "--data") });
  if (file !== undefined) parts.push({ data: dataObject(readDataFile(ctx, file), file) });
  if (parts.length === 0) {
    throw new ObservalError("USAGE", "Missing the answer", {
      remediation:
        "Give it as MESSAGE (- for stdin, or --message-file FILE), as data with --data JSON or --data-file FILE, or as both",
    });
  }
  return parts;
}

function readDataFile(ctx: Context, file: string): string {
  const path = resolve(ctx.cwd, file);
  try {
    const size = statSync(path).size;
    if (size > MAX_DATA_FILE_BYTES) {
      throw new ObservalError(
        "USAGE",
        `${file} is ${size} bytes; a data answer may hold at most ${MAX_DATA_FILE_BYTES} (1 MiB)`,
        { remediation: "Send a smaller JSON object" },
      );
    }
    return readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof ObservalError) throw err;
    throw new ObservalError("USAGE", `Cannot read ${file}: ${(err as Error).message}`, {
      resource: path,
      remediation: "Pass the path of a file that holds a JSON object",
    });
  }
}

/** Parses the JSON of a data answer; it must be an object (A2A data parts are objects). */
function dataObject(json: string, source: string): Record<string, unknown> {
  if (json.length > MAX_MESSAGE_CHARS) {
    throw new ObservalError(
      "USAGE",
      `The data in ${source} is ${json.length} characters; at most ${MAX_MESSAGE_CHARS} are accepted`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new ObservalError("USAGE", `${source} is not valid JSON: ${(err as Error).message}`, {
      remediation: `Pass a JSON object, for example --data '{"approved": true}'`,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ObservalError("USAGE", `${source} must hold a JSON object`, {
      remediation: `Wrap the value in an object, for example --data '{"answer": 42}'`,
    });
  }
  return value as Record<string, unknown>;
}

/** `observal delegate reply TASK_ID [MESSAGE]`. */
export const replyCommand: Command = {
  name: "reply",
  summary: "Answer a remote agent that asked for input",
  args: ["task-id", "message?"],
  flags: {
    ...messageFileFlag,
    data: {
      type: "string",
      value: "JSON",
      description: "Answer with a data part: a JSON object (with MESSAGE, both are sent)",
    },
    "data-file": {
      type: "string",
      value: "FILE",
      description: "Answer with a data part read from a file holding a JSON object",
    },
    ...waitFlags(600),
  },
  details: `TASK-ID is the task's id or its first characters (at least 4, enough to name one task).
MESSAGE is the answer's text; as - it is read from stdin
(\`observal delegate reply TASK-ID - < answer.md\`), and --message-file FILE reads it from a
file. It holds at most ${MAX_MESSAGE_CHARS} characters, checked before anything is sent.
Only a remote task that waits for input takes a reply. When several replies race for one
question, exactly one is taken; the others exit with code 11 and send nothing, as does a
reply that a cancel beat.
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input,
6 the task was not waiting for input, 11 another reply or a cancel got there first.
${TASK_JSON_NOTE}`,
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    const parts = await answerParts(inv, ctx);
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal }) =>
        service.reply(inv.args["task-id"], parts, {
          waitSeconds: wait,
          since,
          onTick,
          signal,
        }),
    );
  },
};
