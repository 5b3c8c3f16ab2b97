/** `observal registry user|team|settings`: identity and settings administration. */
import { ObservalError } from "../../core/mod.ts";
import type { RegistryClient, Setting } from "../../registry/mod.ts";
import type { Command, Group } from "../command.ts";
import { choice, closest, str } from "../command.ts";
import { printJson, printList, printTable, say } from "../output.ts";
import { withClient } from "./_client.ts";

type Row = Record<string, unknown>;

const USER_ROLES = ["admin", "reviewer", "user"] as const;
const TEAM_ROLES = ["owner", "reviewer", "member"] as const;

/** Drops the keys whose value is undefined, so `--json` shows only what is known. */
function defined(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}

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
          value: USER_ROLES.join("|"),
          description: "Global role",
          default: "user",
        },
      },
      async run(inv, ctx) {
        const role = choice(inv, "role", USER_ROLES);
        const out = await withClient(
          ctx,
          (c) => c.admin("POST", "/users", { handle: inv.args.handle, role }),
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
      details:
        `With --json, prints {"items": [{"id", "handle", "role", "createdAt"}], "total": N}.`,
      async run(inv, ctx) {
        const { items } = await withClient(ctx, (c) => c.users());
        if (inv.json) {
          return printList(
            ctx,
            items.map((u) =>
              defined({ id: u.id, handle: u.handle, role: u.role, createdAt: u.created_at })
            ),
            items.length,
          );
        }
        if (items.length === 0) return say(ctx, "No users yet.");
        printTable(ctx, ["HANDLE", "ROLE", "ID"], items.map((u) => [u.handle, u.role, u.id]));
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
      details:
        `With --json, prints {"items": [{"id", "handle", "name", "members", "createdAt"}], "total": N}.`,
      async run(inv, ctx) {
        const { items } = await withClient(ctx, (c) => c.teams());
        if (inv.json) {
          return printList(
            ctx,
            items.map((t) =>
              defined({
                id: t.id,
                handle: t.handle,
                name: t.name,
                members: t.members,
                createdAt: t.created_at,
              })
            ),
            items.length,
          );
        }
        if (items.length === 0) return say(ctx, "No teams yet.");
        printTable(
          ctx,
          ["HANDLE", "MEMBERS", "ID"],
          items.map((t) => [t.handle, String(t.members ?? ""), t.id]),
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
          value: TEAM_ROLES.join("|"),
          description: "Role in the team",
          default: "member",
        },
      },
      async run(inv, ctx) {
        const role = choice(inv, "role", TEAM_ROLES);
        const out = await withClient(
          ctx,
          (c) =>
            c.admin("PUT", `/teams/${encodeURIComponent(inv.args.team)}/members`, {
              user: inv.args.user,
              role,
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

/**
 * The setting `key` names, from the registry's list: an unknown key is refused with the
 * closest known one and every key, before anything is changed.
 */
async function findSetting(client: RegistryClient, key: string): Promise<Setting> {
  const { items } = await client.settings();
  const found = items.find((s) => s.key === key);
  if (found) return found;
  const keys = items.map((s) => s.key);
  const near = closest(key, keys);
  throw new ObservalError("INVALID_ARGUMENT", `Unknown setting "${key}"`, {
    remediation: `${near ? `Did you mean ${near}? ` : ""}Settings: ${keys.join(", ")}`,
    resource: key,
  });
}

const settingsList: Command = {
  name: "list",
  summary: "Show every setting with its value",
  details:
    `With --json, prints {"items": [{"key", "value", "help", "allowed"}], "total": N}; allowed says
what values a setting accepts.`,
  async run(inv, ctx) {
    const { items } = await withClient(ctx, (c) => c.settings());
    if (inv.json) {
      return printList(
        ctx,
        items.map((s) => defined({ key: s.key, value: s.value, help: s.help, allowed: s.allowed })),
        items.length,
      );
    }
    printTable(
      ctx,
      ["KEY", "VALUE", "MEANING"],
      items.map((s) => [s.key, JSON.stringify(s.value), String(s.help ?? "")]),
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
        const item = await withClient(ctx, (c) => findSetting(c, inv.args.key));
        if (inv.json) return printJson(ctx, { key: item.key, value: item.value });
        say(ctx, JSON.stringify(item.value));
      },
    },
    {
      name: "set",
      summary: "Change one setting",
      args: ["key", "value"],
      details:
        "Lists are comma-separated, e.g. `settings set discovery.a2a_private_hosts 127.0.0.1,localhost`; booleans are `true` or `false`. `settings list --json` says what each setting accepts.",
      async run(inv, ctx) {
        const out = await withClient(ctx, async (c) => {
          const setting = await findSetting(c, inv.args.key);
          return c.admin("PUT", `/settings/${encodeURIComponent(setting.key)}`, {
            value: inv.args.value,
          });
        });
        if (inv.json) return printJson(ctx, out);
        say(ctx, `${out.key} = ${JSON.stringify(out.value)}`);
      },
    },
  ],
};

export const adminGroups = [userGroup, teamGroup, settingsGroup];
