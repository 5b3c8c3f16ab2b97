/**
 * Load on demand, checked on Deno's own module graph: what each entry point imports
 * statically (and so loads before it does anything) stays within what it needs. Dynamic
 * imports are left out: they load only when their code runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { selfCommand } from "../../lib/core/mod.ts";
import type { LaunchWorker } from "../../lib/delegation/mod.ts";
import { playground } from "../support/delegation.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROOT_URL = new URL(`file://${ROOT}`).href;
// Deno names a dependency's modules by their real path. Where node_modules is a link (a
// checkout sharing another's), they are named here as under node_modules/ all the same, or
// no pattern on node_modules/ would match them.
const MODULES = new URL(`file://${Deno.realPathSync(join(ROOT, "node_modules"))}/`).href;

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ code?: { specifier?: string }; isDynamic?: boolean }>;
}

/** What a `deno` subcommand run in the repository prints, as JSON; it must exit 0. */
async function denoJson(args: string[]): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** A module's path relative to the repository, or undefined for one outside it. */
function repoPath(specifier: string): string | undefined {
  if (specifier.startsWith(MODULES)) return `node_modules/${specifier.slice(MODULES.length)}`;
  return specifier.startsWith(ROOT_URL) ? specifier.slice(ROOT_URL.length) : undefined;
}

/**
 * Paths (relative to the repository) of every module `entry` loads before it runs; with
 * `builtins`, the `node:` built-ins it loads as well; with `dynamic`, also every module it
 * may import later.
 */
