/**
 * Newline-delimited JSON-RPC over a pair of streams, hardened against what a client may send:
 * every line that is not a JSON-RPC message gets an error response instead of being dropped,
 * and a line over the size cap is skipped as it streams in, never held whole in memory.
 *
 * Under Deno the process's own stdin and stdout are read and written through Deno's API:
 * node:fs, node:net and node:process would load part of the runtime's Node layer, which
 * costs every MCP server start more than `deno eval ''` does in all.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { concatBytes } from "../core/bytes.ts";
import { type ByteReader, type ByteWriter, hostStdio, nodeFs } from "../core/system/mod.ts";
import {
  asJsonRpcMessage,
  ErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from "./_json_rpc.ts";

export type { ByteReader, ByteWriter };

/** The longest line {@linkcode StdioTransport} accepts by default: 1 MiB, newline excluded. */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
/** Bytes asked for per read of a file descriptor. */
const READ_BYTES = 64 * 1024;

/** Options for {@linkcode StdioTransport}. */
export interface StdioTransportOptions {
  /**
   * Where messages arrive, one per line: a stream, a file descriptor or a reader, the last
   * two read into one reused buffer. A stream allocates a buffer per chunk, and the runtime
   * collects those late, so a long line read as a stream grows the process by tens of MiB.
   * @default the process's stdin (`Deno.stdin` under Deno, else file descriptor 0)
   */
  stdin?: Readable | number | ByteReader;
  /**
   * Where messages go, one per line, and nothing else.
   * @default the process's stdout (`Deno.stdout` under Deno, else `process.stdout`)
   */
  stdout?: Writable | ByteWriter;
  /** Lines longer than this many bytes are answered with an error and skipped. @default MAX_LINE_BYTES */
  maxLineBytes?: number;
}

/**
 * An MCP {@linkcode Transport} over stdio that answers bad input rather than dropping it.
 *
 * Each line must hold one JSON-RPC 2.0 message. A line that is not JSON is answered with a
 * -32700 error, one that is JSON but not a JSON-RPC request, notification or response with
 * -32600 (carrying the request's id when one can be read), and a line over `maxLineBytes`
 * with -32600 as soon as it crosses the cap; the rest of that line is discarded as it
 * arrives. Blank lines are ignored. Every rejection is also reported through `onerror`.
 * Input is read no faster than `stdout` drains. The transport closes itself when `stdin`
 * ends. Closing it otherwise while a file
 * descriptor is being read leaves that one read pending until input arrives or ends.
 *
 * @example
 * ```ts ignore
 * await server.connect(new StdioTransport());
 * ```
 */
export class StdioTransport implements Transport {
  /** Called with each valid message. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called with each rejected line and stream failure; none of them stops the transport. */
  onerror?: (error: Error) => void;
  /** Called once, when the transport closes. */
  onclose?: () => void;

  readonly #stdin: Readable | number | ByteReader;
  /** The stream being listened to, if input comes from one. */
  #stream?: Readable;
  readonly #stdout: Output;
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  /** The pieces of the line being read; their total is at most `#maxLineBytes`. */
  #pieces: Uint8Array[] = [];
  #size = 0;
  /** Inside a line that went over the cap: drop bytes until its newline. */
  #skipping = false;
  /** Lines seen so far, to point at the rejected one in the log. */
  #lineNumber = 0;
  #started = false;
  #closed = false;

