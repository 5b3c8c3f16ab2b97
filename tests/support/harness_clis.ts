/**
 * Real harness CLIs for end-to-end tests: pinned npm packages installed once into a cache
 * folder that every test run reuses, and an environment that points each CLI at the scripted
 * model server with its phone-home features off.
 *
 * Everything test-specific lives in the environment and in config files under the run's home,
 * so adapters can launch the CLIs with the same flags they use in production.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { netnsSupported } from "./netns.ts";

/** The harnesses whose CLIs the tests install. */
export type HarnessCliKey =
  | "claude-code"
  | "codex"
  | "pi"
  | "opencode"
  | "copilot-cli"
  | "gemini-cli";

/** One pinned CLI: the npm package, its exact version and the binary it installs. */
export interface HarnessCliPin {
  package: string;
  version: string;
  binary: string;
}

/** The pinned versions, each verified to install and run headless against the model server. */
export const HARNESS_CLI_PINS: Readonly<Record<HarnessCliKey, HarnessCliPin>> = {
  "claude-code": { package: "@anthropic-ai/claude-code", version: "2.1.332", binary: "claude" },
  codex: { package: "@openai/codex", version: "0.171.0", binary: "codex" },
  pi: { package: "@mariozechner/pi-coding-agent", version: "0.73.1", binary: "pi" },
  opencode: { package: "opencode-ai", version: "1.18.33", binary: "opencode" },
  "copilot-cli": { package: "@github/copilot", version: "1.0.102", binary: "copilot" },
  "gemini-cli": { package: "@google/gemini-cli", version: "0.61.0", binary: "gemini" },
};

/** An installed CLI. */
export interface HarnessCli {
  /** Absolute path of the CLI's executable. */
  bin: string;
  /** The folder holding `bin`, to put first on PATH. */
  binDir: string;
  version: string;
}

/** Model names the test configs select; Codex needs a known slug to offer apply_patch. */
export const TEST_MODELS: Readonly<Record<HarnessCliKey, string>> = {
  "claude-code": "claude-sonnet-4-6",
  codex: "gpt-5.5",
  pi: "fake-model",
  opencode: "fake-model",
  "copilot-cli": "fake-model",
  // Gemini puts the model name in the request path; the server answers any name.
  "gemini-cli": "gemini-2.5-flash",
};

/** The API key every test config sends; the scripted server accepts anything. */
export const TEST_API_KEY = "sk-observal-test";
/** The provider id the test configs register for the scripted server. */
export const TEST_PROVIDER = "observal-test";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const READY = ".observal-ready";

/**
 * The folder the CLIs are installed into: `$OBSERVAL_TEST_CLI_CACHE`, or `<repo>/tmp/harness-clis`.
 */
export function harnessCliCacheDir(): string {
  return Deno.env.get("OBSERVAL_TEST_CLI_CACHE") || join(REPO, "tmp", "harness-clis");
}

function installDir(pin: HarnessCliPin): string {
  return join(harnessCliCacheDir(), `${pin.package}@${pin.version}`);
}

/** Where a CLI is (or will be) installed, without installing it. */
export function harnessCliPaths(key: HarnessCliKey): HarnessCli {
  const pin = HARNESS_CLI_PINS[key];
  const binDir = join(installDir(pin), "node_modules", ".bin");
  return { bin: join(binDir, pin.binary), binDir, version: pin.version };
}

/** Copilot unpacks a 235 MB package into its cache on first start: one cache for all runs. */
function copilotCacheDir(): string {
  return join(harnessCliCacheDir(), "copilot-xdg-cache");
}

/** Node 24 from the repo's devDependencies, for install scripts that want Node >= 22. */
function nodeBinDir(): string | undefined {
  const dir = join(REPO, "node_modules", "node", "bin");
  return existsSync(join(dir, "node")) ? dir : undefined;
}

interface Output {
  code: number;
  out: string;
}

async function exec(
  cmd: string,
  args: string[],
  options: { cwd?: string; env: Record<string, string>; timeoutMs: number },
): Promise<Output> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs),
  }).spawn();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, out: decoder.decode(stdout) + decoder.decode(stderr) };
}

function tail(text: string, lines = 20): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