async function staticGraph(
  entry: string,
  options: { builtins?: boolean; dynamic?: boolean } = {},
): Promise<Set<string>> {
  const info = await denoJson(["info", "--json", entry]) as {
    roots: string[];
    modules: InfoModule[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [...info.roots];
  while (todo.length) {
    const specifier = todo.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if ((options.dynamic || !dep.isDynamic) && dep.code?.specifier) {
        todo.push(dep.code.specifier);
      }
    }
  }
  return new Set(
    [...seen].flatMap((s) => repoPath(s) ?? (options.builtins && s.startsWith("node:") ? s : [])),
  );
}

/** The loaded modules that match any of `patterns`. */
function loaded(graph: Set<string>, patterns: RegExp[]): string[] {
  return [...graph].filter((path) => patterns.some((p) => p.test(path))).sort();
}

const JOSE_AND_SDK = [/^node_modules\/jose\//, /^node_modules\/@a2a-js\//];
const A2A_CLIENT = [/^lib\/a2a\/client\/(?!remote_errors|remote_rpc_error)/, /^lib\/net\//];
const SERVER = [/^lib\/server\//, /^node_modules\/hono\//, /^node_modules\/@hono\//];
const MCP = [/^lib\/mcp\//, /^node_modules\/@modelcontextprotocol\//];
// `resumable.ts` is facts too: which harnesses resume sessions, no file reads.
const RENDERERS = [
  /^node_modules\/yaml\//,
  /^node_modules\/smol-toml\//,
  /^lib\/harness\/(?!facts\/|registry|keys|scope|config_snippet|install_response_schema|headless|_headless|pi_trust|pi_session|resumable)/,
];

Deno.test("yaml loads through its ES module build, where RENDERERS looks for it: its CommonJS build starts Deno's Node layer", async () => {
  // Dynamic imports included: no command may reach the CommonJS build.
  const yaml = loaded(await staticGraph("main.ts", { dynamic: true }), [/^node_modules\/yaml\//]);
  assert.ok(yaml.includes("node_modules/yaml/browser/dist/index.js"), yaml.join("\n"));
  assert.deepEqual(yaml.filter((path) => !path.startsWith("node_modules/yaml/browser/dist/")), []);
  // What renders harness configs loads it, so RENDERERS' yaml pattern matches a real load.
  const graph = await staticGraph("lib/runner/local_run.ts");
  assert.ok(loaded(graph, RENDERERS).includes("node_modules/yaml/browser/dist/index.js"));
});

Deno.test("observal --version loads only the runtime seams and the version; the CLI after it", async () => {
  const graph = await staticGraph("main.ts", { builtins: true });
  assert.deepEqual([...graph].sort(), [
    "lib/core/host.ts",
    "lib/core/runtime.ts",
    "lib/core/version.ts",
    "main.ts",
  ]);
});

// Under Deno each of these loads part of the runtime's Node layer on first import:
// node:fs ~30 ms, node:process ~19, node:crypto ~25, node:path ~8; `deno eval ''` takes
// 20-35 ms in all. node:sqlite is the one the store and the registry cannot do without.
const HEAVY_BUILTINS = [/^node:(?!sqlite$)/];

Deno.test("the command table and core load no node: built-in", async () => {
  const graph = await staticGraph("lib/cli/mod.ts", { builtins: true });
  assert.deepEqual(loaded(graph, HEAVY_BUILTINS), []);
});

Deno.test("delegate commands, search, the store, the embedded registry and the MCP server load no node: built-in but node:sqlite", async () => {
  for (
    const entry of [
      // What search, `delegate find` and find_agents load to mark what can run here.
      "lib/runner/runnable/mod.ts",
      "lib/cli/delegate/list.ts",
      "lib/cli/delegate/status.ts",
      "lib/cli/delegate/run.ts",
      "lib/cli/delegate/cancel.ts",
      "lib/cli/delegate/worker.ts",
      "lib/delegation/mod.ts",
      "lib/store/mod.ts",
      "lib/cli/registry/search.ts",
      "lib/server/mod.ts",
      "lib/server/open.ts",
      "lib/server/embedded.ts",
      "lib/cli/delegate/mcp.ts",
      "lib/mcp/mod.ts",
    ]
  ) {
    const graph = await staticGraph(entry, { builtins: true });
    assert.deepEqual(loaded(graph, HEAVY_BUILTINS), [], entry);
  }
});

Deno.test("help loads only the command table, core and zod", async () => {
  const graph = await staticGraph("lib/cli/mod.ts");
  const extra = [...graph].filter((path) =>
    !/^lib\/core\/|^node_modules\/zod\/|^harness_registry\.json$/.test(path) &&
    !/^lib\/cli\/(mod|command|parse_flags|output)\.ts$|^lib\/cli\/\w+\/mod\.ts$/.test(path)
  );
  assert.deepEqual(extra, []);
});

Deno.test("the embedded registry loads no agent files, harness renderers or card fetching until a route needs them", async () => {
  const graph = await staticGraph("lib/server/mod.ts");
  assert.deepEqual(
    loaded(graph, [
      /^lib\/server\/(agents|imports)\.ts$/,
      /^lib\/harness\/mod\.ts$/,
      /^node_modules\/yaml\//,
      ...JOSE_AND_SDK,
    ]),
    [],
  );
});

Deno.test("a2a serve loads the served Agent's app, and card signing with jose, only when it serves", async () => {
  const graph = await staticGraph("lib/cli/a2a/serve.ts");
  assert.deepEqual(loaded(graph, [/^lib\/agent_server\//, ...JOSE_AND_SDK, ...SERVER]), []);
  // The app names the signer's type only: an unsigned card loads no signing code.
  const app = await staticGraph("lib/agent_server/app.ts");
  assert.deepEqual(
    loaded(app, [/^lib\/agent_server\/card_signing\.ts$/, /^node_modules\/jose\//]),
    [],
  );
});

Deno.test("an embedded search loads no HTTP app: no hono, no routes, no Request framing", async () => {
  // What the CLI imports to search the embedded registry: the opener and the transport.
  const graph = new Set([
    ...await staticGraph("lib/server/open.ts"),
    ...await staticGraph("lib/server/embedded.ts"),
  ]);
  assert.ok(graph.has("lib/server/answers.ts"));
  assert.deepEqual(
    loaded(graph, [
      /^node_modules\/hono\//,
      /^node_modules\/@hono\//,
      /^lib\/server\/(app|agent_routes|admin_routes|budgets|rate_limiter|shared_rate_limiter|client_address)\.ts$/,
    ]),
    [],
  );
  const cli = await Deno.readTextFile(`${ROOT}lib/cli/open_registry_client.ts`);
  assert.doesNotMatch(
    cli,
    /server\/mod\.ts/,
    "the CLI opens the registry through the narrow doors",
  );
});

Deno.test("the observal-agents MCP server loads none of the MCP SDK's code, and no A2A until a tool runs", async () => {
  const graph = await staticGraph("lib/mcp/mod.ts");
  assert.ok(graph.has("lib/mcp/tool_server.ts"));
  assert.deepEqual(
    loaded(graph, [/^node_modules\/@modelcontextprotocol\//, /^node_modules\/ajv/, /^lib\/a2a\//]),
    [],
  );
});

Deno.test("every command module is left out of the command table's static graph", async () => {
  const graph = await staticGraph("lib/cli/mod.ts");
  assert.deepEqual(
    loaded(graph, [/^lib\/(a2a|store|registry|delegation|runner|server|mcp|harness)\//]),
    [],
  );
});

Deno.test("the task store loads neither jose, the A2A SDK nor the A2A client", async () => {
  const graph = await staticGraph("lib/store/mod.ts");
  assert.deepEqual(loaded(graph, [...JOSE_AND_SDK, ...A2A_CLIENT, ...SERVER]), []);
});

Deno.test("the light A2A door loads no client, jose or SDK; the client's door no jose or SDK", async () => {
  assert.deepEqual(
    loaded(await staticGraph("lib/a2a/mod.ts"), [...JOSE_AND_SDK, ...A2A_CLIENT]),
    [],
  );
  const client = await staticGraph("lib/a2a/client/mod.ts");
  assert.ok(client.has("lib/a2a/client/remote_client.ts"));
  assert.deepEqual(loaded(client, JOSE_AND_SDK), []);
  // Only the signature check loads them, when a card with signatures is first checked.
  assert.ok(loaded(await staticGraph("lib/a2a/signature.ts"), JOSE_AND_SDK).length > 0);
});

Deno.test("delegate list loads the task store and nothing of the registry or the service", async () => {
  const graph = await staticGraph("lib/cli/delegate/list.ts");
  assert.ok(graph.has("lib/store/task_store.ts"));
  // Tasks only: cards, tokens and answer normalisation cost ~30 ms more to load.
  assert.deepEqual(
    [...graph].filter((m) => m.startsWith("lib/a2a/")).sort(),
    ["lib/a2a/task.ts", "lib/a2a/tasks/mod.ts"],
  );
  assert.deepEqual(
    loaded(graph, [
      /^lib\/registry\//,
      /^lib\/delegation\//,
      /^lib\/runner\//,
      ...SERVER,
      ...MCP,
      ...RENDERERS,
    ]),
    [],
  );
});

Deno.test("the worker loads the store and the registry client, its runner only when it runs", async () => {
  const graph = await staticGraph("lib/cli/delegate/worker.ts");
  assert.ok(graph.has("lib/store/task_store.ts"));
  assert.ok(graph.has("lib/registry/client.ts"));
  assert.deepEqual(
    loaded(graph, [
      /^lib\/delegation\//,
      /^lib\/runner\/(local_run|remote_run|reaper)\.ts$/,
      ...A2A_CLIENT,
      ...JOSE_AND_SDK,
      ...SERVER,
      ...MCP,
      ...RENDERERS,
    ]),
    [],
  );
});

Deno.test("lib/registry does not load lib/server, which the CLI hands it as a transport", async () => {
  const graph = await staticGraph("lib/registry/mod.ts");
  assert.deepEqual(loaded(graph, [...SERVER, ...RENDERERS, ...A2A_CLIENT]), []);
});

Deno.test("the registry client reads cards through the card door: no task normalisation, tokens or headless adapters", async () => {
  const graph = await staticGraph("lib/registry/mod.ts");
  assert.deepEqual(
    loaded(graph, [/^lib\/a2a\/(?!cards\/|card\.ts|interfaces\.ts|_card_error\.ts)/]),
    [],
  );
  // The install response's scope is its own module: the harness registry and its JSON
  // (facts about every harness) load only where a harness is looked up.
  assert.deepEqual(
    loaded(graph, [
      /^lib\/harness\/(facts\/|headless|_headless|pi_trust|registry\.ts)/,
      /^harness_registry\.json$/,
    ]),
    [],
  );
});

Deno.test("the harness facts door reads the bundled registry without building its schema", async () => {
  for (const entry of ["lib/harness/facts/mod.ts", "lib/runner/runnable/mod.ts"]) {
    const graph = await staticGraph(entry);
    assert.ok(graph.has("harness_registry.json"), entry);
    assert.deepEqual(loaded(graph, [/^lib\/harness\/registry_schema\.ts$/]), [], entry);
  }
});

Deno.test("the embedded registry reads addresses without loading an HTTP client or resolver", async () => {
  const graph = await staticGraph("lib/server/mod.ts");
  assert.deepEqual(
    loaded(graph, [/^lib\/net\/(mod|node_request|safe_fetch|pin_address|_resolve)/]),
    [],
  );
});

Deno.test("delegate run loads no workspace copying, harness facts or A2A normalisation before it needs them", async () => {
  const graph = await staticGraph("lib/cli/delegate/run.ts");
  assert.ok(graph.has("lib/delegation/service.ts"));
  assert.deepEqual(
    loaded(graph, [
      /^lib\/workspace\/(?!roots\/|remove_workspace|workspace_roots|agents_socket)/,
      /^lib\/harness\/(facts\/|headless|_headless|pi_trust|pi_session)/,
      /^lib\/a2a\/(mod|normalize|tokens|digest|compat\/)/,
      ...A2A_CLIENT,
      ...SERVER,
    ]),
    [],
  );
});

Deno.test("the delegation service's door loads no runner, sandbox, server or MCP", async () => {
  const graph = await staticGraph("lib/delegation/mod.ts");
  assert.deepEqual(
    loaded(graph, [
      /^lib\/runner\/(local_run|remote_run)\.ts$/,
      // The sandbox loads when a registry Agent's task starts, not for every command.
      /^lib\/runner\/(sandbox|sandbox_policy|sandboxed_command|bwrap|seatbelt|task_sandbox)\.ts$/,
      ...A2A_CLIENT,
      ...JOSE_AND_SDK,
      ...SERVER,
      ...MCP,
      ...RENDERERS,
    ]),
    [],
  );
});

Deno.test("registry search asks which harnesses run here without loading the delegation service", async () => {
  const graph = await staticGraph("lib/runner/runnable/mod.ts");
  assert.ok(graph.has("lib/runner/harness_choice.ts"));
  assert.deepEqual(
    loaded(graph, [
      /^lib\/delegation\//,
      /^lib\/runner\/(?!runnable\/|harness_choice)/,
      /^lib\/workspace\//,
      /^lib\/store\//,
      ...SERVER,
      ...RENDERERS,
    ]),
    [],
  );
  const search = await Deno.readTextFile(`${ROOT}lib/cli/registry/search.ts`);
  assert.doesNotMatch(search, /delegation\/mod\.ts/);
});

Deno.test("registry search checks --harness by its keys and loads the harness facts only for registry Agents", async () => {
  const graph = await staticGraph("lib/cli/registry/search.ts");
  assert.ok(graph.has("lib/harness/keys.ts"));
  assert.deepEqual(
    loaded(graph, [
      /^lib\/harness\/(facts\/|registry\.ts|headless|_headless|pi_trust|pi_session)/,
      /^harness_registry\.json$/,
    ]),
    [],
  );
});

/**
 * What `script` prints (as JSON) when run in a fresh Deno whose Node `process` and timers
 * throw on first touch: that is where Deno's Node layer starts (node:fs and node:path go
 * through it), so a script that gets through has not loaded it.
 */
async function withoutNodeLayer(script: string): Promise<unknown> {
  return await denoJson(["eval", "--ext=ts", `${NODE_TRAP}\n${script}`]);
}

/**
 * Makes Node's `process` throw on first touch, before anything else runs, and the global
 * timers too: under Deno they are Node's, loaded on first use.
 */
const NODE_TRAP = `for (const name of ["process", "setTimeout", "setInterval"]) {
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() { throw new Error("Node's " + name + " was touched"); },
  });
}`;

const moduleUrl = (path: string) => JSON.stringify(new URL(path, `file://${ROOT}`).href);

Deno.test("asking which harnesses run here never starts Deno's Node layer at run time", async () => {
  // search, `delegate find` and find_agents ask it for every page of results.
  const dir = await Deno.makeTempDir({ prefix: "observal-path-" });
  try {
    for (const program of ["claude", "pi"]) {
      await Deno.writeTextFile(`${dir}/${program}`, "#!/bin/sh\n", { mode: 0o755 });
    }
    await Deno.mkdir(`${dir}/.pi/agent`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.pi/agent/trust.json`, JSON.stringify({ [dir]: true }));
    const found = await withoutNodeLayer(`
      const { harnessOptions } = await import(${moduleUrl("lib/runner/runnable/mod.ts")});
      const env = { PATH: ${JSON.stringify(`/nonexistent:${dir}`)}, HOME: ${JSON.stringify(dir)} };
      const found = harnessOptions(env, ${JSON.stringify(dir)}).filter((o) => o.binary);
      console.log(JSON.stringify(found.map((o) => [o.key, o.binary])));
    `);
    assert.deepEqual(found, [["claude-code", `${dir}/claude`], ["pi", `${dir}/pi`]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("finding the workspace a caller runs in never starts Deno's Node layer at run time", async () => {
  // Every MCP tool call and delegation asks it, to find a parent task by its folder.
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "observal-home-" }));
  try {
    const root = `${home}/delegations/ws/observal-delegate-abc`;
    await Deno.mkdir(`${root}/repo/src`, { recursive: true });
    await Deno.symlink(`${root}/repo`, `${home}/link`);
    const answers = await withoutNodeLayer(`
      const { workspaceRootOf } = await import(${moduleUrl("lib/workspace/roots/mod.ts")});
      const home = ${JSON.stringify(home)};
      const paths = [home + "/delegations/ws/observal-delegate-abc/repo/src", home + "/link",
        home + "/delegations/ws", home + "/delegations/ws/observal-delegate-abc/../..", "repo"];
      console.log(JSON.stringify(paths.map((p) => workspaceRootOf(p, home) ?? null)));
    `);
    assert.deepEqual(answers, [root, root, null, null, null]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "asking whether a running worker is alive never starts Deno's Node layer on Linux",
  // /proc answers there; other systems ask ps(1) or signal the pid.
  ignore: Deno.build.os !== "linux",
}, async () => {
  // `delegate status` and get_task ask it of every task still running.
  const answers = await withoutNodeLayer(`
    const { pidExists, processCommandLine } = await import(${moduleUrl("lib/process/mod.ts")});
    console.log(JSON.stringify([pidExists(Deno.pid), processCommandLine(Deno.pid)]));
  `);
  assert.deepEqual((answers as unknown[])[0], true);
  assert.match(String((answers as unknown[])[1]), / eval /);
});

Deno.test("a worker calling an agent at an IP address over http never starts Deno's Node layer", async () => {
  // Every delegation to a local or allowed private agent pays for a worker's start.
  const trap = await Deno.makeTempFile({ prefix: "observal-trap-", suffix: ".ts" });
  await Deno.writeTextFile(trap, NODE_TRAP);
  const pg = await playground({ behaviour: "complete" });
  // The worker as observal launches it (same argv, same fence), with the trap loaded first.
  const launch: LaunchWorker = (taskId, dir, perms) => {
    const [exec, run, ...rest] = selfCommand(["delegate", "worker", taskId], perms);
    const log = Deno.openSync(join(dir, "worker.log"), { append: true });
    const child = new Deno.Command(exec, {
      args: [run, `--preload=${trap}`, ...rest],
      cwd: dir,
      env: pg.env as Record<string, string>,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    child.stderr.pipeTo(log.writable).catch(() => {});
    return child.pid;
  };
  const { service, close } = pg.service({ launch });
  try {
    const started = await service.start(pg.identifier, "Hi", {
      caller: { depth: 0, maxDepth: 2, chain: [] },
      waitSeconds: 30,
    });
    const log = await Deno.readTextFile(join(pg.home, "delegations", started.id, "worker.log"));
    assert.equal(started.status.state, "TASK_STATE_COMPLETED", log);
    assert.doesNotMatch(log, / was touched/);
    assert.ok(pg.agent.requests.some((r) => r.rpcMethod), "the agent was called");
  } finally {
    close();
    await pg.close();
    await Deno.remove(trap);
  }
});