  /** @param options the streams and the line cap */
  constructor(options: StdioTransportOptions = {}) {
    const own = hostStdio();
    this.#stdin = options.stdin ?? own?.stdin ?? 0;
    this.#stdout = output(options.stdout ?? own?.stdout ?? globalThis.process.stdout);
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  /** Starts reading `stdin`. */
  start(): Promise<void> {
    if (this.#started) throw new Error("StdioTransport was already started");
    this.#started = true;
    this.#stdout.listen(this.#onStreamError);
    const stdin = this.#stdin;
    if (typeof stdin === "number") this.#readFd(stdin, new Uint8Array(READ_BYTES));
    else if ("on" in stdin) this.#listen(stdin);
    else void this.#readReader(stdin, new Uint8Array(READ_BYTES));
    return Promise.resolve();
  }

  /** Writes one message as one line; resolves once the stream has taken it. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("StdioTransport is closed"));
    return this.#stdout.write(`${JSON.stringify(message)}\n`);
  }

  /** Stops reading, lets go of `stdin` and calls `onclose`. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#stdout.unlisten(this.#onStreamError);
    const stream = this.#stream;
    if (stream) {
      stream.off("data", this.#onStreamData);
      stream.off("error", this.#onStreamError);
      stream.off("end", this.#onEnd);
      stream.off("close", this.#onEnd);
      // A flowing stream keeps the process alive; pause it unless someone else still reads it.
      if (stream.listenerCount("data") === 0) stream.pause();
    }
    this.#pieces = [];
    this.#size = 0;
    this.onclose?.();
    return Promise.resolve();
  }

  #listen(stream: Readable): void {
    this.#stream = stream;
    stream.on("data", this.#onStreamData);
    stream.on("error", this.#onStreamError);
    stream.on("end", this.#onEnd);
    stream.on("close", this.#onEnd);
  }

  /**
   * Calls `then` once `stdout` can take more. Input is read no faster than the client takes
   * the answers, so a client that sends without reading cannot make answers pile up here.
   */
  #whenWritable(then: () => void): void {
    this.#stdout.whenWritable(then);
  }

  #onStreamData = (chunk: Uint8Array | string): void => {
    this.#onData(chunk);
    const stream = this.#stream;
    if (!stream || this.#closed || !this.#stdout.needsDrain() || stream.isPaused()) return;
    stream.pause();
    this.#whenWritable(() => {
      if (!this.#closed) stream.resume();
    });
  };

