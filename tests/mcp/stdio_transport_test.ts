/** StdioTransport frames newline-delimited JSON-RPC and answers every line it cannot use. */
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { MAX_LINE_BYTES, StdioTransport } from "../../lib/mcp/mod.ts";

/** A line the transport wrote: in these tests, always an error response. */
interface Written {
  jsonrpc: string;
  id: string | number | null;
  error: { code: number; message: string };
}

interface Harness {
  transport: StdioTransport;
  stdin: PassThrough;
  /** Messages handed to the server. */
  messages: unknown[];
  /** What the transport reported through onerror. */
  errors: string[];
  /** Lines written to stdout so far, parsed. */
  written(): Written[];
  closed: Promise<void>;
}

async function harness(maxLineBytes?: number, fd?: number): Promise<Harness> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Uint8Array) => (out += new TextDecoder().decode(chunk)));
  const transport = new StdioTransport({ stdin: fd ?? stdin, stdout, maxLineBytes });
  const messages: unknown[] = [];
  const errors: string[] = [];
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = resolve;
  await transport.start();
  return {
    transport,
    stdin,
    messages,
    errors,
    written: () => out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)),
    closed,
  };
}

/** Writes `data` and resolves once the transport has handled it (data events are sync). */
function feed(h: Harness, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => h.stdin.write(data, () => resolve()));
}

/** Lets the stdout PassThrough deliver what the transport wrote. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("StdioTransport hands over messages split across chunks, with CRLF and blank lines", async () => {
  const h = await harness();
  const line = ping(1);
  await feed(h, line.slice(0, 10));
  assert.deepEqual(h.messages, [], "nothing before the newline");
  await feed(h, `${line.slice(10)}\r\n\n  \n${ping(2)}\n${ping(3).slice(0, 5)}`);
  await feed(h, `${ping(3).slice(5)}\n`);
  await settle();
  assert.deepEqual(h.messages.map((m) => (m as { id: number }).id), [1, 2, 3]);
  assert.deepEqual(h.written(), [], "valid lines and blank lines get no error");
  await h.transport.close();
});

Deno.test("StdioTransport answers a line that is not JSON with -32700 and keeps reading", async () => {
  const h = await harness();
  await feed(h, `not json{\n${ping(1)}\n`);
  await feed(h, new Uint8Array([0xff, 0xfe, 0x7b, 0x7d, 0x0a]));
  await settle();
  const [garbage, badUtf8] = h.written();
  assert.equal(garbage.jsonrpc, "2.0");
  assert.equal(garbage.id, null);
  assert.equal(garbage.error.code, -32700);
  assert.match(garbage.error.message, /^Parse error: /);
  assert.equal(badUtf8.error.code, -32700);
  assert.match(badUtf8.error.message, /UTF-8/);
  assert.deepEqual(h.messages, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.match(h.errors[0], /^Line 1 rejected: Parse error/);
  assert.match(h.errors[1], /^Line 3 rejected: /);
  await h.transport.close();
});

Deno.test("StdioTransport answers JSON that is not a JSON-RPC message with -32600", async () => {
  const h = await harness();
  const cases: Array<[string, string | number | null, RegExp]> = [
    ["[]", null, /batches/],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null, /batches/],
    ["42", null, /got a number/],
    ['"x"', null, /got a string/],
    ["null", null, /got null/],
    ["{}", null, /"jsonrpc"/],
    ['{"id":7,"method":"ping"}', 7, /"jsonrpc"/],
    ['{"jsonrpc":"2.0","id":"a"}', "a", /"method"/],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', null, /"id"/],
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, /"id"/],
    ['{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}', 3, /"params"/],
    ['{"jsonrpc":"2.0","method":5}', null, /"method"/],
  ];
  await feed(h, cases.map(([line]) => `${line}\n`).join(""));
  await settle();
  const written = h.written();
  assert.equal(written.length, cases.length, JSON.stringify(written));
  cases.forEach(([line, id, message], i) => {
    assert.equal(written[i].id, id, line);
    assert.equal(written[i].error.code, -32600, line);
    assert.match(written[i].error.message, message, line);
  });
  assert.deepEqual(h.messages, []);
  await h.transport.close();
});

Deno.test("StdioTransport passes responses and notifications on and ignores malformed responses", async () => {
  const h = await harness();
  await feed(
    h,
    [
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}',
      '{"jsonrpc":"2.0","id":3,"result":{},"extra":true}',
      "",
    ].join("\n"),
  );
  await settle();
  assert.equal(h.messages.length, 3);
  assert.deepEqual(h.written(), [], "a malformed response is not answered");
  assert.match(h.errors.join("\n"), /Line 4 ignored/);
  await h.transport.close();
});

Deno.test("StdioTransport refuses a line over the cap as soon as it crosses it and then reads on", async () => {
  const cap = 64;
  const h = await harness(cap);
  const exact = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { p: "" } });
  const fits = exact.replace('"p":""', `"p":"${"x".repeat(cap - exact.length)}"`);
  assert.equal(fits.length, cap);
  await feed(h, `${fits}\n`);
  assert.equal(h.messages.length, 1, "a line of exactly the cap is accepted");

  await feed(h, "y".repeat(cap));
  await settle();
  assert.deepEqual(h.written(), [], "at the cap, still waiting for the newline");
  await feed(h, "y");
  await settle();
  const [tooLong] = h.written();
  assert.equal(tooLong?.id, null);
  assert.equal(tooLong?.error.code, -32600);
  assert.match(tooLong?.error.message, /longer than the 64-byte limit/);
  // The rest of the line, however long, is dropped without another answer.
  for (let i = 0; i < 100; i++) await feed(h, "z".repeat(1000));
  await feed(h, `zzz\n${ping(2)}\n`);
  await settle();
  assert.equal(h.written().length, 1);
  assert.deepEqual(h.messages.map((m) => (m as { id: number }).id), [1, 2]);
  assert.match(h.errors[0], /^Line 2 rejected: /);
  await h.transport.close();
});

Deno.test("StdioTransport states the default cap in MiB", async () => {
  const h = await harness();
  await feed(h, "x".repeat(MAX_LINE_BYTES + 1));
  await settle();
  const [tooLong] = h.written();
  assert.match(tooLong.error.message, /1 MiB \(1048576 bytes\)/);
  await h.transport.close();
});

Deno.test("StdioTransport writes one line per message and closes when stdin ends", async () => {
  const h = await harness();
  await h.transport.send({ jsonrpc: "2.0", id: 1, result: { text: "a\nb" } });
  await settle();
  assert.deepEqual(h.written(), [{ jsonrpc: "2.0", id: 1, result: { text: "a\nb" } }]);
  h.stdin.end();
  await h.closed;
  await assert.rejects(h.transport.send({ jsonrpc: "2.0", id: 2, result: {} }), /closed/);
});

Deno.test("StdioTransport reads a file descriptor through to its end, then closes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-stdio-"));
  const file = join(dir, "input.jsonl");
  // Long enough to take several reads, with lines crossing read boundaries.
  const lines = Array.from({ length: 3000 }, (_, i) => ping(i));
  writeFileSync(file, `${lines.join("\n")}\nnot json\n`);
  const fd = openSync(file, "r");
  try {
    const h = await harness(undefined, fd);
    await h.closed;
    await settle();
    assert.equal(h.messages.length, 3000);
    assert.deepEqual((h.messages.at(-1) as { id: number }).id, 2999);
    assert.equal(h.written()[0]?.error.code, -32700);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A stdout that takes one line per event-loop turn, like a client that reads slowly, and
 * records the most lines it ever held unwritten.
 */
