/**
 * Emits the npm package into npm/: our code as ESM (dependencies stay external and are
 * listed in npm/package.json, but for the few in {@linkcode BUNDLED}), a small bin shim,
 * the README, the licences of what is bundled and, when the project has one, its LICENSE.
 * Nothing else goes in.
 *
 * The code is split where it imports on demand: `dist/main.mjs` holds the entry and the
 * command table, and each command's code (with the dependencies only it uses) is a chunk in
 * `dist/chunks/` that Node loads when the command runs, as `deno run` does from source.
 *
 *   deno run -A scripts/build_npm.ts [--bundle-deps] [--out DIR]
 */
import * as esbuild from "esbuild";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { VERSION } from "../lib/core/version.ts";

/** The oldest Node the package runs on: node:sqlite with the API we use appeared in 22.13. */
const MIN_NODE = "22.13.0";

/**
 * Dependencies built into our code instead of installed beside it. zod is some seventy
 * modules that Node resolves and loads one by one, which took about 30 ms of every command;
 * built in, it is part of the chunks that use it. Their licences go in `licenses/`.
 */
const BUNDLED = ["zod"];

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
/**
 * lib/harness/_yaml.ts imports yaml's ES module build by its path, for Deno (why is there);
 * the package imports `yaml` by name, as Node resolves it: an installed dependency or, with
 * --bundle-deps, built in.
 */
const yamlByName: esbuild.Plugin = {
  name: "yaml-by-name",
  setup(build) {
    build.onResolve(
      { filter: /(^|\/)node_modules\/yaml\/browser\/dist\/index\.js$/ },
      ({ kind, importer, resolveDir }) => build.resolve("yaml", { kind, importer, resolveDir }),
    );
  },
};
await esbuild.build({
  entryPoints: { main: "main.ts" },
  outdir: `${out}/dist`,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node22",
  external: bundleDeps
    ? []
    : Object.keys(pkg.dependencies).filter((name) => !BUNDLED.includes(name))
      .flatMap((name) => [name, `${name}/*`]),
  define: { "import.meta.main": "true" }, // the bin shim imports the bundle
  // A dependency bundled from CommonJS (any, with --bundle-deps) requires Node's built-ins.
  banner: { js: readFileSync("scripts/require_banner.js", "utf8") },
  plugins: [yamlByName],
  logLevel: "warning",
});
await esbuild.stop();

const [major, minor] = MIN_NODE.split(".").map(Number);
// The shim is plain JavaScript that old Nodes still parse (no top-level await, no optional
// chaining), and it loads nothing before the version check: the bundle imports node:sqlite,
// which older Nodes lack.
writeFileSync(
  `${out}/bin/observal.mjs`,
  `#!/usr/bin/env node
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < ${major} || (major === ${major} && minor < ${minor})) {
  process.stderr.write(
    "observal needs Node.js ${MIN_NODE} or newer, but this is Node.js " + process.version +
      "; install a newer Node.js, or run a single-file build of observal\\n",
  );
  process.exitCode = 1;
} else {
  // A server that runs for days keeps its memory flat under Node only with a small young
  // generation (measured by bench/soak.ts: 1.5 times its start without, flat with), and
  // Node reads that size only at start: so \`registry serve\` and \`delegate mcp\` replace
  // their process once with it (same pid and stdio; Linux and macOS, where Node can),
  // unless the user chose a size of their own.
  var args = process.argv.slice(2);
  var pair = function (a, b) {
    var i = args.indexOf(a);
    return i >= 0 && args[i + 1] === b;
  };
  var semi = "--max-semi-space-size";
  var chosen = process.execArgv.concat((process.env.NODE_OPTIONS || "").split(" "))
    .some(function (f) { return f.indexOf(semi) === 0; });
  if (
    (pair("registry", "serve") || pair("delegate", "mcp")) && !chosen &&
    typeof process.execve === "function" && process.platform !== "win32"
  ) {
    try {
      process.execve(
        process.execPath,
        [process.execPath, semi + "=1"].concat(process.execArgv, process.argv.slice(1)),
        process.env,
      );
    } catch (_) {
      // Not allowed here (a permission model, a locked-down host): run as started.
    }
  }
  // Compiled code is cached between runs (every worker is a new process).
  import("node:module")
    .then(({ default: mod }) => {
      if (typeof mod.enableCompileCache === "function") mod.enableCompileCache();
      // node:sqlite warns that it is experimental before Node 24.15; only that is dropped.
      const emit = process.emitWarning;
      process.emitWarning = function (warning, ...rest) {
        const text = typeof warning === "string" ? warning : (warning && warning.message) || "";
        if (/SQLite is an experimental feature/.test(text)) return;
        return emit.call(process, warning, ...rest);
      };
      return import("../dist/main.mjs");
    });
}
`,
  { mode: 0o755 },
);
cpSync("README.md", `${out}/README.md`);
const files = ["bin/", "dist/", "licenses/"];
mkdirSync(`${out}/licenses`);
for (const name of bundleDeps ? Object.keys(pkg.dependencies) : BUNDLED) {
  const licence = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => `node_modules/${name}/${f}`)
    .find((path) => existsSync(path));
  if (!licence) {
    console.error(`${name} has no LICENSE file to ship with its bundled code`);
    process.exit(1);
  }
  cpSync(licence, `${out}/licenses/${name.replace("/", "__")}.txt`);
}
for (const name of ["LICENSE", "LICENSE.md", "NOTICE"]) {
  if (existsSync(name)) cpSync(name, `${out}/${name}`);
}
// Identity fields come from the project's package.json as they are; the build does not
// invent a licence or a home for the code.
const identity: Record<string, unknown> = {};
for (const field of ["license", "repository", "homepage", "bugs", "author", "keywords"]) {
  if (pkg[field] !== undefined) identity[field] = pkg[field];
}
const missing = ["license", "repository"].filter((f) => identity[f] === undefined);
if (missing.length) {
  console.error(`package.json has no ${missing.join(" or ")}: the npm package goes without`);
}
writeFileSync(
  `${out}/package.json`,
  JSON.stringify(
    {
      name: "observal",
      version: pkg.version,
      description: pkg.description,
      ...identity,
      type: "module",
      bin: { observal: "bin/observal.mjs" },
      files,
      engines: { node: `>=${MIN_NODE}` },
      dependencies: bundleDeps ? {} : Object.fromEntries(
        Object.entries(pkg.dependencies).filter(([name]) => !BUNDLED.includes(name)),
      ),
    },
    null,
    2,
  ) + "\n",
);
console.log(`${out}/ ready (observal ${pkg.version}${bundleDeps ? ", dependencies bundled" : ""})`);
