/** The review page's escaper and line diff, on their own. */
import assert from "node:assert/strict";
import { escapeHtml, Html, html } from "../../lib/server/review_page/html.ts";
import { canonicalJson, lineDiff } from "../../lib/server/review_page/line_diff.ts";

Deno.test("html escapes every interpolated value, in text and in quoted attributes", () => {
  const hostile = `"><script>alert('x')</script>&\``;
  const out = html`<p title="${hostile}">${hostile}</p>`.text;
  assert.equal(
    out,
    `<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;">` +
      `&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;</p>`,
  );
  assert.equal(escapeHtml("a<b"), "a&lt;b");
});

Deno.test("html keeps its own markup, joins arrays and drops undefined, null and false", () => {
  const items = ["<a>", "b"].map((x) => html`<li>${x}</li>`);
  assert.equal(
    html`<ul>${items}</ul>${undefined}${null}${false}${0}`.text,
    "<ul><li>&lt;a&gt;</li><li>b</li></ul>0",
  );
  // Only html makes Html: a plain string that looks like markup is escaped.
  assert.ok(html`x` instanceof Html);
  assert.equal(html`${"<i>"}`.text, "&lt;i&gt;");
});

Deno.test("canonicalJson sorts keys at every depth", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } }),
    canonicalJson({
      a: { c: 3, d: [{ y: 2, z: 1 }] },
      b: 1,
    }),
  );
  assert.equal(canonicalJson({ b: 1, a: 2 }), '{\n  "a": 2,\n  "b": 1\n}');
});

Deno.test("lineDiff marks removed and added lines and keeps the rest", () => {
  const diff = lineDiff("a\nb\nc\nd", "a\nc\nx\nd");
  assert.deepEqual(diff, [
    { op: " ", text: "a" },
    { op: "-", text: "b" },
    { op: " ", text: "c" },
    { op: "+", text: "x" },
    { op: " ", text: "d" },
  ]);
  assert.deepEqual(lineDiff("same", "same"), [{ op: " ", text: "same" }]);
  assert.deepEqual(lineDiff("", "new"), [{ op: "-", text: "" }, { op: "+", text: "new" }]);
});

Deno.test("lineDiff declines documents too long to compare", () => {
  const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join("\n");
  const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join("\n");
  assert.equal(lineDiff(a, b), undefined);
});
