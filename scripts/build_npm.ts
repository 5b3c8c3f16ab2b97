/**
 * Emits the npm package into npm/: one ESM bundle of our code (dependencies stay external
 * and are listed in npm/package.json) and a small bin shim.
 *
 *   deno run -A scripts/build_npm.ts [--bundle-deps]
 */
import * as esbuild from "esbuild";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { VERSION } from "../lib/core/version.ts";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
if (pkg.version !== VERSION) {
  console.error(`package.json version ${pkg.version} differs from lib/core/version.ts ${VERSION}`);
  process.exit(1);
}
const bundleDeps = process.argv.includes("--bundle-deps");
rmSync("npm", { recursive: true, force: true });
mkdirSync("npm/bin", { recursive: true });
await esbuild.build({
  entryPoints: { main: "main.ts" },
  outdir: "npm/dist",
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
  "npm/bin/observal.mjs",
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
cpSync("README.md", "npm/README.md");
writeFileSync(
  "npm/package.json",
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
console.log(`npm/ ready (observal ${pkg.version}${bundleDeps ? ", dependencies bundled" : ""})`);
