/**
 * `/api/v1/admin`: users, API keys, teams and settings, for admins only.
 * @module
 */
import { Hono } from "hono";
import { isoSeconds, ObservalError } from "../core/mod.ts";
import {
  CreateTeamRequestSchema,
  CreateUserRequestSchema,
  SettingRequestSchema,
  TeamMemberRequestSchema,
} from "../registry/schemas.ts";
import { parseBody } from "./_body.ts";
import {
  createTeam,
  createUser,
  findTeam,
  findUser,
  issueKey,
  listTeams,
  listUsers,
  removeMember,
  setMember,
  type Viewer,
} from "./identity.ts";
import { readSettings, SETTINGS, writeSetting } from "./settings.ts";
import type { RegistryState } from "./state.ts";

type Env = { Variables: { viewer: Viewer } };

/** The admin routes; the caller must already be identified as `viewer`. */
export function adminRoutes(state: RegistryState): Hono<Env> {
  const admin = new Hono<Env>();
  admin.use("*", async (c, next) => {
    const viewer = c.get("viewer");
    if (viewer.anonymous) {
      throw new ObservalError("UNAUTHENTICATED", "Sign in as an admin", {
        remediation: "Send an admin API key as `Authorization: Bearer <key>`",
      });
    }
    if (viewer.role !== "admin") {
      throw new ObservalError(
        "PERMISSION_DENIED",
        "Only admins can manage users, teams and settings",
      );
    }
    await next();
  });
  const now = () => isoSeconds(state.clock.now());
  admin.get("/users", (c) => c.json({ items: listUsers(state.db) }));
  admin.post("/users", async (c) => {
    const body = await parseBody(c, CreateUserRequestSchema);
    const user = createUser(state.db, body, now());
    return c.json({ user, apiKey: issueKey(state.db, user.id, now()) }, 201);
  });
  admin.post("/users/:user/keys", (c) => {
    const user = findUser(state.db, c.req.param("user"));
    return c.json({ user, apiKey: issueKey(state.db, user.id, now()) }, 201);
  });
  admin.get("/teams", (c) => c.json({ items: listTeams(state.db) }));
  admin.post("/teams", async (c) => {
    const body = await parseBody(c, CreateTeamRequestSchema);
    return c.json(createTeam(state.db, body, now()), 201);
  });
  admin.put("/teams/:team/members", async (c) => {
    const body = await parseBody(c, TeamMemberRequestSchema);
    const team = findTeam(state.db, c.req.param("team"));
    const user = findUser(state.db, body.user);
    setMember(state.db, team.id, user.id, body.role);
    return c.json({ team: team.handle, user: user.handle, role: body.role });
  });
  admin.delete("/teams/:team/members/:user", (c) => {
    const team = findTeam(state.db, c.req.param("team"));
    const user = findUser(state.db, c.req.param("user"));
    if (!removeMember(state.db, team.id, user.id)) {
      throw new ObservalError("NOT_FOUND", `${user.handle} is not in ${team.handle}`);
    }
    return c.json({ team: team.handle, user: user.handle, removed: true });
  });
  admin.get("/settings", (c) => {
    const values = readSettings(state.db);
    return c.json({
      items: Object.keys(SETTINGS).map((key) => ({
        key,
        value: values[key as keyof typeof values],
        help: SETTINGS[key as keyof typeof SETTINGS].help,
        allowed: SETTINGS[key as keyof typeof SETTINGS].allowed,
      })),
    });
  });
  admin.put("/settings/:key", async (c) => {
    const body = await parseBody(c, SettingRequestSchema);
    const key = c.req.param("key");
    return c.json({ key, value: writeSetting(state.db, key, body.value) });
  });
  return admin;
}
