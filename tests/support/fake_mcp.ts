/**
 * A stdio MCP server for harness tests, as a Node script: it lists the tools it is given
 * and answers each call with `<tool> answered <arguments> <$MARK>`, so a test sees both
 * that the call arrived and which environment the harness started the server with.
 */

/**
 * The script's source, to write into a `.mjs` file and start with Node.
 *
 * @param name the server's name in its `initialize` answer
 * @param tools the tool names it lists
 * @param markVariable the environment variable whose value ends every answer
 */
export function fakeMcpScript(name: string, tools: string[], markVariable: string): string {
  return `import { createInterface } from "node:readline";
const tools = ${JSON.stringify(tools)}.map((name) => ({
  name,
  description: "Scripted " + name,
  inputSchema: { type: "object", properties: { query: { type: "string" } } },
}));
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  const result = m.method === "initialize"
    ? { protocolVersion: m.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} },
        serverInfo: { name: ${JSON.stringify(name)}, version: "0.0.0" } }
    : m.method === "tools/list" ? { tools }
    : m.method === "tools/call"
    ? { content: [{ type: "text", text: m.params.name + " answered " +
        JSON.stringify(m.params.arguments ?? {}) + " " + process.env[${
    JSON.stringify(markVariable)
  }] }] }
    : m.method === "ping" ? {} : undefined;
  send(result === undefined
    ? { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } }
    : { jsonrpc: "2.0", id: m.id, result });
});
`;
}
