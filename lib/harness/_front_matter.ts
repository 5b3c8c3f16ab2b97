/**
 * Markdown files with YAML front matter, as agent profiles and SKILL.md files use.
 * @module
 */
import { stringify } from "./_yaml.ts";

/**
 * Joins front matter and a Markdown body. Values go through a real YAML serialiser, so a
 * quote or colon in a description cannot break the header; lines are never folded.
 */
export function withFrontMatter(fields: Record<string, unknown>, body: string): string {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const header = stringify(kept, { lineWidth: 0 });
  return `---\n${header}---\n\n${body.trimEnd()}\n`;
}

/** One line of at most `max` characters (whitespace runs collapsed). */
export function oneLine(text: string, max = 200): string {
  return Array.from(text.replace(/\s+/g, " ").trim()).slice(0, max).join("").trim();
}
