/**
 * The review page in a real browser: `observal registry serve` as a child process, Debian's
 * chromium driven headless by puppeteer-core. A reviewer signs in with a key, approves a
 * card, rejects an Agent, is refused a card that changed after it was shown, sees hostile
 * card fields as inert text; a wrong key and a form without its token are refused. The
 * registry's answers are checked through its API, not only on the page. Screenshots go to
 * tmp/screens/.
 *
 * Without /usr/bin/chromium the test is skipped (and says so), except under `CI=true`,
 * where it fails saying what is missing.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { httpTransport, RegistryClient } from "../../lib/registry/mod.ts";
import { startV1Agent, type TestAgent } from "../support/a2a_agents.ts";
import { cli } from "../support/cli.ts";
import { type Spawned, spawnObserval } from "../support/process.ts";

const CHROMIUM = "/usr/bin/chromium";
const IN_CI = Deno.env.get("CI") === "true";
const SCREENS = fileURLToPath(new URL("../../tmp/screens/", import.meta.url));
const AGENT_YAML = readFileSync(
  fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url)),
  "utf8",
);
const COOKIE = "observal_review";

const HOSTILE_NAME = `<script>alert("name")</script><img src=x onerror=alert(1)>`;
const HOSTILE_DESCRIPTION = `"><svg onload=alert(2)><a href="javascript:alert(3)">click</a>`;
const HOSTILE_SKILL = `<img src=x onerror=alert(4)> skill`;
const HOSTILE_EXAMPLE = `'><script>alert(5)</script>`;
const HOSTILE_TAG = `<b onmouseover=alert(6)>tag</b>`;

if (!existsSync(CHROMIUM) && !IN_CI) {
  console.error(`review_page_test: skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

function client(url: string, apiKey: string): RegistryClient {
  return new RegistryClient({ apiKey, label: url, transport: httpTransport(url, (r) => fetch(r)) });
}

async function userKey(env: Record<string, string>, handle: string, role: string) {
  const made = await cli(["registry", "user", "add", handle, "--role", role, "--json"], { env });
  assert.equal(made.code, 0, made.stderr);
  return JSON.parse(made.stdout).apiKey as string;
}

/** Clicks a submit button and waits for the page it leads to; returns its status. */
async function submit(page: Page, selector: string): Promise<number> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
  return response?.status() ?? 0;
}

async function signIn(page: Page, url: string, key: string): Promise<number> {
  await page.goto(url);
  // With the keyboard alone: focus the field, type, Enter.
  await page.focus("#key");
  await page.keyboard.type(key);
  const [response] = await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  return response?.status() ?? 0;
}

async function text(page: Page): Promise<string> {
  return await page.$eval("main", (m) => (m as unknown as { innerText: string }).innerText);
}

