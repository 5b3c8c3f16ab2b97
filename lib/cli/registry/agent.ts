/**
 * `observal registry agent`: publish, list, inspect, review, remove and render registry
 * Agents; the same verbs as `registry a2a` for remote agents.
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type Context, ObservalError } from "../../core/mod.ts";
import { getHarness, HARNESS_KEYS, MAX_AGENT_YAML_BYTES, planSnippet } from "../../harness/mod.ts";
import type { AgentDetail, InstallResponse } from "../../registry/mod.ts";
import { harnessFlag } from "../agent/harness_flag.ts";
import { commandLine } from "../agent/print.ts";
import { choice, type Command, type Group, type Invocation, str } from "../command.ts";
import { printBlock, printJson, say } from "../output.ts";
import {
  confirmRemoval,
  IDENTIFIER_HELP,
  printEntries,
  removeFlags,
  reviewBody,
  reviewFlags,
  stateFilter,
  stateFlag,
  visibilityBody,
  visibilityFlags,
} from "./a2a.ts";
import { printFields, stateWords } from "./entry_item.ts";
import { withClient } from "./_client.ts";

/** What an Agent argument accepts, for help text. */
const AGENT_HELP = `${IDENTIFIER_HELP}
A registry Agent can also be named namespace/name.`;

const publish: Command = {
  name: "publish",
  summary: "Publish an agent file (observal-agent.yaml) for review",
  args: ["file"],
  flags: visibilityFlags,
  async run(inv, ctx) {
    const path = resolve(ctx.cwd, inv.args.file);
    let yaml: string;
    try {
      // Refused here by its size: sent, a large file would only meet the request-body limit.
      const { size } = statSync(path);
      if (size > MAX_AGENT_YAML_BYTES) {
        throw new ObservalError(
          "INVALID_ARGUMENT",
          `${inv.args.file} is ${size} bytes; an agent definition may hold at most ${MAX_AGENT_YAML_BYTES} bytes (${
            MAX_AGENT_YAML_BYTES / 1024
          } KiB)`,
          {
            resource: path,
            remediation: "Move long reference material into skills or shorten the prompt",
          },
        );
      }
      yaml = readFileSync(path, "utf8");
    } catch (err) {
      if (err instanceof ObservalError) throw err;
      throw new ObservalError("INVALID_ARGUMENT", `Cannot read ${path}`, {
        cause: err,
        remediation: "Pass the path of an agent YAML file (see examples/agent/observal-agent.yaml)",
      });
    }
    const doc = await withClient(
      ctx,
      async (c) => c.publishAgent({ yaml, ...(await visibilityBody(c, inv)) }),
    );
    if (inv.json) return printJson(ctx, doc);
    say(
      ctx,
      `Published ${doc["obs:nativeRef"]} as ${doc.identifier} (${
        stateWords(doc["obs:lifecycle"])
      }).`,
    );
    say(ctx, `Digest: ${doc["obs:artifactDigest"]}`);
    say(ctx, "A reviewer approves it with:");
    say(
      ctx,
      `  observal registry agent review ${doc.identifier} --approve --digest ${
        doc["obs:artifactDigest"]
      }`,
    );
  },
};

const list: Command = {
  name: "list",
  summary: "List registry Agents you can see",
  flags: stateFlag,
  details: `Lists your own in any state, the pending ones you may review and the approved ones, by
name (at most 500). --state keeps those in one state. With --json, prints
{"items": [...], "total": N}.`,
  async run(inv, ctx) {
    const narrow = stateFilter(inv);
    const out = await withClient(ctx, (c) => c.agents());
    printEntries(ctx, inv, narrow(out), "No registry Agents published yet.");
  },
};

/**
 * An Agent's detail under `--json`, with the names every other command uses: `state` for
 * the review state, and `identifier` alone as its id (the UUID is its last part).
 */
function agentJson(detail: AgentDetail): Record<string, unknown> {
  const { id: _id, status, versions, ...rest } = detail;
  return {
    ...rest,
    state: status,
    ...(Array.isArray(versions)
      ? {
        versions: versions.map((v: Record<string, unknown>) => {
          const { status: state, ...other } = v;
          return { ...other, state };
        }),
      }
      : {}),
  };
}

async function inspectAgent(inv: Invocation, ctx: Context): Promise<void> {
  const detail = await withClient(ctx, (c) => c.agent(inv.args.identifier));
  if (inv.json) return printJson(ctx, agentJson(detail));
  printFields(ctx, [
    ["Name", detail.qualified_name ?? detail.name],
    ["Identifier", detail.identifier],
    ["Kind", "registry Agent"],
    ["Version", detail.version],
    ["State", stateWords(detail.status)],
    ["Latest approved", detail.latest_approved_version],
    ["Visibility", detail.visibility],
    ["Harnesses", detail.supported_harnesses],
    ["Delegable", detail.delegable === undefined ? undefined : detail.delegable ? "yes" : "no"],
    ["Digest", detail.digest],
    ["Description", detail.description],
  ]);
}

