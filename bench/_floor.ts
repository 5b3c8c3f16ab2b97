/**
 * The floor under observal's commands, with no observal code: what every process that
 * reads the task store pays under Deno before it does anything of its own (the runtime's
 * Node layer, zod with one schema parsed, node:sqlite with one query). With an agent's card
 * URL it also starts a second such process that fetches the card, the way `delegate run`
 * starts its worker, and waits for it: the floor of a delegation made by two processes.
 *
 *   deno run -A bench/_floor.ts [CARD_URL]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import { z } from "zod";

const dir = mkdtempSync(join(tmpdir(), "observal-floor-"));
try {
  const db = new DatabaseSync(join(dir, "floor.db"));
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, doc TEXT)");
  db.prepare("INSERT INTO t VALUES (?, ?)").run("a", JSON.stringify({ id: "a", state: "ok" }));
  const row = db.prepare("SELECT doc FROM t WHERE id = ?").get("a") as { doc: string };
  z.object({ id: z.string(), state: z.string() }).parse(JSON.parse(row.doc));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const [url, child] = process.argv.slice(2);
if (url && child) {
  await (await fetch(url)).text();
} else if (url) {
  const { spawnSync } = await import("node:child_process");
  const script = new URL(import.meta.url).pathname;
  const out = spawnSync(process.execPath, ["run", "-A", script, url, "child"], {
    stdio: "inherit",
  });
  if (out.status !== 0) throw new Error(`the second process exited ${out.status}`);
}
