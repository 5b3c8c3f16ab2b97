/**
 * HTML for the review page: a tagged template that escapes every value it is given (card
 * fields are written by whoever publishes the card: hostile until shown otherwise), and
 * the page's frame with its one stylesheet.
 * @module
 */

/** Markup that is already safe; only {@linkcode html} makes it. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text made safe for an element's content or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (ch) => ESCAPES[ch]);
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * Markup from a template: interpolated values are escaped, unless they are {@linkcode Html}
 * (or arrays of it); `undefined`, `null` and `false` render as nothing.
 *
 * @example
 * ```ts
 * html`<p>${"<b>"}</p>`.text; // "<p>&lt;b&gt;</p>"
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d1d9e0;
  --accent: #0b5cad; --ok: #1a7f37; --bad: #b42318; --warn: #8a5a00; --add: #e6ffec; --del: #ffebe9; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --accent: #4493f8;
    --ok: #3fb950; --bad: #f85149; --warn: #d29922; --add: #12261e; --del: #25171c; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 60rem; margin: 0 auto; padding: 0.75rem 1rem; }
header { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center;
  justify-content: space-between; border-bottom: 1px solid var(--line); }
header .who { color: var(--muted); }
h1 { font-size: 1.4rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.25rem; overflow-wrap: anywhere; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible,
summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.25rem 0.5rem; }
ul.entries { list-style: none; padding: 0; margin: 0; }
ul.entries li { border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.75rem;
  margin: 0.5rem 0; overflow-wrap: anywhere; }
.meta { color: var(--muted); font-size: 0.9rem; }
.state { font-weight: 600; }
.state-approved { color: var(--ok); } .state-rejected { color: var(--bad); }
.state-pending { color: var(--warn); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
@media (max-width: 32rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: 0.4rem; } }
pre, code { font: 0.9rem/1.4 ui-monospace, monospace; }
p, li, code { overflow-wrap: anywhere; }
pre { background: color-mix(in srgb, var(--line) 25%, transparent); padding: 0.5rem;
  border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.diff span { display: block; } .diff .add { background: var(--add); }
.diff .del { background: var(--del); }
.notice { border-left: 4px solid var(--accent); padding: 0.5rem 0.75rem; margin: 1rem 0; }
.notice.error { border-color: var(--bad); } .notice.ok { border-color: var(--ok); }
form.review { display: flex; flex-direction: column; gap: 0.5rem; max-width: 36rem; }
.actions { display: flex; flex-wrap: wrap; gap: 1.5rem; margin-top: 1rem; }
.actions > form { flex: 1 1 16rem; }
label { font-weight: 600; }
input[type=password], textarea { font: inherit; padding: 0.4rem; width: 100%;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button { font: inherit; padding: 0.4rem 1rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--bg); color: var(--fg); cursor: pointer; }
button.approve { background: var(--ok); color: #fff; border-color: var(--ok); }
button.reject { background: var(--bad); color: #fff; border-color: var(--bad); }
button.link { border: 0; padding: 0; color: var(--accent); text-decoration: underline; }
`;

/** A whole page; `nonce` is the one the Content-Security-Policy lets the stylesheet use. */
export function layout(options: {
  title: string;
  nonce: string;
  body: Html;
  header?: Html;
}): string {
  return "<!doctype html>\n" + html`
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>${options.title} · Observal review</title>
        <style nonce="${options.nonce}">${new Html(STYLE)}</style>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header><a href="/">Observal review</a>${options.header}</header>
        <main id="main">
    ${options.body}
        </main>
      </body>
    </html>
  `.text;
}
