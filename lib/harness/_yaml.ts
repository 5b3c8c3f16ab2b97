/**
 * The yaml package, through its ES module build. Under Deno, `import "yaml"` takes the
 * package's "node" export, its CommonJS build, which Deno loads through its Node layer: 40-55
 * ms against 7-11 ms for the ES module build (same API), and about 20 ms of every start of a
 * worker that runs a local Agent. Its types are the package's own. The npm build maps this
 * path back to `yaml` (scripts/build_npm.ts), so Node resolves the package as it always did.
 * @module
 */
// @ts-types="yaml"
export {
  isMap,
  parse,
  parseDocument,
  stringify,
} from "../../node_modules/yaml/browser/dist/index.js";
