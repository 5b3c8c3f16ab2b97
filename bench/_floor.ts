/**
 * The floor under observal's commands, with no observal code: what every process that
 * reads the task store pays under Deno before it does anything of its own (zod with one
 * schema parsed, node:sqlite with one query; files and arguments through Deno's own API,
 * as observal's hot paths do, so none of the runtime's Node layer). With an agent's card
 * URL it also starts a second such process that fetches the card, the way `delegate run`
 * starts its worker, and waits for it: the floor of a delegation made by two processes.
 * With `child` after the URL it fetches the card itself: the floor of one such process.
 *
 *   deno run -A bench/_floor.ts [CARD_URL [child]]
 */
import { DatabaseSync } from "node:sqlite";
import { z } from "zod";

const dir = Deno.makeTempDirSync({ prefix: "observal-floor-" });
try {
  const db = new DatabaseSync(`${dir}/floor.db`);
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, doc TEXT)");
  db.prepare("INSERT INTO t VALUES (?, ?)").run("a", JSON.stringify({ id: "a", state: "ok" }));
  const row = db.prepare("SELECT doc FROM t WHERE id = ?").get("a") as { doc: string };
  z.object({ id: z.string(), state: z.string() }).parse(JSON.parse(row.doc));
  db.close();
} finally {
  Deno.removeSync(dir, { recursive: true });
}
const [url, child] = Deno.args;
if (url && child) {
  await (await fetch(url)).text();
} else if (url) {
  const script = new URL(import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, url, "child"],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (out.code !== 0) throw new Error(`the second process exited ${out.code}`);
}
