/**
 * The review page's views: sign-in, the queue, one entry shown whole, and messages. Every
 * value goes through `html`, so nothing a card or an agent file says becomes markup; no
 * URL from an entry is ever made a link.
 * @module
 */
import type { AgentCard } from "../../a2a/card.ts";
import { cardInterfaces } from "../../a2a/interfaces.ts";
import { signatureWords } from "../../a2a/ard_document.ts";
import type { AgentDefinition } from "../../harness/agent_definition.ts";
import type { AgentReview } from "../agents.ts";
import type { EntryRow } from "../entries.ts";
import type { Viewer } from "../identity.ts";
import { Html, html } from "./html.ts";
import { canonicalJson } from "./line_diff.ts";
import { diffView } from "./diff_view.ts";

const STATE_WORDS: Record<string, string> = {
  pending: "pending review",
  approved: "approved",
  rejected: "rejected",
  draft: "draft",
  archived: "archived",
};

/** The path of an entry's review. */
export function entryPath(identifier: string): string {
  return `/review/entries/${encodeURIComponent(identifier)}`;
}

function state(lifecycle: string): Html {
  return html`<span class="state state-${lifecycle}">${STATE_WORDS[lifecycle] ?? lifecycle}</span>`;
}

function kind(row: EntryRow): string {
  return row.source_kind === "native" ? "registry Agent" : "remote A2A agent";
}

const VISIBILITY: Record<string, string> = { owner: "private", team: "team", public: "public" };

function reviewNote(row: EntryRow): string | undefined {
  const doc = JSON.parse(row.doc) as Record<string, unknown>;
  return typeof doc["obs:reviewNote"] === "string" ? doc["obs:reviewNote"] : undefined;
}

/** The header's right side: who is signed in, and the sign-out button. */
export function signedInHeader(viewer: Viewer, csrf: string): Html {
  return html`
    <form method="post" action="/review/sign-out">
      <span class="who">Signed in as <strong>${viewer.handle}</strong> (${viewer.role})</span>
      <input type="hidden" name="csrf" value="${csrf}">
      <button type="submit" class="link">Sign out</button>
    </form>
  `;
}

/** The sign-in form, with a refusal when the last attempt failed. */
export function signInView(message?: string): Html {
  return html`
    <h1>Sign in to review</h1>
    ${message ? html`<p class="notice error" role="alert">${message}</p>` : ""}
    <p>Reviewers approve the agents people may delegate to. Sign in with your registry API key
    (<code>observal registry user key HANDLE</code> issues one).</p>
    <form class="review" method="post" action="/review/sign-in">
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" required autofocus>
      <div><button type="submit">Sign in</button></div>
    </form>
  `;
}

function entryList(rows: EntryRow[], empty: string, showNote: boolean): Html {
  if (rows.length === 0) return html`<p>${empty}</p>`;
  return html`<ul class="entries">${
    rows.map((row) => {
      const note = showNote && row.lifecycle === "rejected" ? reviewNote(row) : undefined;
      return html`<li><a href="${entryPath(row.identifier)}">${row.display_name}</a>
<span class="meta">${kind(row)} · version ${row.version} · ${VISIBILITY[row.visibility]}</span> · ${
        state(row.lifecycle)
      }${note ? html`<div class="meta">Reason: ${note}</div>` : ""}</li>`;
    })
  }</ul>`;
}

/** The queue: what this reviewer may review, then the signed-in user's own entries. */
export function queueView(input: {
  canReview: boolean;
  toReview: EntryRow[];
  own: EntryRow[];
}): Html {
  return html`<h1>Review queue</h1>
${
    input.canReview
      ? entryList(input.toReview, "Nothing waits for your review.", false)
      : html`<p>You cannot review entries: an admin gives the reviewer role, a team owner makes
you a team reviewer.</p>`
  }
<h2>Your entries</h2>
${entryList(input.own, "You have not submitted anything.", true)}`;
}

function dl(rows: Array<[string, unknown]>): Html {
  return html`<dl>${
    rows.filter(([, v]) => v !== undefined && v !== null && v !== "").map(([k, v]) =>
      html`
        <dt>${k}</dt>
        <dd>${v}</dd>
      `
    )
  }</dl>`;
}

