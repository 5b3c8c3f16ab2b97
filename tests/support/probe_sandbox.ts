/** Prints what probeSandbox() finds, as JSON: run under the permissions a test gives it. */
import { probeSandbox } from "../../lib/runner/sandbox/mod.ts";

console.log(JSON.stringify(probeSandbox(Deno.args[0], Deno.env.toObject())));
