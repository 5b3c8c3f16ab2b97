/**
 * A stand-in for the worker's program: started with the worker's own runtime flags, it
 * tries each thing it is asked to and prints, as JSON, `ok`, `denied` (the runtime's
 * permission check refused it) or `error: …` (allowed, but failed for another reason).
 * Plain JavaScript, so Deno and Node both run it.
 *
 *   <runtime and flags> _probe.mjs '[{"name": "…", "read": "/path"}, …]'
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { DatabaseSync } from "node:sqlite";

/** @param {unknown} err */
function verdict(err) {
  const e = /** @type {{ name?: string, code?: string, message?: string }} */ (err);
  if (e?.name === "NotCapable" || e?.code === "ERR_ACCESS_DENIED") return "denied";
  return `error: ${e?.code ?? e?.name ?? ""} ${String(e?.message ?? err).slice(0, 200)}`;
}

/** @param {{ name: string, read?: string, write?: string, fetch?: string, run?: string, sqlite?: string }} c */
async function attempt(c) {
  if (c.read) readFileSync(c.read);
  else if (c.write) writeFileSync(c.write, "probe\n");
  else if (c.sqlite) new DatabaseSync(c.sqlite).close();
  else if (c.fetch) {
    await (await fetch(c.fetch, { signal: AbortSignal.timeout(5000) })).arrayBuffer();
  } else if (c.run) {
    const deno = /** @type {any} */ (globalThis).Deno;
    if (deno) {
      // Deno.Command says NotCapable; node:child_process under Deno fails silently.
      await new deno.Command(c.run, { args: ["--version"], stdout: "null", stderr: "null" })
        .output();
    } else {
      const r = spawnSync(c.run, ["--version"], { stdio: "ignore" });
      if (r.error) throw r.error;
    }
  }
}

const checks = JSON.parse(process.argv.at(-1) ?? "[]");
/** @type {Record<string, string>} */
const out = {};
for (const c of checks) {
  try {
    await attempt(c);
    out[c.name] = "ok";
  } catch (err) {
    out[c.name] = verdict(err);
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