async function install(key: HarnessCliKey): Promise<void> {
  const pin = HARNESS_CLI_PINS[key];
  const dir = installDir(pin);
  const spec = `${pin.package}@${pin.version}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ private: true, dependencies: { [pin.package]: pin.version } }, null, 2),
  );
  const node = nodeBinDir();
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    PATH: [node, Deno.env.get("PATH")].filter(Boolean).join(":"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  // Dependencies' install scripts are not needed; only the CLI's own postinstall (which puts
  // the platform binary in place for claude and opencode) is run, below.
  const npm = await exec("npm", ["install", "--ignore-scripts", "--no-save", spec], {
    cwd: dir,
    env,
    timeoutMs: 600_000,
  }).catch((e: Error) => ({ code: -1, out: `could not run npm: ${e.message}` }));
  if (npm.code !== 0) {
    throw new Error(
      `Installing ${spec} for the harness tests failed (it needs the npm registry, or ` +
        `OBSERVAL_TEST_CLI_CACHE pointing at a folder where it is installed):\n${tail(npm.out)}`,
    );
  }
  const pkgDir = join(dir, "node_modules", pin.package);
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const postinstall = manifest.scripts?.postinstall;
  if (typeof postinstall === "string") {
    const run = await exec("sh", ["-c", postinstall], { cwd: pkgDir, env, timeoutMs: 300_000 });
    if (run.code !== 0) {
      throw new Error(`The postinstall script of ${spec} failed:\n${tail(run.out)}`);
    }
  }
  // Verify it runs (and let Copilot unpack into the shared cache), offline when we can.
  const { bin } = harnessCliPaths(key);
  const verifyEnv: Record<string, string> = {
    PATH: env.PATH,
    HOME: join(dir, ".verify-home"),
    XDG_CACHE_HOME: key === "copilot-cli" ? copilotCacheDir() : join(dir, ".verify-home", "cache"),
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    DISABLE_AUTOUPDATER: "1",
    PI_OFFLINE: "1",
  };
  const offline = await netnsSupported() ? ["unshare", "-n"] : [];
  const argv = [...offline, bin, "--version"];
  const check = await exec(argv[0], argv.slice(1), { env: verifyEnv, timeoutMs: 300_000 });
  rmSync(join(dir, ".verify-home"), { recursive: true, force: true });
  if (check.code !== 0 || !check.out.includes(pin.version)) {
    throw new Error(
      `${spec} installed, but \`${pin.binary} --version\` did not report ${pin.version} ` +
        `(exit ${check.code}):\n${tail(check.out)}`,
    );
  }
  writeFileSync(join(dir, READY), `${spec}\n`);
}

/**
 * Installs a pinned harness CLI into the cache folder unless it is there already. A file
 * lock per CLI keeps test files running in parallel from installing it twice at once.
 *
 * @param key the harness
 * @returns the installed executable and its folder
 * @throws {Error} when npm, the CLI's install script or `--version` fails (never a skip)
 *
 * @example
 * ```ts ignore
 * const { bin } = await ensureHarnessCli("codex");
 * ```
 */
