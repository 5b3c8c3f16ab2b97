/**
 * `observal delegate mcp` fed raw bytes on stdin, as a broken or hostile client would send
 * them: every bad line gets a JSON-RPC error on stdout, nothing else appears there, and the
 * server keeps answering.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MAIN } from "../support/process.ts";

/** How long any one response may take before the test gives up on it. */
const RESPONSE_DEADLINE_MS = 15_000;
const MIB = 1024 * 1024;

// deno-lint-ignore no-explicit-any
type Message = Record<string, any>;

interface RawServer {
  pid: number;
  /** Writes raw bytes (or text) to the server's stdin. */
  write(data: string | Uint8Array): Promise<void>;
  /** Writes one message or raw line, newline added. */
  send(line: string | Message): Promise<void>;
  /** The next line on stdout, parsed; fails after the deadline or at the end of stdout. */
  next(): Promise<Message>;
  /** Sends a request and returns the next line, which must be its response. */
  request(id: number, method: string, params?: Message): Promise<Message>;
  /** Closes stdin; resolves with the lines left on stdout, the exit code and stderr. */
  finish(): Promise<{ rest: Message[]; code: number; stderr: string }>;
  kill(): void;
}

function lineStream(): TransformStream<string, string> {
  let buffered = "";
  return new TransformStream({
    transform(text, out) {
      buffered += text;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) out.enqueue(line);
    },
    flush(out) {
      if (buffered) out.enqueue(buffered);
    },
  });
}

/** Spawns `command` with piped stdio, to be driven line by line. */
function spawnRaw(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string },
): RawServer {
  const child = new Deno.Command(command, {
    args,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...options.env },
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(lineStream())
    .getReader();
  const stderr = new Response(child.stderr).text();
  const encoder = new TextEncoder();
  let stdinOpen = true;

  const readLine = async (): Promise<string | undefined> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no line on stdout within ${RESPONSE_DEADLINE_MS} ms`)),
        RESPONSE_DEADLINE_MS,
      );
    });
    try {
      const { value, done } = await Promise.race([lines.read(), deadline]);
      return done ? undefined : value;
    } finally {
      clearTimeout(timer);
    }
  };
  const server: RawServer = {
    pid: child.pid,
    write: (data) => writer.write(typeof data === "string" ? encoder.encode(data) : data),
    send: (line) => server.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`),
    async next() {
      const line = await readLine();
      assert.ok(line !== undefined, "stdout ended while a response was expected");
      return JSON.parse(line);
    },
    async request(id, method, params) {
      await server.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      const response = await server.next();
      assert.equal(response.id, id, `the response to ${method}: ${JSON.stringify(response)}`);
      return response;
    },
    async finish() {
      if (stdinOpen) {
        stdinOpen = false;
        await writer.close();
      }
      const rest: Message[] = [];
      for (let line = await readLine(); line !== undefined; line = await readLine()) {
        rest.push(JSON.parse(line));
      }
      const { code } = await child.status;
      return { rest, code, stderr: await stderr };
    },
    kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    },
  };
  return server;
}

/** Opens the MCP session as a client would; checks who answered. */
async function initialize(server: RawServer, name: string): Promise<void> {
  const init = await server.request(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw-test", version: "0.0.0" },
  });
  assert.equal(init.result?.serverInfo?.name, name, JSON.stringify(init));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