  /** Reads `fd` into `buffer` until it ends; one read at a time, so input waits its turn. */
  #readFd(fd: number, buffer: Uint8Array): void {
    if (this.#closed) return;
    nodeFs().read(fd, buffer, 0, buffer.length, null, (err, bytes) => {
      if (this.#closed) return;
      if (err) {
        // Node makes stdin non-blocking as soon as `process.stdin` is touched (importing
        // node:process from ESM does), and a plain read cannot wait on such a descriptor.
        if ((err as { code?: string }).code === "EAGAIN") return this.#readSocket(fd, buffer);
        this.onerror?.(err);
        return void this.close();
      }
      if (bytes === 0) return void this.close();
      this.#onData(buffer.subarray(0, bytes));
      this.#whenWritable(() => this.#readFd(fd, buffer));
    });
  }

  /** Reads `reader` into `buffer` until it ends, each read after the answers so far are out. */
  async #readReader(reader: ByteReader, buffer: Uint8Array): Promise<void> {
    while (!this.#closed) {
      let bytes: number | null;
      try {
        bytes = await reader.read(buffer);
      } catch (err) {
        if (this.#closed) return;
        this.onerror?.(err as Error);
        return void this.close();
      }
      if (this.#closed) return;
      if (bytes === null) return void this.close();
      this.#onData(buffer.subarray(0, bytes));
      await new Promise<void>((resolve) => this.#whenWritable(resolve));
    }
  }

  /** Reads a non-blocking `fd` as a socket that fills `buffer` in place, one chunk at a time. */
  #readSocket(fd: number, buffer: Uint8Array): void {
    const { Socket } = globalThis.process.getBuiltinModule("node:net");
    const socket: Socket = new Socket({
      fd,
      readable: true,
      writable: false,
      onread: {
        buffer,
        callback: (bytes: number) => {
          this.#onData(buffer.subarray(0, bytes));
          if (this.#closed || !this.#stdout.needsDrain()) return true;
          this.#whenWritable(() => {
            if (!this.#closed) socket.resume();
          });
          return false; // pauses the socket until the client catches up
        },
      },
    });
    this.#stream = socket;
    socket.on("error", this.#onStreamError);
    socket.on("end", this.#onEnd);
    socket.on("close", this.#onEnd);
  }

  #onEnd = (): void => void this.close();

  #onStreamError = (err: Error): void => this.onerror?.(err);

  #onData = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
    let from = 0;
    while (from < bytes.length && !this.#closed) {
      const newline = bytes.indexOf(NEWLINE, from);
      const to = newline === -1 ? bytes.length : newline;
      if (!this.#skipping) {
        if (this.#size + (to - from) > this.#maxLineBytes) {
          this.#pieces = [];
          this.#size = 0;
          this.#skipping = true;
          this.#reject(
            null,
            ErrorCode.InvalidRequest,
            `Invalid request: the line is longer than the ${limitText(this.#maxLineBytes)} ` +
              "limit and was discarded; send smaller messages",
          );
        } else if (to > from) {
          // A copy, so a few bytes of a chunk do not keep the whole chunk alive.
          this.#pieces.push(new Uint8Array(bytes.subarray(from, to)));
          this.#size += to - from;
        }
      }
      if (newline === -1) break;
      this.#lineNumber++;
      if (this.#skipping) this.#skipping = false;
      else this.#takeLine();
      from = newline + 1;
    }
  };

  #takeLine(): void {
    const bytes = concatBytes(this.#pieces, this.#size);
    this.#pieces = [];
    this.#size = 0;
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      return this.#reject(null, ErrorCode.ParseError, "Parse error: the line is not valid UTF-8");
    }
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.#reject(null, ErrorCode.ParseError, "Parse error: the line is not valid JSON");
    }
    const message = asJsonRpcMessage(value);
    if (message) {
      this.onmessage?.(message);
      return;
    }
    if (isObject(value) && !("method" in value) && ("result" in value || "error" in value)) {
      // Answering a malformed response could start an endless exchange of errors.
      this.onerror?.(new Error(`Line ${this.#lineNumber} ignored: a malformed JSON-RPC response`));
      return;
    }
    this.#reject(readId(value), ErrorCode.InvalidRequest, invalidRequestMessage(value));
  }

  #reject(id: RequestId | null, code: number, message: string): void {
    // A line over the cap is reported when it crosses the cap, before its newline is counted.
    const line = this.#lineNumber + (this.#skipping ? 1 : 0);
    this.onerror?.(new Error(`Line ${line} rejected: ${message}`));
    // The id is null when it cannot be read, as JSON-RPC 2.0 asks; the SDK's type omits that.
    const response = { jsonrpc: "2.0", id, error: { code, message } } as JSONRPCErrorResponse;
    this.send(response).catch((err) => this.onerror?.(err));
  }
}

/** Where answers go, whichever kind of output it is. */
interface Output {
  /** Resolves once the output has taken all of `text`. */
  write(text: string): Promise<void>;
  /** Whether answers are waiting for the client to read them. */
  needsDrain(): boolean;
  /** Calls `then` once no answers wait (at once if none do). */
  whenWritable(then: () => void): void;
  listen(onError: (err: Error) => void): void;
  unlisten(onError: (err: Error) => void): void;
}

function output(out: Writable | ByteWriter): Output {
  if ("on" in out) {
    const stream = out as Writable;
    return {
      write: (text) =>
        new Promise((resolve, reject) => {
          stream.write(text, (err) => (err ? reject(err) : resolve()));
        }),
      needsDrain: () => stream.writableNeedDrain,
      whenWritable: (then) => {
        if (stream.writableNeedDrain) stream.once("drain", then);
        else then();
      },
      listen: (onError) => void stream.on("error", onError),
      unlisten: (onError) => void stream.off("error", onError),
    };
  }
  // Writes go out one after another; `waiting` counts those not yet taken in full.
  const encoder = new TextEncoder();
  let queue = Promise.resolve();
  let waiting = 0;
  const writeAll = async (bytes: Uint8Array) => {
    while (bytes.length > 0) bytes = bytes.subarray(await out.write(bytes));
  };
  return {
    write(text) {
      waiting++;
      const done = queue.then(() => writeAll(encoder.encode(text)));
      queue = done.then(() => void waiting--, () => void waiting--);
      return done;
    },
    needsDrain: () => waiting > 0,
    whenWritable: (then) => {
      if (waiting === 0) then();
      else void queue.then(then);
    },
    listen: () => {},
    unlisten: () => {},
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request's id when it has a usable one, so the client can match the error. */
function readId(value: unknown): RequestId | null {
  if (!isObject(value)) return null;
  const id = value.id;
  if (typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))) return id;
  return null;
}

function invalidRequestMessage(value: unknown): string {
  if (Array.isArray(value)) {
    return "Invalid request: batches are not supported; send one JSON-RPC object per line";
  }
  if (!isObject(value)) {
    const kind = value === null ? "null" : `a ${typeof value}`;
    return `Invalid request: expected a JSON-RPC 2.0 object, got ${kind}`;
  }
  if (value.jsonrpc !== "2.0") return 'Invalid request: "jsonrpc" must be "2.0"';
  if (typeof value.method !== "string") return 'Invalid request: "method" must be a string';
  if ("id" in value && readId(value) === null) {
    return 'Invalid request: "id" must be a string or an integer';
  }
  if ("params" in value && !isObject(value.params)) {
    return 'Invalid request: "params" must be an object';
  }
  return "Invalid request: not a JSON-RPC 2.0 request, notification or response";
}

function limitText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB (${bytes} bytes)` : `${bytes}-byte`;
}
