/**
 * Validators for the ARD JSON Schema (ai-catalog.schema.json) and the response schemas of
 * the ARD OpenAPI document, with a real JSON Schema validator (ajv, draft 2020-12).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const dir = fileURLToPath(new URL("./ard/", import.meta.url));
const catalog = JSON.parse(readFileSync(`${dir}ai-catalog.schema.json`, "utf8"));
const openapi = parse(readFileSync(`${dir}ard.openapi.yaml`, "utf8"));
const OPENAPI_ID = "https://observal.test/ard.openapi.json";

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string") {
      out[k] = v.startsWith("#/components/schemas/")
        ? v.replace("#/components/schemas/", "#/$defs/")
        : v.replace("./ai-catalog.schema.json", catalog.$id);
    } else if (k === "example") continue;
    else out[k] = rewriteRefs(v);
  }
  return out;
}

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true });
// deno-lint-ignore no-explicit-any
(addFormats as any)(ajv);
ajv.addSchema(catalog);
ajv.addSchema({ $id: OPENAPI_ID, $defs: rewriteRefs(openapi.components.schemas) });

/** Returns validation errors (empty when valid) for a named schema. */
export function validate(
  schema: "manifest" | "catalogEntry" | "SearchResponse" | "ListResponse" | "Error",
  value: unknown,
): string[] {
  const ref = schema === "manifest"
    ? catalog.$id
    : schema === "catalogEntry"
    ? `${catalog.$id}#/$defs/catalogEntry`
    : `${OPENAPI_ID}#/$defs/${schema}`;
  const fn = ajv.getSchema(ref);
  if (!fn) throw new Error(`no schema ${ref}`);
  if (fn(value)) return [];
  return (fn.errors ?? []).map((e: { instancePath: string; message?: string }) =>
    `${e.instancePath || "/"} ${e.message}`
  );
}
