import assert from "node:assert/strict";
import { toToml } from "../../lib/harness/mod.ts";

Deno.test("toToml() writes one table per MCP server with dotted env keys", () => {
  const text = toToml({
    mcp_servers: {
      git: {
        command: "npx",
        args: ["-y", "git-mcp"],
        env: { TOKEN: "t", OBSERVAL_AGENT_ID: "a1" },
      },
      "observal-agents": { command: "observal", args: ["delegate"], env: {} },
    },
  });
  assert.equal(
    text,
    [
      "[mcp_servers.git]",
      'command = "npx"',
      'args = ["-y", "git-mcp"]',
      'env.TOKEN = "t"',
      'env.OBSERVAL_AGENT_ID = "a1"',
      "",
      "[mcp_servers.observal-agents]",
      'command = "observal"',
      'args = ["delegate"]',
      "",
    ].join("\n"),
  );
});

Deno.test("toToml() writes top-level keys before tables and skips null values", () => {
  const text = toToml({
    name: "r",
    model: null,
    enabled: true,
    retries: 3,
    tables: { a: { x: 1 } },
  });
  assert.equal(text, 'name = "r"\nenabled = true\nretries = 3\n\n[tables.a]\nx = 1\n');
});

Deno.test("toToml() escapes strings so they read back unchanged", () => {
  const tricky = 'say "hi"\\ then\nnew line\ttab \u0001 end \u{1F600}';
  const text = toToml({ s: tricky });
  const literal = text.slice("s = ".length).trimEnd();
  assert.ok(!literal.includes("\n"));
  assert.equal(JSON.parse(literal), tricky);
});

Deno.test("toToml() replaces a lone surrogate, which TOML cannot hold", () => {
  const text = toToml({ s: "a\uD800b" });
  assert.equal(text, 's = "a\uFFFDb"\n');
});

Deno.test("toToml() quotes keys that are not bare", () => {
  const text = toToml({ servers: { "my.server": { command: "x" } } });
  assert.equal(text, '[servers."my.server"]\ncommand = "x"\n');
});

Deno.test("toToml() refuses values TOML cannot represent", () => {
  assert.throws(() => toToml({ n: Number.NaN }), TypeError);
});
