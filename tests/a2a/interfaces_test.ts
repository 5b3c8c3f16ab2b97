import assert from "node:assert/strict";
import {
  callableInterface,
  cardInterfaces,
  normaliseBinding,
  parseAgentCard,
} from "../../lib/a2a/mod.ts";

Deno.test("normaliseBinding() maps spellings to the A2A binding names", () => {
  const table: [string | undefined, string][] = [
    ["jsonrpc", "JSONRPC"],
    ["", "JSONRPC"],
    [undefined, "JSONRPC"],
    ["rest", "HTTP+JSON"],
    ["HTTP", "HTTP+JSON"],
    ["httpjson", "HTTP+JSON"],
    ["http_json", "HTTP+JSON"],
    ["grpc", "GRPC"],
    ["custom_thing", "CUSTOM+THING"],
  ];
  for (const [input, expected] of table) assert.equal(normaliseBinding(input), expected, input);
});

Deno.test("cardInterfaces() lists v1.0, then v0.3 url, then additionalInterfaces", () => {
  const card = parseAgentCard({
    name: "Hybrid",
    protocolVersion: "0.3.0",
    supportedInterfaces: [
      { url: "https://a.example.com/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "https://a.example.com/rpc", protocolBinding: "jsonrpc", protocolVersion: "1.0" },
      {
        url: "https://a.example.com/t",
        transport: "JSONRPC",
        protocolVersion: "1.0",
        tenant: "t1",
      },
    ],
    url: "https://a.example.com/legacy",
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: "https://a.example.com/legacy-rest", transport: "rest" },
      { url: "https://a.example.com/legacy", transport: "JSONRPC" },
    ],
  });
  assert.deepEqual(cardInterfaces(card), [
    { url: "https://a.example.com/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: "https://a.example.com/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    {
      url: "https://a.example.com/t",
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
      tenant: "t1",
    },
    { url: "https://a.example.com/legacy", protocolBinding: "JSONRPC", protocolVersion: "0.3.0" },
    {
      url: "https://a.example.com/legacy-rest",
      protocolBinding: "HTTP+JSON",
      protocolVersion: "0.3.0",
    },
  ]);
  assert.deepEqual(callableInterface(card), {
    url: "https://a.example.com/rpc",
    protocolBinding: "JSONRPC",
    protocolVersion: "1.0",
  });
});

Deno.test("cardInterfaces() keeps only http(s) URLs with a host", () => {
  const card = parseAgentCard({
    name: "Mixed",
    supportedInterfaces: [
      { url: "grpc.example.com:443", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: "file:///etc/passwd", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://127.0.0.1:8080/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ],
  });
  assert.deepEqual(cardInterfaces(card).map((i) => i.url), ["http://127.0.0.1:8080/a2a"]);
});

Deno.test("callableInterface() of a v0.3 card uses its url and a 0.3 protocol version", () => {
  const card = parseAgentCard({ name: "Old", url: "http://localhost:41310/" });
  assert.deepEqual(callableInterface(card), {
    url: "http://localhost:41310/",
    protocolBinding: "JSONRPC",
    protocolVersion: "0.3.0",
  });
  const pinned = parseAgentCard({
    name: "Old",
    url: "https://o.example.com",
    protocolVersion: "0.2.5",
  });
  assert.equal(callableInterface(pinned)?.protocolVersion, "0.2.5");
});

Deno.test("callableInterface() skips a non-JSON-RPC main url for an additional one", () => {
  const card = parseAgentCard({
    name: "Rest first",
    url: "https://r.example.com/rest",
    preferredTransport: "HTTP+JSON",
    additionalInterfaces: [{ url: "https://r.example.com/rpc", transport: "JSONRPC" }],
  });
  assert.equal(callableInterface(card)?.url, "https://r.example.com/rpc");
});

Deno.test("callableInterface() is undefined when the card has no JSON-RPC interface", () => {
  const card = parseAgentCard({
    name: "Rest only",
    supportedInterfaces: [
      { url: "https://r.example.com", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
  });
  assert.equal(callableInterface(card), undefined);
});

Deno.test("cardInterfaces() falls back to the card protocolVersion for a v1.0 interface", () => {
  const card = parseAgentCard({
    name: "No version",
    protocolVersion: "1.0",
    supportedInterfaces: [{ url: "https://n.example.com", protocolBinding: "JSONRPC" }],
  });
  assert.equal(cardInterfaces(card)[0].protocolVersion, "1.0");
});
