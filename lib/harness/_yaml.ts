/**
 * The yaml package, through its ES module build. Under Deno, `import "yaml"` takes the
 * package's "node" export, its CommonJS build, which Deno loads through its Node layer: 40-55
 * ms against 7-11 ms for the ES module build (same API), and about 20 ms of every start of a
 * worker that runs a local Agent. Its types are the package's own. The npm build maps this
 * path back to `yaml` (scripts/build_npm.ts), so Node resolves the package as it always did.
 *
 * This build prints a warning (a tag yaml does not know, in a user's own file) with
 * `console.warn`, stack trace and all, where Node's printed one line: parse with `logLevel:
 * "error"`, and read a document's `warnings` where they matter.
 * @module
 */
// @ts-types="yaml"
export {
  isMap,
  parse,
  parseDocument,
  stringify,
} from "../../node_modules/yaml/browser/dist/index.js";
