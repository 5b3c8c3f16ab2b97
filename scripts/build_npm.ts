/**
 * Emits the npm package into npm/: one ESM bundle of our code (dependencies stay external
 * and are listed in npm/package.json) and a small bin shim.
 *
 *   deno run -A scripts/build_npm.ts [--bundle-deps] [--out DIR]
 */
import * as esbuild from "esbuild";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { VERSION } from "../lib/core/version.ts";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
if (pkg.version !== VERSION) {
  console.error(`package.json version ${pkg.version} differs from lib/core/version.ts ${VERSION}`);
  process.exit(1);
}
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { "bundle-deps": { type: "boolean" }, out: { type: "string", default: "npm" } },
});
const bundleDeps = Boolean(values["bundle-deps"]);
const out = values.out!;
rmSync(out, { recursive: true, force: true });
mkdirSync(`${out}/bin`, { recursive: true });
await esbuild.build({
  entryPoints: { main: "main.ts" },
  outdir: `${out}/dist`,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  packages: bundleDeps ? "bundle" : "external",
  define: { "import.meta.main": "true" }, // the bin shim imports the bundle
  logLevel: "warning",
});
await esbuild.stop();
// node:sqlite warns as experimental on Node < 24.15; the shim filters only that warning.
writeFileSync(
  `${out}/bin/observal.mjs`,
  `#!/usr/bin/env node
const emit = process.emitWarning;
process.emitWarning = function (w, ...rest) {
  const msg = typeof w === "string" ? w : w?.message ?? "";
  if (/SQLite is an experimental feature/.test(msg)) return;
  return emit.call(process, w, ...rest);
};
await import("../dist/main.mjs");
`,
  { mode: 0o755 },
);
cpSync("README.md", `${out}/README.md`);
writeFileSync(
  `${out}/package.json`,
  JSON.stringify(
    {
      name: "observal",
      version: pkg.version,
      description: pkg.description,
      type: "module",
      bin: { observal: "bin/observal.mjs" },
      files: ["bin", "dist"],
      engines: { node: ">=22.13" },
      dependencies: bundleDeps ? {} : pkg.dependencies,
    },
    null,
    2,
  ) + "\n",
);
console.log(`${out}/ ready (observal ${pkg.version}${bundleDeps ? ", dependencies bundled" : ""})`);
