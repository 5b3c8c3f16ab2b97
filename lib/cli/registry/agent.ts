/** `observal registry agent`: publish, review and render registry Agents. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Context, ObservalError } from "../../core/mod.ts";
import { getHarness, planSnippet } from "../../harness/mod.ts";
import type { InstallResponse } from "../../registry/mod.ts";
import { commandLine } from "../agent/print.ts";
import { type Command, type Group, str } from "../command.ts";
import { printBlock, printJson, say } from "../output.ts";
import { reviewBody, reviewFlags, visibilityBody, visibilityFlags } from "./a2a.ts";
import { withClient } from "./_client.ts";

const publish: Command = {
  name: "publish",
  summary: "Publish an agent file (observal-agent.yaml) for review",
  args: ["file"],
  flags: { ...visibilityFlags, visibility: { ...visibilityFlags.visibility, default: "public" } },
  async run(inv, ctx) {
    const path = resolve(ctx.cwd, inv.args.file);
    let yaml: string;
    try {
      yaml = readFileSync(path, "utf8");
    } catch (err) {
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
    say(ctx, `Published ${doc["obs:nativeRef"]} as ${doc.identifier} (${doc["obs:lifecycle"]}).`);
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

const show: Command = {
  name: "show",
  summary: "Show an agent (by identifier, UUID or namespace/name)",
  args: ["agent"],
  async run(inv, ctx) {
    const detail = await withClient(ctx, (c) => c.agent(inv.args.agent));
    if (inv.json) return printJson(ctx, detail);
    for (
      const key of [
        "qualified_name",
        "identifier",
        "version",
        "status",
        "visibility",
        "supported_harnesses",
        "delegable",
        "digest",
        "description",
      ]
    ) {
      const v = detail[key];
      if (v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) continue;
      say(ctx, `${`${key.replace(/_/g, " ")}:`.padEnd(21)} ${Array.isArray(v) ? v.join(", ") : v}`);
    }
  },
};

const review: Command = {
  name: "review",
  summary: "Approve or reject a published agent version",
  args: ["identifier"],
  flags: reviewFlags,
  async run(inv, ctx) {
    const body = reviewBody(inv, "observal registry agent show");
    const doc = await withClient(ctx, (c) => c.reviewAgent(inv.args.identifier, body));
    if (inv.json) return printJson(ctx, doc);
    say(ctx, `${doc["obs:nativeRef"]} is now ${doc["obs:lifecycle"]}.`);
  },
};

const install: Command = {
  name: "install",
  summary: "Print the configuration an agent installs for a harness (writes nothing)",
  args: ["agent"],
  flags: {
    harness: { type: "string", short: "i", value: "HARNESS", description: "Harness to render for" },
    scope: {
      type: "string",
      value: "project|user",
      description: "Install scope",
      default: "project",
    },
    version: { type: "string", value: "X.Y.Z", description: "Approved version (default latest)" },
  },
  async run(inv, ctx) {
    const harness = str(inv, "harness");
    if (!harness) {
      throw new ObservalError("USAGE", "Missing --harness", {
        remediation: "Pass --harness claude-code (or another harness key)",
      });
    }
    const scope = str(inv, "scope") as "project" | "user";
    if (scope !== "project" && scope !== "user") {
      throw new ObservalError("USAGE", "--scope must be project or user");
    }
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
  commands: [publish, show, review, install],
};
