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

/** Runs one tool's work and turns any failure into an `isError` result. */
export async function toolResult(
  tool: string,
  stderr: Writer,
  work: () => Promise<string>,
): Promise<CallToolResult> {
  try {
    return textResult(await work());
  } catch (err) {
    if (err instanceof ObservalError) {
      const text = err.remediation
        ? `${sentence(err.message)}\n${sentence(err.remediation)}`
        : sentence(err.message);
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