function list(items: unknown[] | undefined): Html | undefined {
  if (!items?.length) return undefined;
  return html`${items.map((item, i) => html`${i ? ", " : ""}<code>${String(item)}</code>`)}`;
}

function json(value: unknown): Html {
  return html`<pre>${canonicalJson(value)}</pre>`;
}

function cardSections(row: EntryRow, doc: Record<string, unknown>): Html {
  const card = (doc["obs:agentCard"] ?? {}) as AgentCard & Record<string, unknown>;
  const interfaces = cardInterfaces(card);
  const pinned = doc["obs:a2aInterface"] as { url?: string } | undefined;
  const skills = Array.isArray(card.skills) ? card.skills : [];
  const provider = card.provider as { organization?: string; url?: string } | undefined;
  const approved = row.approved_doc
    ? (JSON.parse(row.approved_doc) as Record<string, unknown>)["obs:agentCard"]
    : undefined;
  return html`<h2>Card</h2>
${
    dl([
      ["Card URL", row.source_url],
      ["Description", card.description],
      ["Version", card.version],
      [
        "Provider",
        provider ? [provider.organization, provider.url].filter(Boolean).join(" · ") : "",
      ],
      ["Streaming", card.capabilities?.streaming ? "yes" : "no"],
      ["Push notifications", card.capabilities?.pushNotifications ? "yes" : "no"],
      ["Input modes", list(card.defaultInputModes as unknown[])],
      ["Output modes", list(card.defaultOutputModes as unknown[])],
    ])
  }
<h2>Skills (${skills.length})</h2>
${
    skills.length === 0
      ? html`<p>The card lists no skills.</p>`
      : skills.map((s) =>
        html`<h3>${s.name || s.id}</h3>${
          dl([
            ["Id", s.id],
            ["Description", s.description],
            ["Tags", list(s.tags)],
            [
              "Examples",
              s.examples?.length
                ? html`<ul>${s.examples.map((e) => html`<li>${e}</li>`)}</ul>`
                : "",
            ],
          ])
        }`
      )
  }
<h2>Interfaces</h2>
${
    interfaces.length === 0
      ? html`<p>No interface observal can call.</p>`
      : html`<ul>${
        interfaces.map((i) =>
          html`<li><code>${i.url}</code> · ${i.protocolBinding}${
            i.protocolVersion
              ? html`
                · protocol ${i.protocolVersion}
              `
              : ""
          }${i.url === pinned?.url ? " · pinned for delegation" : ""}</li>`
        )
      }</ul>`
  }
<h2>Security</h2>
${
    card.securitySchemes && Object.keys(card.securitySchemes).length
      ? json(card.securitySchemes)
      : html`<p>The card declares no security schemes.</p>`
  }
${
    (card as Record<string, unknown>).security ||
      (card as Record<string, unknown>).securityRequirements
      ? html`<h3>Requirements</h3>${
        json(
          (card as Record<string, unknown>).security ??
            (card as Record<string, unknown>).securityRequirements,
        )
      }`
      : ""
  }
<h2>Signature</h2>
<p>${signatureWords(doc["obs:signature"] ?? { status: "none" })}</p>
${diffView(approved, card, "the last approval")}
<details><summary>The whole card as fetched</summary>${json(card)}</details>`;
}