function slowStdout() {
  const seen = { written: 0, mostWaiting: 0 };
  const stdout: Writable = new Writable({
    highWaterMark: 1024,
    write(_chunk: Uint8Array, _encoding, done) {
      seen.mostWaiting = Math.max(seen.mostWaiting, stdout.writableLength);
      setImmediate(() => {
        seen.written++;
        done();
      });
    },
  });
  return { stdout, seen };
}

for (const source of ["file descriptor", "stream"] as const) {
  Deno.test(`StdioTransport reads a ${source} no faster than a slow client takes the answers`, async () => {
    // 640 KiB of bad lines, 10 reads' worth: each line gets an error of about 100 bytes.
    const input = "x".repeat(63).concat("\n").repeat(10 * 1024);
    const dir = mkdtempSync(join(tmpdir(), "observal-stdio-"));
    const file = join(dir, "input.txt");
    writeFileSync(file, input);
    const fd = openSync(file, "r");
    const stdin = new PassThrough();
    const { stdout, seen } = slowStdout();
    const transport = new StdioTransport({ stdin: source === "stream" ? stdin : fd, stdout });
    const { promise: closed, resolve } = Promise.withResolvers<void>();
    transport.onclose = resolve;
    try {
      await transport.start();
      if (source === "stream") {
        for (let at = 0; at < input.length; at += 64 * 1024) {
          stdin.write(input.slice(at, at + 64 * 1024));
        }
        stdin.end();
      }
      await closed;
      await new Promise((r) => stdout.end(r));
      assert.equal(seen.written, 10 * 1024, "every line was answered");
      // One read's answers (1024 lines) may queue up; without waiting, all 10240 would.
      const mostLines = seen.mostWaiting / 100;
      assert.ok(mostLines < 2048, `at most ${Math.round(mostLines)} answers waited at once`);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

Deno.test("StdioTransport reads a reader no faster than a slow writer takes the answers", async () => {
  // Deno's own stdin and stdout are such a reader and writer: the MCP server's defaults.
  const input = "x".repeat(63).concat("\n").repeat(10 * 1024);
  const dir = mkdtempSync(join(tmpdir(), "observal-stdio-"));
  const file = join(dir, "input.txt");
  writeFileSync(file, input);
  const stdin = await Deno.open(file);
  let answered = 0;
  let written = 0;
  let mostWaiting = 0;
  let out = "";
  const stdout = {
    // Takes at most 64 bytes per turn, so every answer (~100 bytes) comes in pieces.
    async write(bytes: Uint8Array): Promise<number> {
      await new Promise((r) => setImmediate(r));
      const n = Math.min(64, bytes.length);
      out += new TextDecoder().decode(bytes.subarray(0, n));
      if (n === bytes.length) written++;
      return n;
    },
  };
  const transport = new StdioTransport({ stdin, stdout });
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  transport.onclose = resolve;
  transport.onerror = () => {
    answered++;
    mostWaiting = Math.max(mostWaiting, answered - written);
  };
  try {
    await transport.start();
    await closed;
    while (written < answered) await new Promise((r) => setTimeout(r, 10));
    assert.equal(answered, 10 * 1024, "every line was answered");
    const lines = out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Written);
    assert.equal(lines.length, 10 * 1024, "each answer arrived whole, one per line");
    assert.ok(lines.every((l) => l.error.code === -32700));
    // One read's answers (1024 lines) may queue up; without waiting, all 10240 would.
    assert.ok(mostWaiting <= 1024, `at most ${mostWaiting} answers waited at once`);
  } finally {
    stdin.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
