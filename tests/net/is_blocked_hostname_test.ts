import assert from "node:assert/strict";
import { isBlockedHostname } from "../../lib/net/mod.ts";

const BLOCKED = [
  "localhost",
  "LOCALHOST",
  "localhost.",
  "app.localhost",
  "metadata",
  "metadata.google.internal",
  "Metadata.Google.Internal.",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "169.254.169.254",
  "fd00:ec2::254",
  "[fd00:ec2::254]",
  "anything.internal",
  "nas.local",
  "router.home.arpa",
  "intranet",
  // Numeric shorthands a WHATWG URL turns into IPv4.
  "2130706433",
  "0x7f.1",
  "0177.0.0.1",
  "127.1",
  "0x7f000001",
  "0",
  "10.1",
  "192.168.257",
  // Not a host on its own.
  "",
  "example.com:443",
  "user@example.com",
  "example.com/path",
  "exa mple.com",
  "1.2.3.256",
  "[::1",
];

const ALLOWED = [
  "agents.example.com",
  "Agents.Example.COM",
  "example.com.",
  "8.8.8.8",
  "134744072", // 8.8.8.8 as one number
  "2606:4700::1",
  "[2606:4700::1]",
  "xn--bcher-kva.example",
  "bücher.example",
];

for (const host of BLOCKED) {
  Deno.test(`isBlockedHostname() blocks ${JSON.stringify(host)}`, () => {
    assert.equal(isBlockedHostname(host), true);
  });
}

for (const host of ALLOWED) {
  Deno.test(`isBlockedHostname() allows ${JSON.stringify(host)}`, () => {
    assert.equal(isBlockedHostname(host), false);
  });
}
