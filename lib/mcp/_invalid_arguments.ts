/**
 * One-line refusals for tool arguments that do not fit a tool's input schema, naming each
 * argument and what it must be, so a client (or the model behind it) can fix the call.
 */
import { z } from "zod";

/** What each argument of `input` must be, in words, from its advertised JSON Schema. */
export function argumentExpectations(input: z.ZodObject): Map<string, string> {
  const schema = z.toJSONSchema(input, { io: "input", unrepresentable: "any" });
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return new Map(Object.entries(properties).map(([name, p]) => [name, expectation(p)]));
}

function expectation(p: Record<string, unknown>): string {
  if (Array.isArray(p.enum)) return `one of ${p.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  switch (p.type) {
    case "string": {
      const min = typeof p.minLength === "number" ? p.minLength : 0;
      const max = typeof p.maxLength === "number" ? p.maxLength : undefined;
      if (max !== undefined) return `a string of ${min} to ${max} characters`;
      return min === 1
        ? "a non-empty string"
        : min > 1
        ? `a string of ${min} or more characters`
        : "a string";
    }
    // Ranges are left out: out-of-range whole numbers are clamped, not refused.
    case "integer":
      return "a whole number";
    case "number":
      return "a number";
    case "boolean":
      return "true or false";
    case "array":
      return "an array";
    case "object":
      return "an object";
    default:
      return "a valid value";
  }
}

/** `text` as a JSON string on one line, cut to `max` characters. */
export function quoted(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text);
}

/** A short, single-line description of a value that was given. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      if (value === "") return "an empty string";
      return value.length <= 20 && !/[\p{Cc}"\\]/u.test(value)
        ? `the string "${value}"`
        : `a string of ${value.length} characters`;
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

/**
 * The message for arguments that failed `input`: one line, each failing argument with what
 * it must be and what was given.
 *
 * @param tool the tool's name
 * @param expectations from {@linkcode argumentExpectations} for the tool's input schema
 * @param args the arguments as the client sent them
 * @param issues what the schema found wrong
 * @returns e.g. ``Invalid arguments for find_agents: `limit` must be a whole number, not the string "x"``
 */
export function invalidArgumentsMessage(
  tool: string,
  expectations: ReadonlyMap<string, string>,
  args: Record<string, unknown>,
  issues: readonly z.core.$ZodIssue[],
): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const issue of issues) {
    const name = issue.path.map(String).join(".");
    if (seen.has(name)) continue;
    seen.add(name);
    const expected = issue.path.length === 1 ? expectations.get(name) : undefined;
    const label = `\`${oneLine(name || "arguments")}\``;
    if (expected === undefined) {
      parts.push(`${label}: ${oneLine(issue.message)}`);
    } else if (issue.path.length === 1 && !Object.hasOwn(args, name)) {
      parts.push(`${label} is required and must be ${expected}`);
    } else {
      parts.push(`${label} must be ${expected}, not ${describeValue(args[name])}`);
    }
  }
  return `Invalid arguments for ${tool}: ${parts.join("; ")}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
