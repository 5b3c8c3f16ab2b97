/** `observal registry user|team|settings`: identity and settings administration. */
import { ObservalError } from "../../core/mod.ts";
import type { Command, Group } from "../command.ts";
import { str } from "../command.ts";
import { printJson, printTable, say } from "../output.ts";
import { withClient } from "./_client.ts";

type Row = Record<string, unknown>;

const userGroup: Group = {
  name: "user",
  summary: "Manage registry users and their API keys",
  commands: [
    {
      name: "add",
      summary: "Create a user and print their API key (shown once)",
      args: ["handle"],
      flags: {
        role: {
          type: "string",
          value: "admin|reviewer|user",
          description: "Global role",
          default: "user",
        },
      },
      async run(inv, ctx) {
        const out = await withClient(
          ctx,
          (c) => c.admin("POST", "/users", { handle: inv.args.handle, role: str(inv, "role") }),
        );
        if (inv.json) return printJson(ctx, out);
        const user = out.user as Row;
        say(ctx, `Created ${user.handle} (${user.role}).`);
        say(ctx, `API key (shown once): ${out.apiKey}`);
      },
    },
    {
      name: "key",
      summary: "Issue another API key for a user",
      args: ["handle"],
      async run(inv, ctx) {
        const out = await withClient(
          ctx,
          (c) => c.admin("POST", `/users/${encodeURIComponent(inv.args.handle)}/keys`),
        );
        if (inv.json) return printJson(ctx, out);
        say(ctx, `API key for ${(out.user as Row).handle} (shown once): ${out.apiKey}`);
      },
    },
    {
      name: "list",
      summary: "List users",
      async run(inv, ctx) {
        const out = await withClient(ctx, (c) => c.admin("GET", "/users"));
        if (inv.json) return printJson(ctx, out);
        const items = out.items as Row[];
        printTable(
          ctx,
          ["HANDLE", "ROLE", "ID"],
          items.map((u) => [String(u.handle), String(u.role), String(u.id)]),
        );
      },
    },
  ],
};

const teamGroup: Group = {
  name: "team",
  summary: "Manage teams and their members",
  commands: [
    {
      name: "add",
      summary: "Create a team",
      args: ["handle"],
      flags: { name: { type: "string", value: "NAME", description: "Display name" } },
      async run(inv, ctx) {
        const out = await withClient(
          ctx,
          (c) => c.admin("POST", "/teams", { handle: inv.args.handle, name: str(inv, "name") }),
        );
        if (inv.json) return printJson(ctx, out);
        say(ctx, `Created team ${out.handle} (${out.id}).`);
      },
    },
    {
      name: "list",
      summary: "List teams",
      async run(inv, ctx) {
        const out = await withClient(ctx, (c) => c.admin("GET", "/teams"));
        if (inv.json) return printJson(ctx, out);
        const items = out.items as Row[];
        printTable(
          ctx,
          ["HANDLE", "MEMBERS", "ID"],
          items.map((t) => [String(t.handle), String(t.members), String(t.id)]),
        );
      },
    },
    {
      name: "member",
      summary: "Add a user to a team, or change their team role",
      args: ["team", "user"],
      flags: {
        role: {
          type: "string",
          value: "owner|reviewer|member",
          description: "Role in the team",
          default: "member",
        },
      },
      async run(inv, ctx) {
        const out = await withClient(
          ctx,
          (c) =>
            c.admin("PUT", `/teams/${encodeURIComponent(inv.args.team)}/members`, {
              user: inv.args.user,
              role: str(inv, "role"),
            }),
        );
        if (inv.json) return printJson(ctx, out);
        say(ctx, `${out.user} is now ${out.role} of ${out.team}.`);
      },
    },
    {
      name: "remove-member",
      summary: "Remove a user from a team",
      args: ["team", "user"],
      async run(inv, ctx) {
        const out = await withClient(ctx, (c) =>
          c.admin(
            "DELETE",
            `/teams/${encodeURIComponent(inv.args.team)}/members/${
              encodeURIComponent(inv.args.user)
            }`,
          ));
        if (inv.json) return printJson(ctx, out);
        say(ctx, `Removed ${out.user} from ${out.team}.`);
      },
    },
  ],
};

const settingsList: Command = {
  name: "list",
  summary: "Show every setting with its value",
  async run(inv, ctx) {
    const out = await withClient(ctx, (c) => c.admin("GET", "/settings"));
    if (inv.json) return printJson(ctx, out);
    const items = out.items as Row[];
    printTable(
      ctx,
      ["KEY", "VALUE", "MEANING"],
      items.map((s) => [String(s.key), JSON.stringify(s.value), String(s.help)]),
    );
  },
};

const settingsGroup: Group = {
  name: "settings",
  summary: "Show or change registry settings",
  commands: [
    settingsList,
    {
      name: "get",
      summary: "Print one setting",
      args: ["key"],
      async run(inv, ctx) {
        const out = await withClient(ctx, (c) => c.admin("GET", "/settings"));
        const item = (out.items as Row[]).find((s) => s.key === inv.args.key);
        if (!item) {
          throw new ObservalError("INVALID_ARGUMENT", `Unknown setting "${inv.args.key}"`, {
            remediation: "List settings with `observal registry settings list`",
          });
        }
        if (inv.json) return printJson(ctx, { key: item.key, value: item.value });
        say(ctx, JSON.stringify(item.value));
      },
    },
    {
      name: "set",
      summary: "Change one setting",
      args: ["key", "value"],
      details:
        "Lists are comma-separated, e.g. `settings set discovery.a2a_private_hosts 127.0.0.1,localhost`; booleans are `true` or `false`.",
      async run(inv, ctx) {
        const out = await withClient(
          ctx,
          (c) =>
            c.admin("PUT", `/settings/${encodeURIComponent(inv.args.key)}`, {
              value: inv.args.value,
            }),
        );
        if (inv.json) return printJson(ctx, out);
        say(ctx, `${out.key} = ${JSON.stringify(out.value)}`);
      },
    },
  ],
};

export const adminGroups = [userGroup, teamGroup, settingsGroup];
