// deno-lint-ignore-file no-unused-vars
// observal: CommonJS dependencies bundled into an ES module ask for Node's built-ins with `require`, which an ES module lacks; this one loads the built-in when called.
const require = (id) => globalThis.process.getBuiltinModule(id);
