/**
 * Starting a resident runner, after a `delegate run` that found none: detached, in its own
 * session, with this process's environment and permissions, so it is a caller identical
 * to this one (it checks that itself, and ends if not).
 * @module
 */
import {
  definedEnv,
  fileLocks,
  grantedPermissions,
  hostEnv,
  join,
  makeDir,
  nodeChildProcess,
  nodeFs,
} from "../core/system/mod.ts";
import { selfCommandWhole } from "../core/mod.ts";
import { isPrivateFolder, type ResidentPlace } from "./identity.ts";

/**
 * The most runners of one observal home at once (one per caller environment: a terminal
 * each, as a rule), each 90 to 150 MB while it lives.
 */
const MAX_RUNNERS = 4;

/** How many runners `place`'s home has now: their sockets (under Deno, with their lock held). */
function runnersNow(place: ResidentPlace): number {
  const locks = fileLocks();
  const dir = place.dir;
  try {
    return nodeFs().readdirSync(dir).filter((name) =>
      name.startsWith(`${place.home}-`) && name.endsWith(".sock") &&
      (!locks || locks.held(join(dir, name.replace(/\.sock$/, ".lock"))))
    ).length;
  } catch {
    return 0;
  }
}

/** Starts the runner for `place`; errors are dropped: the next command runs without one. */
export function startResident(place: ResidentPlace): void {
  const argv = selfCommandWhole(["delegate", "resident", place.name], grantedPermissions());
  let log: number | undefined;
  try {
    makeDir(place.dir, 0o700);
    if (!isPrivateFolder(place.dir) || runnersNow(place) >= MAX_RUNNERS) return;
    // What it says goes to its log: why it ended early, if it did.
    log = nodeFs().openSync(place.log, "w", 0o600);
    const child = nodeChildProcess().spawn(argv[0], argv.slice(1), {
      // The root, so that it holds no caller's folder open.
      cwd: "/",
      env: definedEnv(hostEnv()),
      detached: true,
      stdio: ["ignore", log, log],
    });
    child.on("error", () => {/* none this time */});
    child.unref();
  } catch {
    /* none this time */
  } finally {
    if (log !== undefined) nodeFs().closeSync(log);
  }
}