function agentSections(review: AgentReview): Html {
  const def: AgentDefinition = review.definition;
  return html`<h2>Agent</h2>
${
    dl([
      ["Description", def.description],
      ["Harnesses", def.supported_harnesses.length ? list(def.supported_harnesses) : "all"],
      ["Model", def.model_name],
      ["Models by harness", def.models_by_harness ? JSON.stringify(def.models_by_harness) : ""],
      ["Tags", list(def.tags)],
      ["Capabilities", list(def.capabilities)],
      [
        "Example tasks",
        def.representative_queries?.length
          ? html`<ul>${def.representative_queries.map((q) => html`<li>${q}</li>`)}</ul>`
          : "",
      ],
    ])
  }
<h2>Prompt</h2>
<pre>${def.prompt}</pre>
<h2>MCP servers (${def.mcp_servers.length})</h2>
${
    def.mcp_servers.length === 0
      ? html`<p>None.</p>`
      : def.mcp_servers.map((s) =>
        html`<h3>${s.name}</h3>${
          dl([
            ["Command", html`<code>${[s.command, ...s.args].join(" ")}</code>`],
            ["Environment", Object.keys(s.env).length ? json(s.env) : ""],
          ])
        }`
      )
  }
<h2>Skills (${def.skills.length})</h2>
${
    def.skills.length === 0 ? html`<p>None.</p>` : def.skills.map((s) =>
      html`
        <h3>${s.name}</h3>
        <p>${s.description}</p>
        <details>
          <summary>SKILL.md body</summary>
          <pre>${s.content}</pre>
        </details>
      `
    )
  }
<h2>Files it installs</h2>
${
    review.files.length === 0
      ? html`<p>None that observal can render.</p>`
      : html`<dl>${
        review.files.map((f) =>
          html`
            <dt>${f.harness}</dt>
            <dd>${f.paths.map((p, i) => html`${i ? html`<br>` : ""}<code>${p}</code>`)}</dd>
          `
        )
      }</dl>`
  }
${
    diffView(
      review.previous?.definition,
      def,
      review.previous ? `version ${review.previous.version}, the last approved` : "",
    )
  }`;
}

/** One entry shown whole, with approve and reject forms when the viewer may review it. */
export function entryView(input: {
  row: EntryRow;
  agent?: AgentReview;
  mayReview: boolean;
  csrf: string;
  notice?: { kind: "ok" | "error"; text: string };
}): Html {
  const { row } = input;
  const doc = JSON.parse(row.doc) as Record<string, unknown>;
  const note = reviewNote(row);
  const action = entryPath(row.identifier);
  return html`<p><a href="/">← Back to the queue</a></p>
${
    input.notice
      ? html`<p class="notice ${input.notice.kind}" role="${
        input.notice.kind === "error" ? "alert" : "status"
      }">${input.notice.text}</p>`
      : ""
  }
<h1>${row.display_name}</h1>
${
    dl([
      ["Kind", kind(row)],
      ["Identifier", html`<code>${row.identifier}</code>`],
      ["Reference", row.native_ref],
      ["Version", row.version],
      ["State", state(row.lifecycle)],
      ["Review note", note],
      ["Visibility", VISIBILITY[row.visibility]],
      ["Updated", row.updated_at],
      ["Digest", html`<code id="digest">${row.digest}</code>`],
    ])
  }
${input.agent ? agentSections(input.agent) : cardSections(row, doc)}
${
    input.mayReview
      ? html`
        <h2>Review</h2>
        <p>Approving approves digest <code>${row.digest}</code>, what this page shows; if the entry
        changes before you approve, nothing is approved.</p>
        <div class="actions">
          <form class="review" method="post" action="${action}">
            <input type="hidden" name="csrf" value="${input.csrf}">
            <input type="hidden" name="action" value="approve">
            <input type="hidden" name="digest" value="${row.digest}">
            <div><button type="submit" class="approve">Approve</button></div>
          </form>
          <form class="review" method="post" action="${action}">
            <input type="hidden" name="csrf" value="${input.csrf}">
            <input type="hidden" name="action" value="reject">
            <label for="reason">Reason for rejecting (the owner sees it)</label>
            <textarea id="reason" name="reason" rows="3" maxlength="2000" required></textarea>
            <div><button type="submit" class="reject">Reject</button></div>
          </form>
        </div>
      `
      : ""
  }`;
}

/** A message page (refusals, results), with a way on. */
export function messageView(input: {
  title: string;
  text: string;
  kind: "ok" | "error";
  link?: { href: string; label: string };
}): Html {
  return html`<h1>${input.title}</h1>
<p class="notice ${input.kind}" role="${
    input.kind === "error" ? "alert" : "status"
  }">${input.text}</p>
<p>${
    input.link
      ? html`
        <a href="${input.link.href}">${input.link.label}</a> ·
      `
      : ""
  }<a href="/">The queue</a></p>`;
}