/** Runs `body` against a fresh server, then checks it left stdout clean and exited 0. */
async function withServer(body: (s: RawServer) => Promise<void>): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), "observal-mcp-raw-"));
  const s = spawnRaw(Deno.execPath(), ["run", "-A", MAIN, "delegate", "mcp"], {
    env: { OBSERVAL_HOME: home, HOME: home },
    cwd: home,
  });
  try {
    await initialize(s, "observal-agents");
    await body(s);
    const { rest, code, stderr } = await s.finish();
    assert.deepEqual(rest, [], "no unexpected lines on stdout");
    assert.equal(code, 0, stderr);
    assert.match(stderr, /client disconnected; stopped/);
    return stderr;
  } catch (err) {
    s.kill();
    await s.finish().catch(() => {});
    throw err;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function assertToolsListed(s: RawServer, id: number): Promise<void> {
  const listed = await s.request(id, "tools/list");
  assert.equal(listed.result?.tools?.length, 4, JSON.stringify(listed));
}

function assertError(response: Message, code: number, id: string | number | null): void {
  assert.equal(response.jsonrpc, "2.0", JSON.stringify(response));
  assert.equal(response.id, id, JSON.stringify(response));
  assert.equal(response.error?.code, code, JSON.stringify(response));
  assert.equal(typeof response.error?.message, "string");
}

/** Peak resident memory of a process, in bytes (Linux). */
function peakRss(pid: number): number {
  const kb = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmHWM:\s+(\d+) kB$/m)?.[1];
  assert.ok(kb, "VmHWM in /proc/<pid>/status");
  return Number(kb) * 1024;
}

Deno.test("observal delegate mcp answers an unparseable line with -32700 and keeps serving", async () => {
  const stderr = await withServer(async (s) => {
    await s.send("this is not json {");
    const garbage = await s.next();
    assertError(garbage, -32700, null);
    assert.match(garbage.error.message, /^Parse error/);
    await assertToolsListed(s, 1);
  });
  assert.match(stderr, /rejected: Parse error/, "the rejection is logged on stderr");
});

Deno.test("observal delegate mcp answers JSON that is not a JSON-RPC request with -32600", async () => {
  await withServer(async (s) => {
    for (const line of ["[]", "42", '"x"', "{}", "null", '{"jsonrpc":"2.0"}']) {
      await s.send(line);
      const response = await s.next();
      assertError(response, -32600, null);
      assert.match(response.error.message, /^Invalid request: /, line);
    }
    await s.send('{"id":9,"method":"tools/list"}');
    assertError(await s.next(), -32600, 9);
    await s.send('{"jsonrpc":"2.0","id":"r1"}');
    assertError(await s.next(), -32600, "r1");
    await assertToolsListed(s, 2);
  });
});

Deno.test("observal delegate mcp refuses a line over 1 MiB as soon as it crosses the cap", async () => {
  await withServer(async (s) => {
    // 2 MiB of a request's body, with no newline yet: the error must not wait for the end.
    await s.write(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"pad":"`);
    await s.write("x".repeat(2 * MIB));
    const tooLong = await s.next();
    assertError(tooLong, -32600, null);
    assert.match(tooLong.error.message, /1 MiB/);
    await s.write('"}}\n');
    await assertToolsListed(s, 6);
  });
});

/**
 * Sends a 50 MiB line in 1 MiB writes, then checks the server refused it, still answers
 * `ping`, and that its peak memory barely moved.
 */
async function assertLongLineNotHeld(s: RawServer): Promise<void> {
  assert.deepEqual(await s.request(1, "ping"), { jsonrpc: "2.0", id: 1, result: {} });
  const before = peakRss(s.pid);
  const chunk = new TextEncoder().encode("y".repeat(MIB));
  for (let i = 0; i < 50; i++) await s.write(chunk);
  await s.write("\n");
  assertError(await s.next(), -32600, null);
  assert.deepEqual(await s.request(2, "ping"), { jsonrpc: "2.0", id: 2, result: {} });
  const growth = peakRss(s.pid) - before;
  console.log(`peak RSS ${(before / MIB).toFixed(0)} MiB, +${(growth / MIB).toFixed(1)} MiB`);
  assert.ok(growth < 16 * MIB, `peak RSS grew by ${(growth / MIB).toFixed(1)} MiB for 50 MiB`);
}

Deno.test("observal delegate mcp reads a 50 MB line without holding it in memory", async () => {
  await withServer(assertLongLineNotHeld);
});

Deno.test("serveStdio() under Node reads a 50 MB line on a non-blocking stdin without holding it", async () => {
  // Node sets stdin non-blocking once node:process is imported (serve_stdio.ts does), so
  // the transport must wait for input another way than under Deno.
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const serveStdioUrl = new URL("../../lib/mcp/serve_stdio.ts", import.meta.url).href;
  const toolServerUrl = new URL("../../lib/mcp/tool_server.ts", import.meta.url).href;
  const script = [
    `import { serveStdio } from ${JSON.stringify(serveStdioUrl)};`,
    `import { ToolServer } from ${JSON.stringify(toolServerUrl)};`,
    'const server = new ToolServer({ name: "node-probe", version: "0.0.0" }, { tools: [] });',
    "await serveStdio(server);",
    'process.stderr.write("stopped\\n");',
  ].join("\n");
  const node = join(root, "node_modules", ".bin", "node");
  const s = spawnRaw(node, ["--input-type=module", "-e", script], { env: {}, cwd: root });
  try {
    await initialize(s, "node-probe");
    await assertLongLineNotHeld(s);
    const { rest, code, stderr } = await s.finish();
    assert.deepEqual(rest, []);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /stopped/, "serveStdio returned when stdin ended");
  } catch (err) {
    s.kill();
    await s.finish().catch(() => {});
    throw err;
  }
});

