/**
 * Tool outcomes as MCP results. A refusal is something the model can act on, so it becomes
 * an `isError` result carrying our message and next step; anything unexpected becomes a
 * short generic result while the details go to the server's stderr, never to stdout (which
 * carries the protocol).
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ObservalError, type Writer } from "../core/mod.ts";

/** A successful text result. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

function sentence(text: string): string {
  const t = text.trim();
  return /[.!?:]$/.test(t) ? t : `${t}.`;
}

/** The tool a model calls instead of each CLI command a remediation may name. */
const TOOL_FOR_COMMAND: Array<[RegExp, string]> = [
  [/observal delegate find\b/, "Call find_agents to choose an approved agent"],
  [/observal delegate (status|list)\b/, "Call get_task with the task_id from delegate"],
  [/observal delegate reply\b/, "Call delegate with the task_id and your answer"],
  [/observal delegate cancel\b/, "Call cancel_task with the task_id"],
  [/observal delegate run\b/, "Call delegate with an agent from find_agents"],
];

/**
 * The next step for a model: a refusal's remediation when it names no command, else the
 * tool that does the same; a step only a person can take (approving an agent, installing
 * a harness) becomes "choose another agent or do it yourself".
 */
function nextStep(err: ObservalError): string | undefined {
  const remediation = err.remediation;
  if (!remediation || !/`?observal\s/.test(remediation)) return remediation;
  for (const [pattern, step] of TOOL_FOR_COMMAND) {
    if (pattern.test(remediation)) return step;
  }
  return "Call find_agents to choose another agent, or do this part of the task yourself";
}

/**
 * Runs one tool's work and turns any failure into an `isError` result. Once `signal` has
 * aborted (the client cancelled the call or went away) a failure is that cancellation:
 * nothing is logged, and the result is never sent.
 */
export async function toolResult(
  tool: string,
  stderr: Writer,
  signal: AbortSignal,
  work: () => Promise<string>,
): Promise<CallToolResult> {
  try {
    return textResult(await work());
  } catch (err) {
    if (signal.aborted) return { ...textResult(`${tool} was cancelled.`), isError: true };
    if (err instanceof ObservalError) {
      const next = nextStep(err);
      const text = next ? `${sentence(err.message)}\n${sentence(next)}` : sentence(err.message);
      return { ...textResult(text), isError: true };
    }
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    stderr.write(`observal-agents: ${tool} failed: ${detail}\n`);
    const kind = err instanceof Error ? err.name : typeof err;
    return {
      ...textResult(`${tool} failed (${kind}). The details are in the observal-agents log.`),
      isError: true,
    };
  }
}
