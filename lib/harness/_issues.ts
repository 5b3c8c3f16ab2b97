/**
 * Turns zod issues into short sentences that name the field path as the user wrote it,
 * e.g. `mcp_servers[0].args`.
 * @module
 */
import type { z } from "zod";

/** Renders a zod path the way it appears in YAML: `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
};

/**
 * One sentence per issue: `Field "x" must be …` or `Unknown field "y" in z`.
 *
 * @param issue the zod issue
 * @param input the value that was parsed, to tell a missing field from a wrong one
 * @param noun what the root is called in messages ("the agent definition")
 */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown, noun: string): string {
  const where = formatPath(issue.path);
  const field = `Field "${where}"`;
  switch (issue.code) {
    case "unrecognized_keys": {
      const keys = issue.keys.map((k) => `"${where ? `${where}.` : ""}${k}"`).join(", ");
      const plural = issue.keys.length > 1 ? "fields" : "field";
      return `Unknown ${plural} ${keys} in ${noun}`;
    }
    case "invalid_type": {
      const value = valueAt(input, issue.path);
      if (value === undefined) return `${field} is required`;
      if (value === null) return `${field} is empty; give it a value or remove it`;
      if (issue.expected === "string" && typeof value === "number") {
        return `${field} must be a string; quote it, as in "${value}"`;
      }
      return `${field} must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    }
    case "too_small": {
      if (issue.origin === "string") {
        return Number(issue.minimum) <= 1
          ? `${field} must not be empty`
          : `${field} must be at least ${issue.minimum} characters`;
      }
      if (issue.origin === "array") return `${field} must have at least ${issue.minimum} items`;
      return `${field} must be at least ${issue.minimum}`;
    }
    case "too_big": {
      if (issue.origin === "string") return `${field} must be at most ${issue.maximum} characters`;
      if (issue.origin === "array") return `${field} must have at most ${issue.maximum} items`;
      return `${field} must be at most ${issue.maximum}`;
    }
    case "invalid_key":
      return `${field} ${issue.issues[0]?.message ?? issue.message}`;
    default:
      return `${field} ${issue.message}`;
  }
}
