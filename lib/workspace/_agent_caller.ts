/**
 * A caller that is itself a delegated agent, working in its copy. That copy's git folder
 * and config are the agent's to write, while the copy for its own delegation is made by
 * git commands that run outside any sandbox: so git is never pointed at the agent's config
 * (whose filters, unlike a person's, are not theirs to run), and the repository must lie
 * inside the agent's workspace. Private to lib/workspace.
 * @module
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ObservalError } from "../core/mod.ts";
import { isWithin } from "../core/system/mod.ts";
import { seedIndex } from "./_copy.ts";
import type { CallerRepository } from "./_repository.ts";
import { borrowObjects, copyGitFiles } from "./_git_dir.ts";

/**
 * Refuses a repository that is not the agent's copy: a `.git` file, a `core.worktree` or
 * a linked worktree the agent set up would have our git read another repository, one its
 * sandbox may hide.
 *
 * @throws {ObservalError} FAILED_PRECONDITION naming where git was sent
 */
export function assertInsideWorkspace(repo: CallerRepository, root: string): void {
  let common: string;
  try {
    common = realpathSync(repo.commonDir);
  } catch {
    common = repo.commonDir;
  }
  for (const [what, path] of [["its top", repo.top], ["its git folder", common]] as const) {
    if (!isWithin(path, root)) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `The delegating agent's repository has ${what} at ${path}, outside its workspace ${root}`,
        {
          resource: path,
          remediation: "Delegate from the agent's own copy, as it was made for it",
        },
      );
    }
  }
}

/**
 * A git folder of ours that reads the agent's repository as data: its objects (through
 * `objects/info/alternates`), its index and its packed refs, with a config that defines
 * nothing. Git commands on the agent's side run with the variables this returns, so the
 * agent's config, hooks and filter drivers are never read.
 *
 * @param repo the agent's repository (checked with {@linkcode assertInsideWorkspace})
 * @param dir an empty folder of ours (in the new workspace's scratch)
 * @param sha256 whether the repository uses SHA-256 object ids
 * @returns GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE for the agent's side
 */
export function agentRepositoryView(
  repo: CallerRepository,
  dir: string,
  sha256: boolean,
): Record<string, string> {
  borrowObjects(dir, repo.commonDir);
  mkdirSync(join(dir, "refs"), { mode: 0o700 });
  writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(
    join(dir, "config"),
    sha256
      ? "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n"
      : "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
  );
  copyGitFiles(repo.commonDir, dir, ["packed-refs", "shallow"]);
  // With its time, so that git still sees which entries it must look at again.
  seedIndex(join(repo.commonDir, "index"), join(dir, "index"));
  return { GIT_DIR: dir, GIT_WORK_TREE: repo.top, GIT_INDEX_FILE: join(dir, "index") };
}