const inspect: Command = {
  name: "inspect",
  summary: "Show an agent, its state and its digest",
  args: ["identifier"],
  details: AGENT_HELP,
  run: inspectAgent,
};

/** The old name of `inspect`, kept for scripts. */
const show: Command = {
  name: "show",
  summary: "Show an agent (same as inspect)",
  args: ["identifier"],
  details: AGENT_HELP,
  hidden: true,
  run: inspectAgent,
};

const review: Command = {
  name: "review",
  summary: "Approve or reject a published agent version",
  args: ["identifier"],
  flags: reviewFlags,
  details: AGENT_HELP,
  async run(inv, ctx) {
    const body = reviewBody(inv, "observal registry agent inspect");
    const doc = await withClient(ctx, async (c) => {
      const entry = await c.resolveEntry(inv.args.identifier, { kind: "agent" });
      return c.reviewAgent(entry.identifier, body);
    });
    if (inv.json) return printJson(ctx, doc);
    say(ctx, `${doc["obs:nativeRef"]} is now ${stateWords(doc["obs:lifecycle"])}.`);
  },
};

const remove: Command = {
  name: "remove",
  summary: "Remove a registry Agent with all its versions",
  args: ["identifier"],
  flags: removeFlags,
  details: `${AGENT_HELP}
Its owner or an admin may remove it; configs already pulled keep working until removed.`,
  async run(inv, ctx) {
    confirmRemoval(inv, "agent");
    const out = await withClient(ctx, async (c) => {
      const entry = await c.resolveEntry(inv.args.identifier, { kind: "agent" });
      return c.removeAgent(entry.identifier);
    });
    if (inv.json) return printJson(ctx, out);
    say(ctx, `Removed ${out.identifier}.`);
  },
};

const install: Command = {
  name: "install",
  summary: "Print the configuration an agent installs for a harness (writes nothing)",
  args: ["agent"],
  details: AGENT_HELP.replace("IDENTIFIER", "AGENT"),
  flags: {
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      choices: HARNESS_KEYS,
      description: `Harness to render for (${HARNESS_KEYS.join(", ")})`,
    },
    scope: {
      type: "string",
      value: "project|user",
      description: "Install scope",
      default: "project",
    },
    version: { type: "string", value: "X.Y.Z", description: "Approved version (default latest)" },
  },
  async run(inv, ctx) {
    const harness = harnessFlag(inv);
    if (!harness) {
      throw new ObservalError("USAGE", "Missing --harness", {
        remediation: `Pass --harness with one of: ${HARNESS_KEYS.join(", ")}`,
      });
    }
    const scope = choice(inv, "scope", ["project", "user"]) ?? "project";
    const out = await withClient(
      ctx,
      (c) =>
        c.installAgent(inv.args.agent, {
          harness,
          options: { scope },
          version: str(inv, "version"),
        }),
    );
    if (inv.json) return printJson(ctx, out);
    printInstall(ctx, inv.args.agent, scope, out);
  },
};

/** The install response for people: each file, what would happen to it, and its content. */
function printInstall(ctx: Context, ref: string, scope: string, response: InstallResponse): void {
  const facts = getHarness(response.harness);
  const plan = planSnippet(response.config_snippet);
  say(
    ctx,
    `${ref} ${response.version} for ${facts.display_name} at ${scope} scope would write ${plan.files.length} file(s). Nothing was written.`,
  );
  for (const file of plan.files) {
    const action = file.merge
      ? "merged into the existing file: same-named entries replaced, everything else kept"
      : "created, or replaces the existing file";
    say(ctx);
    say(ctx, `==> ${file.path} (${action})`);
    printBlock(ctx, file.text);
  }
  if (plan.setupCommands.length) {
    say(ctx);
    say(ctx, "Setup commands (run without a shell in the project directory):");
    for (const command of plan.setupCommands) say(ctx, `  ${commandLine(command)}`);
  }
  if (plan.unwrittenServers.length) {
    say(
      ctx,
      `MCP servers registered by those commands, not written to a file: ${
        plan.unwrittenServers.join(", ")
      }`,
    );
  }
  const warnings = [...response.warnings, ...plan.warnings];
  if (warnings.length) {
    say(ctx);
    say(ctx, "Warnings:");
    for (const w of warnings) say(ctx, `  ! ${w}`);
  }
  say(ctx);
  say(
    ctx,
    `To install: observal agent pull ${ref} --harness ${response.harness}${
      facts.scope_labels ? ` --scope ${scope}` : ""
    }`,
  );
}

export const agentGroup: Group = {
  name: "agent",
  summary: "Publish and review registry Agents",
  commands: [publish, list, inspect, show, review, remove, install],
};
