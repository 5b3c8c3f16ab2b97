/**
 * YAML config files (Goose `config.yaml`): edited as a YAML document, so the user's
 * comments, ordering and other keys survive, and merged by the root-section rule.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { isMap, parse, parseDocument, stringify } from "./_yaml.ts";
import { type Doc, isPlainObject, mergeData, mergeRefused, rootKey } from "./_merge_common.ts";

/** YAML text for a new file; long strings are never folded. */
export function yamlText(content: Doc): string {
  return stringify(content, { lineWidth: 0 });
}

/**
 * Merges `incoming` into the YAML text of an existing file, editing the document in place.
 *
 * @returns the new text, or `existing` itself when the data would not change
 * @throws {ObservalError} FAILED_PRECONDITION when the file is not valid YAML, is not a
 *   mapping, its root section is not a mapping, or the edit would not read back as planned
 */
export function mergeYaml(existing: string, incoming: Doc, file: string): string {
  const doc = parseDocument(existing, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw mergeRefused(file, `it is not valid YAML (${doc.errors[0].message.split("\n")[0]})`);
  }
  let data: unknown;
  try {
    data = doc.toJS() ?? {};
  } catch (err) {
    throw mergeRefused(file, `it cannot be read as data (${(err as Error).message})`);
  }
  if (!isPlainObject(data)) throw mergeRefused(file, "it does not hold a mapping");
  const expected = mergeData(data, incoming, file);
  if (isDeepStrictEqual(expected, data)) return existing;

  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  if (!isMap(doc.contents)) throw mergeRefused(file, "it does not hold a mapping");
  const root = rootKey(incoming);
  for (const [key, value] of Object.entries(incoming)) {
    const section = key === root ? doc.get(key, true) : undefined;
    if (isMap(section)) {
      // Entry by entry, so the other servers keep their place and comments.
      for (const [name, entry] of Object.entries(value as Doc)) {
        section.set(name, doc.createNode(entry));
      }
    } else {
      doc.set(key, doc.createNode(value));
    }
  }
  const text = doc.toString({ lineWidth: 0 });
  let reread: unknown;
  try {
    reread = parse(text, { logLevel: "error" });
  } catch (err) {
    throw mergeRefused(file, `the edited file would not be valid YAML (${(err as Error).message})`);
  }
  if (!isDeepStrictEqual(reread, expected)) {
    throw mergeRefused(file, "the edit would not read back as planned");
  }
  return text;
}
