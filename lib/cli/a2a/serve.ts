/** `observal a2a serve`: approved registry Agents as A2A agents. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  homeFaultError,
  ObservalError,
  probeHome,
  SANDBOX_MODES,
  serverTarget,
} from "../../core/mod.ts";
import { resolveWithOverrides } from "../../net/mod.ts";
import { choice, type Command, int, str } from "../command.ts";
import { headlessHarnessFlag, headlessHarnessKeys } from "../agent/harness_flag.ts";
import { openService } from "../delegate/_service.ts";
import { isLoopback, listen } from "../listen.ts";
import { note, say } from "../output.ts";
import {
  agentRefs,
  emptyFolder,
  gitTop,
  readToken,
  repoFolder,
  RESOLVE_VARIABLE,
  servableEntries,
  stateFolder,
  webhookPrivateHosts,
} from "./_serve_inputs.ts";

/** How long a remote registry's word that a key is valid is kept, in ms. */
const KEY_CACHE_MS = 30_000;
/** How long the registry may take to say whose a key is, in ms. */
const KEY_CHECK_MS = 10_000;

export const serveCommand: Command = {
  name: "serve",
  summary: "Serve approved registry Agents over A2A (v1.0 and v0.3 JSON-RPC)",
  flags: {
    agent: {
      type: "string",
      value: "AGENT",
      description:
        "A registry Agent to serve (identifier, namespace/name or UUID); repeat for several",
      multiple: true,
    },
    repo: {
      type: "string",
      value: "DIR",
      description: "Repository each task works on, in a fresh copy (default: an empty folder)",
    },
    host: {
      type: "string",
      value: "HOST",
      description:
        "Address to listen on (beyond loopback only with --token-file or --registry-keys)",
      default: "127.0.0.1",
    },
    "token-file": {
      type: "string",
      value: "FILE",
      description: "File holding the bearer token callers must send (private to you, 16+ chars)",
    },
    "signing-key": {
      type: "string",
      value: "FILE",
      description: "Private key (JWK or PEM, private to you) that signs the card",
    },
    "registry-keys": {
      type: "boolean",
      description: "Take the API keys of the registry's users as bearer tokens",
    },
    "rate-limit": {
      type: "string",
      value: "N",
      description:
        "JSON-RPC requests per caller a minute (1-100000), with --token-file or --registry-keys",
      default: "120",
    },
    port: {
      type: "string",
      value: "PORT",
      description: "Port (0 picks a free one)",
      default: "8789",
    },
    "max-concurrent": {
      type: "string",
      value: "N",
      description: "Runs at once (1-16); later messages wait their turn",
      default: "2",
    },
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      choices: headlessHarnessKeys,
      description: "Harness the Agent must run in (default: the first one present here)",
    },
    sandbox: {
      type: "string",
      value: "MODE",
      choices: SANDBOX_MODES,
      description: "Sandbox each run's harness: auto (where it works), on (refuse without), off",
    },
    timeout: {
      type: "string",
      value: "SECONDS",
      description: "Longest one run may take (1-86400)",
      default: "1800",
    },
    "max-wait": {
      type: "string",
      value: "SECONDS",
      description:
        "Longest a blocking SendMessage waits for its run before answering it WORKING (0-3600)",
      default: "30",
    },
    "task-ttl": {
      type: "string",
      value: "SECONDS",
      description: "How long an ended task can still be fetched (60-2592000; at most 1000 kept)",
      default: "86400",
    },
  },
  details: `The Agent's card is at <url>/.well-known/agent-card.json and its JSON-RPC endpoint
at <url>/: A2A v1.0 for requests that send \`A2A-Version: 1.0\`, v0.3 for the others. With
several --agent, each is at <url>/agents/<name>/ (its card under it), listed at <url>/ and
in the ARD manifest <url>/.well-known/ard.json, which \`observal registry a2a submit\`
imports whole; --max-concurrent then counts the runs of all of them. Each is served at the
version approved when the server started.

Each message starts one run, exactly as \`observal delegate run\` runs the Agent: a fresh
copy of --repo as it stands (committed or not), the Agent installed into it, its harness
headless (sandboxed where it can be), and the answer back as the task's \`result\` artifact
with the edits as a \`changes.patch\` artifact (text/x-diff). The runs are ordinary
delegated tasks: \`observal delegate list\` shows them.

A caller may send its own repository with the message instead (the repository-state
extension the card declares; \`observal delegate run\` does so by default): HEAD as a git
bundle, leaving out what --repo already has, and its uncommitted work as a patch, each
checked before use; the run then works on exactly the caller's tree. A message with the
contextId of an earlier completed task continues on the tree that task left (its
changes.patch applied), resuming the last run's harness session where the harness can
(Claude Code, Codex, Pi); otherwise in a new session told what was asked and answered
before, and the status says why. A message naming a task that is still running (up to 4
per task) runs next in that task the same way, once the run before it completes.

A blocking SendMessage waits for its run to end, but at most --max-wait seconds (proxies
cut quiet requests; a run can take far longer): past that the answer is the task as it
stands, still WORKING, and the caller follows it with GetTask, SubscribeToTask or a push
webhook, as after returnImmediately.

Streaming (SendStreamingMessage, SubscribeToTask) and push notifications are supported. A
webhook must be a public https URL, checked like an agent endpoint when it is set and
again at each delivery; the hosts in the registry's discovery.a2a_private_hosts setting
may be private or plain http (loopback ones only while this server listens on loopback).

With --token-file, every JSON-RPC request must carry \`Authorization: Bearer <token>\` (the
card stays public and declares it). With --registry-keys, callers send their own API key
for the registry this observal uses instead (\`observal registry user add|key\` issues
them): a key counts while the registry says whose it is, asked at each request (a remote
server's answer is kept for ${KEY_CACHE_MS / 1000} s); while the registry cannot be asked,
every other key is refused (HTTP 503). Both may be given: either credential then passes.
Each caller (each user, or the token's holders as one) gets --rate-limit requests a minute
(HTTP 429 with Retry-After beyond it), sees only its own tasks, and is named in the log
line of each message it sends. Only with one of them may --host be an address other
machines reach.

With --signing-key (a private JWK or PEM: P-256/384/521, Ed25519, RSA of 2048+ bits), each
form of the card (v1.0, v0.3) carries its own signature (A2A v1.0 §8.4): alg from the key,
kid the JWK's or the key's thumbprint, jku <url>/.well-known/jwks.json, where the public
key is.

The first line on stdout is \`listening <url>\`; stop with Ctrl-C, which cancels the runs
still going.`,
  async run(inv, ctx) {
    const refs = agentRefs(inv.flags.agent);
    const host = str(inv, "host")!;
    const tokenFile = str(inv, "token-file");
    const token = tokenFile === undefined ? undefined : readToken(tokenFile);
    const registryKeys = inv.flags["registry-keys"] === true;
    if (!isLoopback(host) && token === undefined && !registryKeys) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `Without a token anyone who reaches ${host} could run the Agent, so it is not served there`,
        {
          remediation:
            "Pass --token-file FILE or --registry-keys, or serve on 127.0.0.1 (the default)",
        },
      );
    }
    const keyFile = str(inv, "signing-key");
    // jose loads only when the card is signed.
    const signerAt = keyFile === undefined
      ? undefined
      : await (await import("../../agent_server/card_signing.ts")).fileCardSigner(keyFile);
    const rateLimit = int(inv, "rate-limit", 1, 100_000);
    const port = int(inv, "port", 0, 65535);
    const maxConcurrent = int(inv, "max-concurrent", 1, 16);
    const timeoutSeconds = int(inv, "timeout", 1, 86_400);
    const taskTtlSeconds = int(inv, "task-ttl", 60, 2_592_000);
    const maxWaitSeconds = int(inv, "max-wait", 0, 3600);
    const harness = await headlessHarnessFlag(inv);
    const sandbox = choice(inv, "sandbox", SANDBOX_MODES);
    const fault = probeHome(ctx.home);
    if (fault) throw homeFaultError(fault, ctx.home);

    const given = str(inv, "repo");
    const scratch = given === undefined ? emptyFolder() : undefined;
    const cwd = scratch ?? repoFolder(given!);
    const opened = openService({ ...ctx, cwd });
    const stop = new AbortController();
    let states: string | undefined;
    try {
      const entries = await servableEntries(opened.registry(), refs);
      const server = await import("../../agent_server/mod.ts");
      const now = () => ctx.clock.now().getTime();
      const log = (line: string) => note(ctx, line);
      const authorize = token === undefined && !registryKeys ? undefined : server.authorizer({
        token,
        keyOwner: registryKeys
          ? server.registryKeyOwner({
            whoIs: (key) =>
              opened.registry().withSignal(AbortSignal.timeout(KEY_CHECK_MS)).withApiKey(key).me(),
            // The embedded registry is a local read: a revoked key stops at once.
            cacheMs: serverTarget(ctx).kind === "remote" ? KEY_CACHE_MS : 0,
            now,
          })
          : undefined,
        requestsPerMinute: rateLimit,
        now,
        log,
      });
      const repository = scratch ? undefined : gitTop(cwd);
      states = stateFolder(ctx.home);
      // Shared by every Agent here: the runs at once and their line, and what the
      // repository states sent may hold.
      const slots = new server.RunSlots(maxConcurrent, maxConcurrent * 8);
      const held = { taken: 0, max: maxConcurrent + 2 };
      const stateRequests = { taken: 0, max: maxConcurrent + 2 };
      const slugs = server.slugsFor(entries);
      const executors = entries.map((entry, i) =>
        server.servedAgentExecutor({
          identifier: entry.identifier,
          pin: { version: entry.version, digest: entry["obs:artifactDigest"] },
          service: opened.service,
          slots,
          signal: stop.signal,
          run: { harness, sandbox, timeoutSeconds },
          states: { dir: states!, repository, env: ctx.env, held },
          conversations: new server.Conversations(
            join(states!, `conversations-${slugs[i]}`),
            taskTtlSeconds * 1000,
          ),
        })
      );
      // The cards name the URL, which a free port makes known only once listening.
      const late: { app?: ReturnType<typeof server.createHostApp> } = {};
      const listening = await listen(
        (request, env) =>
          late.app ? late.app.fetch(request, env) : new Response(null, { status: 503 }),
        host,
        port,
      );
      const url = listening.url;
      late.app = server.createHostApp(
        url,
        entries.map((entry, i) => ({
          slug: slugs[i],
          entry,
          app: (rpcUrl: string) =>
            server.createAgentApp({
              card: server.servedCard(entry, {
                rpcUrl,
                providerUrl: url,
                bearer: authorize !== undefined,
                repository: repository !== undefined,
              }),
              rpcUrl,
              executor: executors[i],
              authorize,
              log,
              stateRequests,
              taskTtlMs: taskTtlSeconds * 1000,
              maxWaitMs: maxWaitSeconds * 1000,
              push: {
                privateHosts: () => webhookPrivateHosts(opened.registry(), host),
                resolve: resolveWithOverrides(ctx.env[RESOLVE_VARIABLE], RESOLVE_VARIABLE),
                signal: stop.signal,
                log,
              },
              // One signer per Agent (each keeps its cards' signatures); the key set is
              // at the origin for all of them.
              signer: signerAt?.(url),
            }),
        })),
        signerAt?.(url),
      );
      const cards = entries.map((_, i) =>
        entries.length === 1
          ? `${url}/.well-known/agent-card.json`
          : `${url}/agents/${slugs[i]}/.well-known/agent-card.json`
      );
      if (inv.json) {
        say(
          ctx,
          JSON.stringify({
            url,
            ...entries.length === 1 ? { card: cards[0], agent: entries[0].identifier } : {},
            agents: entries.map((e, i) => ({ identifier: e.identifier, card: cards[i] })),
          }),
        );
      } else say(ctx, `listening ${url}`);
      entries.forEach((entry, i) =>
        note(
          ctx,
          `Serving ${entry.displayName ?? entry.identifier} ${entry.version ?? ""}: card at ${
            cards[i]
          }`,
        )
      );
      if (entries.length > 1) {
        note(ctx, `Index at ${url}/, ARD manifest at ${url}/.well-known/ard.json`);
      }
      note(ctx, `Runs work on ${scratch ? "an empty folder (no --repo)" : `a copy of ${cwd}`}`);
      if (!isLoopback(host)) {
        note(
          ctx,
          `Warning: serving plain HTTP on ${host}; the token and the repository's code cross the ` +
            "network unencrypted. Put a TLS-terminating reverse proxy in front",
        );
      }
      // Runs still going are canceled first, so none is left running for nobody.
      await listening.stopped(() =>
        Promise.all(executors.map((e) => e.cancelAll())).then(() => {})
      );
      return 0;
    } finally {
      stop.abort();
      await opened.service.drain();
      opened.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      if (states) rmSync(states, { recursive: true, force: true });
    }
  },
};