Deno.test({
  name: "review page: sign in, queue, approve, reject, changed entry, hostile card, CSRF",
  ignore: !existsSync(CHROMIUM) && !IN_CI,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    assert.ok(existsSync(CHROMIUM), `CI=true and ${CHROMIUM} is missing: install chromium`);
    mkdirSync(SCREENS, { recursive: true });
    const home = mkdtempSync(join(tmpdir(), "observal-review-page-"));
    const env = { OBSERVAL_HOME: home, HOME: home };
    const agents: TestAgent[] = [];
    let server: Spawned | undefined;
    let browser: Browser | undefined;
    try {
      const set = await cli(
        ["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"],
        { env },
      );
      assert.equal(set.code, 0, set.stderr);
      const ritaKey = await userKey(env, "rita", "reviewer");
      const aliceKey = await userKey(env, "alice", "user");
      server = spawnObserval(["registry", "serve", "--port", "0"], env);
      const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(await server.firstLine)?.[1];
      assert.ok(url, "serve prints its address");
      const alice = client(url, aliceKey);
      const rita = client(url, ritaKey);

      const start = async (options: Parameters<typeof startV1Agent>[0]) => {
        const agent = await startV1Agent(options);
        agents.push(agent);
        return agent;
      };
      const good = await start({
        name: "Release Notes Writer",
        description: "Writes release notes from merged pull requests.",
        skills: [{
          id: "notes",
          name: "Release notes",
          description: "Drafts notes",
          tags: ["writing"],
          examples: ["Write the notes for v2.1"],
        }],
      });
      const changing = await start({ name: "Changing Agent" });
      const hostile = await start({
        name: HOSTILE_NAME,
        description: HOSTILE_DESCRIPTION,
        skills: [{
          id: "x",
          name: HOSTILE_SKILL,
          description: "javascript:alert(7)",
          tags: [HOSTILE_TAG],
          examples: [HOSTILE_EXAMPLE],
        }],
      });
      const card = await alice.submitCard({ cardUrl: good.cardUrl, visibility: "public" });
      const moving = await alice.submitCard({ cardUrl: changing.cardUrl, visibility: "public" });
      const bad = await alice.submitCard({ cardUrl: hostile.cardUrl, visibility: "public" });
      const agent = await alice.publishAgent({ yaml: AGENT_YAML, visibility: "public" });

      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox"],
        headless: true,
      });
      const page = await browser.newPage();
      const requested: string[] = [];
      const dialogs: string[] = [];
      page.on("request", (r) => void requested.push(r.url()));
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });

      await t.step(
        "/ serves the page as HTML; an unknown API route keeps its JSON 404",
        async () => {
          const home = await fetch(`${url}/`);
          assert.equal(home.status, 200);
          assert.match(home.headers.get("content-type") ?? "", /^text\/html/);
          assert.match(await home.text(), /<form[^>]+action="\/review\/sign-in"/);
          const api = await fetch(`${url}/api/v1/nothing-here`);
          assert.equal(api.status, 404);
          assert.equal((await api.json()).errorCode, "NOT_FOUND");
        },
      );

      await t.step("a wrong key is refused with a message, and no cookie is set", async () => {
        const context = await browser!.createBrowserContext();
        try {
          const other = await context.newPage();
          other.on("request", (r) => void requested.push(r.url()));
          assert.equal(await signIn(other, url, "obs_not-a-key"), 401);
          assert.match(await text(other), /That API key is not valid/);
          assert.equal(await other.$("#key") !== null, true, "the form is shown again");
          assert.deepEqual(await context.cookies(), []);
        } finally {
          await context.close();
        }
      });

      await t.step(
        "sign in with a reviewer key: the queue lists the pending card and Agent",
        async () => {
          assert.equal(await signIn(page, url, ritaKey), 200);
          assert.equal(page.url(), `${url}/`);
          const queue = await text(page);
          assert.match(queue, /Review queue/);
          assert.ok(queue.includes("Release Notes Writer"), queue);
          assert.ok(queue.includes("Changing Agent"), queue);
          assert.ok(queue.includes("code-reviewer"), queue);
          assert.match(queue, /registry Agent/);
          await page.screenshot({ path: join(SCREENS, "review-queue.png"), fullPage: true });
        },
      );

      await t.step("the session cookie is HttpOnly and SameSite=Strict", async () => {
        const cookies = await browser!.cookies();
        const session = cookies.find((c) => c.name === COOKIE);
        assert.ok(session, `no ${COOKIE} cookie: ${JSON.stringify(cookies)}`);
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, "Strict");
        assert.equal(session.path, "/");
      });

      await t.step("approve a card: the registry says approved", async () => {
        await page.goto(url);
        await Promise.all([
          page.waitForNavigation(),
          page.locator("a ::-p-text(Release Notes Writer)").click(),
        ]);
        const shown = await text(page);
        assert.ok(shown.includes(String(card["obs:artifactDigest"])), "the digest is shown");
        assert.match(shown, /Write the notes for v2\.1/);
        assert.match(shown, /JSONRPC/);
        assert.match(shown, /Signature\s+unsigned/);
        await page.screenshot({ path: join(SCREENS, "review-card.png"), fullPage: true });
        await page.setViewport({ width: 380, height: 800 });
        await page.screenshot({ path: join(SCREENS, "review-card-narrow.png"), fullPage: true });
        const overflow = await page.evaluate(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        );
        assert.equal(overflow, 0, "nothing is wider than a narrow screen");
        await page.setViewport({ width: 1000, height: 800 });
        assert.equal(await submit(page, "button.approve"), 200);
        assert.match(await text(page), /Approved\./);
        const doc = await rita.entry(String(card.identifier));
        assert.equal(doc["obs:lifecycle"], "approved");
      });

      await t.step("a card changed after its approval shows the lines that changed", async () => {
        good.setCardOverride((c) => ({
          ...c,
          description: "Writes release notes and changelogs.",
        }));
        const again = await alice.submitCard({ cardUrl: good.cardUrl, visibility: "public" });
        assert.equal(again["obs:lifecycle"], "pending");
        await page.goto(`${url}/review/entries/${encodeURIComponent(String(card.identifier))}`);
        const diff = await page.$eval(
          "pre.diff",
          (p) => (p as unknown as { innerText: string }).innerText,
        );
        assert.match(
          diff,
          /^- {3}"description": "Writes release notes from merged pull requests\.",$/m,
        );
        assert.match(diff, /^\+ {3}"description": "Writes release notes and changelogs\.",$/m);
        assert.match(diff, /^ {4}"name": "Release Notes Writer",$/m, "unchanged lines kept");
        await page.screenshot({ path: join(SCREENS, "review-card-diff.png"), fullPage: true });
      });

      await t.step("reject an Agent with a reason: rejected, with that reason", async () => {
        await page.goto(`${url}/review/entries/${encodeURIComponent(String(agent.identifier))}`);
        const shown = await text(page);
        assert.match(shown, /You are a senior code reviewer/, "the prompt");
        assert.match(shown, /@cyanheads\/git-mcp-server/, "the MCP servers");
        assert.match(shown, /\.claude\/agents\/code-reviewer\.md/, "the files it installs");
        await page.focus("#reason");
        await page.keyboard.type("Pin the MCP server's version.");
        assert.equal(await submit(page, "button.reject"), 200);
        const detail = await alice.agent(String(agent.identifier));
        assert.equal(detail.status, "rejected");
        const doc = await alice.entry(String(agent.identifier));
        assert.equal(doc["obs:reviewNote"], "Pin the MCP server's version.");
      });

      await t.step(
        "a card changed after it was shown is not approved, and the page says so",
        async () => {
          await page.goto(`${url}/review/entries/${encodeURIComponent(String(moving.identifier))}`);
          changing.setCardOverride((c) => ({ ...c, description: "Now does something else." }));
          const changed = await alice.submitCard({
            cardUrl: changing.cardUrl,
            visibility: "public",
          });
          assert.notEqual(changed["obs:artifactDigest"], moving["obs:artifactDigest"]);
          assert.equal(await submit(page, "button.approve"), 409);
          const shown = await text(page);
          assert.match(shown, /changed since it was shown to you, so nothing was approved/);
          assert.ok(shown.includes(String(changed["obs:artifactDigest"])), "the new digest shown");
          assert.equal((await rita.entry(String(moving.identifier)))["obs:lifecycle"], "pending");
          // What the page shows now can be approved.
          assert.equal(await submit(page, "button.approve"), 200);
          assert.equal((await rita.entry(String(moving.identifier)))["obs:lifecycle"], "approved");
        },
      );

      await t.step(
        "hostile card fields are shown as text: no script, no element, no dialog",
        async () => {
          const response = await page.goto(
            `${url}/review/entries/${encodeURIComponent(String(bad.identifier))}`,
          );
          const csp = response?.headers()["content-security-policy"] ?? "";
          assert.match(csp, /default-src 'none'/);
          assert.match(csp, /style-src 'nonce-[A-Za-z0-9+/=]+'/);
          assert.match(csp, /frame-ancestors 'none'/);
          assert.equal(response?.headers()["x-content-type-options"], "nosniff");
          assert.equal(response?.headers()["referrer-policy"], "no-referrer");
          assert.equal(response?.headers()["cache-control"], "no-store");
          const shown = await text(page);
          for (const literal of [HOSTILE_NAME, HOSTILE_DESCRIPTION, HOSTILE_SKILL, HOSTILE_TAG]) {
            assert.ok(shown.includes(literal), `shown literally: ${literal}`);
          }
          assert.ok(shown.includes(HOSTILE_EXAMPLE), "the example too");
          const injected = await page.evaluate(`({
          scripts: document.querySelectorAll("script").length,
          images: document.querySelectorAll("img").length,
          svgs: document.querySelectorAll("svg").length,
          bold: document.querySelectorAll("main b").length,
          js: [...document.querySelectorAll("a")].filter((a) =>
            (a.getAttribute("href") ?? "").toLowerCase().includes("javascript")
          ).length,
          handlers: [...document.querySelectorAll("*")].filter((e) =>
            [...e.attributes].some((a) => a.name.startsWith("on"))
          ).length,
        })`);
          assert.deepEqual(injected, {
            scripts: 0,
            images: 0,
            svgs: 0,
            bold: 0,
            js: 0,
            handlers: 0,
          });
          // Hovering and focusing what is there fires nothing either.
          await page.hover("h1");
          assert.deepEqual(dialogs, []);
          await page.goto(url);
          assert.ok((await text(page)).includes(HOSTILE_NAME), "the queue shows it literally");
          assert.deepEqual(dialogs, []);
        },
      );

      await t.step(
        "a form without its token, or from another site, is refused and changes nothing",
        async () => {
          const cookie = (await browser!.cookies()).find((c) => c.name === COOKIE)!.value;
          await page.goto(`${url}/review/entries/${encodeURIComponent(String(bad.identifier))}`);
          const token = await page.$eval(
            "input[name=csrf]",
            (i) => (i as unknown as { value: string }).value,
          );
          const digest = String(bad["obs:artifactDigest"]);
          const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
            fetch(`${url}/review/entries/${encodeURIComponent(String(bad.identifier))}`, {
              method: "POST",
              redirect: "manual",
              headers: {
                cookie: `${COOKIE}=${cookie}`,
                "content-type": "application/x-www-form-urlencoded",
                ...headers,
              },
              body: new URLSearchParams(body),
            });
          for (
            const [body, headers] of [
              [{ action: "approve", digest }, {}],
              [{ action: "approve", digest, csrf: "wrong" }, {}],
              [{ action: "approve", digest, csrf: token }, { origin: "http://elsewhere.example" }],
              [{ action: "approve", digest, csrf: token }, { "sec-fetch-site": "cross-site" }],
            ] as const
          ) {
            const res = await post(body, headers);
            assert.equal(res.status, 403, JSON.stringify(body));
            assert.match(await res.text(), /This form was refused/);
          }
          // Sign-out takes the token too.
          const out = await fetch(`${url}/review/sign-out`, {
            method: "POST",
            redirect: "manual",
            headers: {
              cookie: `${COOKIE}=${cookie}`,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: "",
          });
          assert.equal(out.status, 403);
          await out.body?.cancel();
          assert.equal((await rita.entry(String(bad.identifier)))["obs:lifecycle"], "pending");
          // The same request with the token goes through: the refusals were the token's.
          const ok = await post({ action: "reject", reason: "Hostile fields.", csrf: token });
          assert.equal(ok.status, 200);
          await ok.body?.cancel();
          // Rejected, it is its owner's to see.
          assert.equal((await alice.entry(String(bad.identifier)))["obs:lifecycle"], "rejected");
        },
      );

      await t.step("the submitter sees their entries with their state and the reason", async () => {
        const context = await browser!.createBrowserContext();
        try {
          const own = await context.newPage();
          own.on("request", (r) => void requested.push(r.url()));
          assert.equal(await signIn(own, url, aliceKey), 200);
          const shown = await text(own);
          assert.match(shown, /You cannot review entries/);
          assert.match(
            shown,
            /code-reviewer[^\n]*rejected[\s\S]*Reason: Pin the MCP server's version\./,
          );
          assert.match(shown, /Changing Agent[^\n]*approved/);
          assert.match(shown, /Release Notes Writer[^\n]*pending review/);
          await own.setViewport({ width: 380, height: 800 });
          await own.screenshot({ path: join(SCREENS, "review-own-narrow.png"), fullPage: true });
        } finally {
          await context.close();
        }
      });

      await t.step(
        "an Agent's new version shows what changed since the last approved one",
        async () => {
          const v121 = await alice.publishAgent({
            yaml: AGENT_YAML.replace("version: 1.2.0", "version: 1.2.1"),
            visibility: "public",
          });
          await rita.reviewAgent(String(v121.identifier), {
            action: "approve",
            digest: String(v121["obs:artifactDigest"]),
          });
          const v130 = await alice.publishAgent({
            yaml: AGENT_YAML.replace("version: 1.2.0", "version: 1.3.0")
              .replace("You are a senior code reviewer.", "You are a careful code reviewer."),
            visibility: "public",
          });
          await page.goto(`${url}/review/entries/${encodeURIComponent(String(v130.identifier))}`);
          const diff = await page.$eval(
            "pre.diff",
            (p) => (p as unknown as { innerText: string }).innerText,
          );
          assert.match(await text(page), /Changes since version 1\.2\.1, the last approved/);
          assert.match(diff, /^- {3}"prompt": "You are a senior code reviewer\./m);
          assert.match(diff, /^\+ {3}"prompt": "You are a careful code reviewer\./m);
          assert.match(diff, /^- {3}"version": "1\.2\.1"/m);
          assert.match(diff, /^\+ {3}"version": "1\.3\.0"/m);
          await page.screenshot({ path: join(SCREENS, "review-agent-diff.png"), fullPage: true });
        },
      );

      await t.step("sign-out ends the session", async () => {
        await page.goto(url);
        assert.equal(await submit(page, "header button[type=submit]"), 200);
        assert.ok(await page.$("#key"), "the sign-in form again");
        const cookies = await browser!.cookies();
        assert.equal(cookies.find((c) => c.name === COOKIE), undefined);
      });

      await t.step(
        "failed sign-ins spend the API key's budget, as a bad Bearer key does",
        async () => {
          const attempt = () =>
            fetch(`${url}/review/sign-in`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "key=obs_guessed",
            });
          const statuses: number[] = [];
          for (let i = 0; i < 10; i++) {
            const res = await attempt();
            statuses.push(res.status);
            await res.body?.cancel();
          }
          assert.deepEqual(statuses, Array(10).fill(401));
          const res = await attempt();
          assert.equal(res.status, 429);
          assert.match(await res.text(), /Too many failed sign-ins with this API key/);
          // The API refuses the same key in a header now: one budget for both ways in.
          const api = await fetch(`${url}/api/v1/me`, {
            headers: { authorization: "Bearer obs_guessed" },
          });
          assert.equal(api.status, 429);
          await api.body?.cancel();
        },
      );

      await t.step(
        "no key appears in any URL the browser asked for, nor on the server's stderr",
        async () => {
          assert.ok(requested.length > 5, `requests were recorded: ${requested.length}`);
          for (const u of requested) {
            assert.ok(u.startsWith(`${url}/`), `only this registry was asked: ${u}`);
            for (const key of [ritaKey, aliceKey, "obs_not-a-key"]) {
              assert.ok(!u.includes(key) && !u.includes(encodeURIComponent(key)), u);
            }
          }
          assert.equal(await server!.stop(), 0);
          for (const key of [ritaKey, aliceKey, "obs_not-a-key", "obs_guessed"]) {
            assert.ok(!server!.stderr().includes(key), "a key on stderr");
          }
        },
      );
    } finally {
      await browser?.close();
      await server?.stop();
      for (const agent of agents) await agent.close();
      rmSync(home, { recursive: true, force: true });
    }
  },
});