Deno.test("observal delegate mcp answers wrong tool arguments with -32602 and a one-line message", async () => {
  await withServer(async (s) => {
    const call = (id: number, name: string, args: unknown) =>
      s.request(id, "tools/call", { name, arguments: args });
    const cases: Array<[string, unknown, RegExp]> = [
      [
        "find_agents",
        { task: "x", limit: "x" },
        /`limit` must be a whole number, not the string "x"/,
      ],
      ["find_agents", { task: 5 }, /`task` must be a string of 1 to 2000 characters, not 5/],
      ["find_agents", {}, /`task` is required and must be a string/],
      [
        "get_task",
        { task_id: "t", wait_seconds: 1.5 },
        /`wait_seconds` must be a whole number, not 1\.5/,
      ],
      ["delegate", { agent: "a" }, /`message` is required and must be a string/],
      ["cancel_task", [], /`arguments` must be an object of named arguments, not an array/],
      ["no_such_tool", {}, /Unknown tool "no_such_tool"; the tools are cancel_task, delegate/],
    ];
    let id = 10;
    for (const [tool, args, message] of cases) {
      const response = await call(id, tool, args);
      assertError(response, -32602, id++);
      assert.match(response.error.message, message);
      assert.doesNotMatch(response.error.message, /\n/, "one line");
      if (tool !== "no_such_tool") {
        assert.ok(response.error.message.startsWith(`Invalid arguments for ${tool}: `));
      }
    }
    const longName = await call(id, "x".repeat(100_000), {});
    assertError(longName, -32602, id++);
    assert.ok(longName.error.message.length < 300, "the unknown name is cut short");
    const noMethod = await s.request(id, "tools/no_such_method\nsecond line");
    assertError(noMethod, -32601, id++);
    assert.equal(noMethod.error.message, 'Method not found: "tools/no_such_method\\nsecond line"');
    // Valid arguments still reach the tool: an empty registry is a result, not an error.
    const ok = await call(id, "find_agents", { task: "translate the docs", limit: 3 });
    assert.equal(ok.result?.isError, undefined, JSON.stringify(ok));
    assert.match(ok.result?.content?.[0]?.text, /No approved agent/);
  });
});

Deno.test("observal delegate mcp does not answer notifications", async () => {
  await withServer(async (s) => {
    await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await s.send({ jsonrpc: "2.0", method: "notifications/no_such_thing", params: { a: 1 } });
    await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } });
    await s.send({ jsonrpc: "2.0", method: "tools/list" });
    // The next line answers the request sent after them; finish() checks nothing else follows.
    await assertToolsListed(s, 1);
    assert.deepEqual(await s.request(2, "ping"), { jsonrpc: "2.0", id: 2, result: {} });
  });
});