export async function ensureHarnessCli(key: HarnessCliKey): Promise<HarnessCli> {
  const paths = harnessCliPaths(key);
  const ready = join(installDir(HARNESS_CLI_PINS[key]), READY);
  if (existsSync(ready)) return paths;
  const locks = join(harnessCliCacheDir(), ".locks");
  mkdirSync(locks, { recursive: true });
  const lock = await Deno.open(join(locks, `${key}.lock`), { create: true, write: true });
  try {
    await lock.lock(true);
    if (!existsSync(ready)) await install(key);
  } finally {
    await lock.unlock();
    lock.close();
  }
  return paths;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Options for {@linkcode harnessTestEnv}. */
export interface HarnessTestEnvOptions {
  /** The run's home folder; config files and session state go under it. */
  home: string;
  /** The scripted model server's base URL, without a path. */
  modelUrl: string;
}

/**
 * The complete environment for running a harness CLI against the scripted model server:
 * endpoint, provider, API key, default model and quiet settings, with session state under
 * `home`. Writes the config files the CLI reads (under `home`). Pass it as the child's whole
 * environment; nothing from the test process's environment leaks in except PATH.
 *
 * @param key the harness
 * @param options the run's home folder and the model server's URL
 * @returns the environment variables, PATH starting with the CLI's folder
 *
 * @example
 * ```ts ignore
 * const env = harnessTestEnv("pi", { home, modelUrl: model.url });
 * ```
 */
export function harnessTestEnv(
  key: HarnessCliKey,
  options: HarnessTestEnvOptions,
): Record<string, string> {
  const { home, modelUrl } = options;
  // The CLIs' own temporary files (Claude Code's per-folder state, Gemini CLI's error
  // reports) go into the test's home, removed with it, not into the machine's /tmp.
  const tmp = join(home, "tmp");
  mkdirSync(tmp, { recursive: true });
  const base: Record<string, string> = {
    HOME: home,
    TMPDIR: tmp,
    PATH: [harnessCliPaths(key).binDir, Deno.env.get("PATH") ?? "/usr/bin:/bin"].join(":"),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  switch (key) {
    case "claude-code":
      return {
        ...base,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: TEST_API_KEY,
        ANTHROPIC_MODEL: TEST_MODELS[key],
        // Without it Claude looks up api.anthropic.com (metrics, feature flags, updates).
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
      };
    case "codex": {
      const codexHome = join(home, ".codex");
      // `[features] plugins = false` and `[analytics] enabled = false` are the config forms of
      // `--disable plugins -c analytics.enabled=false`, which stop lookups of GitHub and
      // chatgpt.com. Only wire_api = "responses" is accepted by this version.
      write(
        join(codexHome, "config.toml"),
        [
          `model = "${TEST_MODELS[key]}"`,
          `model_provider = "${TEST_PROVIDER}"`,
          `check_for_update_on_startup = false`,
          ``,
          `[model_providers.${TEST_PROVIDER}]`,
          `name = "Observal test model"`,
          `base_url = "${modelUrl}/v1"`,
          `wire_api = "responses"`,
          `env_key = "OBSERVAL_TEST_MODEL_KEY"`,
          ``,
          `[features]`,
          `plugins = false`,
          ``,
          `[analytics]`,
          `enabled = false`,
          ``,
        ].join("\n"),
      );
      return { ...base, CODEX_HOME: codexHome, OBSERVAL_TEST_MODEL_KEY: TEST_API_KEY };
    }
    case "pi": {
      const agentDir = join(home, ".pi", "agent");
      write(
        join(agentDir, "models.json"),
        JSON.stringify({
          providers: {
            [TEST_PROVIDER]: {
              baseUrl: `${modelUrl}/v1`,
              api: "openai-completions",
              apiKey: TEST_API_KEY,
              compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
              models: [{
                id: TEST_MODELS[key],
                reasoning: false,
                input: ["text"],
                contextWindow: 128000,
                maxTokens: 4096,
              }],
            },
          },
        }),
      );
      // The settings equivalents of `--provider` and `--model`.
      write(
        join(agentDir, "settings.json"),
        JSON.stringify({
          defaultProvider: TEST_PROVIDER,
          defaultModel: TEST_MODELS[key],
          enableInstallTelemetry: false,
          quietStartup: true,
        }),
      );
      return {
        ...base,
        PI_CODING_AGENT_DIR: agentDir,
        PI_OFFLINE: "1",
        PI_SKIP_VERSION_CHECK: "1",
        PI_TELEMETRY: "0",
      };
    }
    case "opencode": {
      const config = join(home, ".config");
      write(
        join(config, "opencode", "opencode.json"),
        JSON.stringify({
          model: `${TEST_PROVIDER}/${TEST_MODELS[key]}`,
          small_model: `${TEST_PROVIDER}/${TEST_MODELS[key]}`,
          autoupdate: false,
          share: "disabled",
          provider: {
            [TEST_PROVIDER]: {
              npm: "@ai-sdk/openai-compatible",
              name: "Observal test model",
              options: { baseURL: `${modelUrl}/v1`, apiKey: TEST_API_KEY },
              models: {
                [TEST_MODELS[key]]: { tool_call: true, limit: { context: 128000, output: 4096 } },
              },
            },
          },
        }),
      );
      return {
        ...base,
        XDG_CONFIG_HOME: config,
        XDG_DATA_HOME: join(home, ".local", "share"),
        XDG_STATE_HOME: join(home, ".local", "state"),
        XDG_CACHE_HOME: join(home, ".cache"),
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      };
    }
    case "copilot-cli":
      return {
        ...base,
        COPILOT_HOME: join(home, ".copilot"),
        XDG_CACHE_HOME: copilotCacheDir(),
        // Offline mode turns off GitHub auth, telemetry, web tools, the GitHub MCP server and
        // auto-update; it requires the BYOK provider below.
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
        COPILOT_PROVIDER_API_KEY: TEST_API_KEY,
        COPILOT_MODEL: TEST_MODELS[key],
      };
    case "gemini-cli": {
      const geminiHome = home;
      // An API key login pointed at the scripted server; without the auth setting Gemini
      // refuses to start. Usage statistics, telemetry and update checks would phone home.
      write(
        join(geminiHome, ".gemini", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        }),
      );
      return {
        ...base,
        GEMINI_CLI_HOME: geminiHome,
        GEMINI_API_KEY: TEST_API_KEY,
        GOOGLE_GEMINI_BASE_URL: modelUrl,
        GEMINI_MODEL: TEST_MODELS[key],
      };
    }
  }
}
