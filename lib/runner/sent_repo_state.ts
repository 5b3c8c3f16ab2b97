/**
 * The caller's repository state kept in its task folder from the start until the brief is
 * sent: captured by the caller's process (which reads the repository), sent by whichever
 * process sends the brief (the caller's, or the worker after a handover).
 * @module
 */
import { z } from "zod";
import {
  join,
  readBytes,
  readText,
  removeFile,
  writeBytes,
  writeText,
} from "../core/system/mod.ts";
import type { WireRepoState } from "../a2a/repo_state.ts";

const META_FILE = "repo-state.json";
const BUNDLE_FILE = "repo-head.bundle";
const CHANGES_FILE = "repo-uncommitted.patch";

const Saved = z.object({
  head: z.string().optional(),
  path: z.string(),
  bundle: z.boolean(),
  changes: z.boolean(),
});

/** Writes `state` into the task folder `dir` (private files). */
export function saveRepoState(dir: string, state: WireRepoState): void {
  if (state.bundle) writeBytes(join(dir, BUNDLE_FILE), state.bundle);
  if (state.changes) writeBytes(join(dir, CHANGES_FILE), state.changes);
  const meta: z.infer<typeof Saved> = {
    path: state.path,
    bundle: state.bundle !== undefined,
    changes: state.changes !== undefined,
  };
  if (state.head) meta.head = state.head;
  // Written last: its presence says the state is whole.
  writeText(join(dir, META_FILE), JSON.stringify(meta));
}

/** The state saved in the task folder `dir`, or undefined when none was. */
export function loadRepoState(dir: string): WireRepoState | undefined {
  let text: string;
  try {
    text = readText(join(dir, META_FILE));
  } catch {
    return undefined;
  }
  const meta = Saved.parse(JSON.parse(text));
  const state: WireRepoState = { path: meta.path };
  if (meta.head) state.head = meta.head;
  if (meta.bundle) state.bundle = readBytes(join(dir, BUNDLE_FILE));
  if (meta.changes) state.changes = readBytes(join(dir, CHANGES_FILE));
  return state;
}

/** Removes the saved state once the brief has been taken (it may be megabytes). */
export function dropRepoState(dir: string): void {
  for (const name of [META_FILE, BUNDLE_FILE, CHANGES_FILE]) removeFile(join(dir, name));
}
