/**
 * writeSetting(): every refusal names the setting, what was wrong and the values it
 * accepts; good values are stored normalised.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ObservalError } from "../../lib/core/mod.ts";
import { readSettings, writeSetting } from "../../lib/server/mod.ts";
import { cli } from "../support/cli.ts";
import { startRegistry } from "../support/registry.ts";

function refusal(fn: () => unknown): ObservalError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ObservalError, String(err));
    return err;
  }
  assert.fail("expected a refusal");
}

const badHosts: Array<[value: string, why: RegExp]> = [
  ["https://agents.corp.example", /has a scheme \(https:\/\/\); give the host alone/],
  ["agents.corp.example/card", /has a path/],
  ["agents.corp.example:8443", /has a port \(:8443\)/],
  ["[::1]:8080", /has a port/],
  ["*.corp.example", /is a wildcard/],
  ["agents corp.example", /contains a space/],
  ["me@agents.corp.example", /has a user name/],
  ["10.0.0.0/8", /is an address range/],
  ["127.1", /not a valid IPv4 address/],
  ["fe80::zz", /not a valid IPv6 address/],
  ["bad!host", /not a host name/],
  ["169.254.169.254", /cloud metadata service/],
  ["metadata.google.internal", /cloud metadata service/],
  ["ok.example,https://x.example", /"https:\/\/x.example" has a scheme/],
];

Deno.test("writeSetting() refuses a2a_private_hosts entries that are not bare hosts", async () => {
  const reg = await startRegistry();
  try {
    for (const [value, why] of badHosts) {
      const err = refusal(() => writeSetting(reg.state.db, "discovery.a2a_private_hosts", value));
      assert.equal(err.code, "INVALID_ARGUMENT", value);
      assert.match(err.message, /^Invalid value for discovery\.a2a_private_hosts: /, value);
      assert.match(err.message, why, value);
      assert.match(err.remediation ?? "", /host names or IP addresses .*e\.g\. /, value);
    }
    assert.deepEqual(reg.state.settings()["discovery.a2a_private_hosts"], [], "nothing stored");
  } finally {
    await reg.close();
  }
});

Deno.test("writeSetting() stores good a2a_private_hosts lower-cased and without brackets", async () => {
  const reg = await startRegistry();
  try {
    const stored = writeSetting(
      reg.state.db,
      "discovery.a2a_private_hosts",
      " Agents.Corp.Example, 10.1.2.3,[::1], localhost,127.0.0.1,, host_1.lan. ",
    );
    const expected = [
      "agents.corp.example",
      "10.1.2.3",
      "::1",
      "localhost",
      "127.0.0.1",
      "host_1.lan",
    ];
    assert.deepEqual(stored, expected);
    assert.deepEqual(reg.state.settings()["discovery.a2a_private_hosts"], expected);
    assert.deepEqual(writeSetting(reg.state.db, "discovery.a2a_private_hosts", ["a.example"]), [
      "a.example",
    ]);
    assert.deepEqual(writeSetting(reg.state.db, "discovery.a2a_private_hosts", ""), []);
  } finally {
    await reg.close();
  }
});

Deno.test("writeSetting() accepts exactly true or false for boolean settings", async () => {
  const reg = await startRegistry();
  try {
    for (const key of ["deployment.public_registry_enabled", "discovery.delegation_enabled"]) {
      for (const value of ["on", "off", "1", "0", "yes", "TRUE", 1, 0, null, ""]) {
        const err = refusal(() => writeSetting(reg.state.db, key, value));
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.ok(err.message.startsWith(`Invalid value for ${key}: `), err.message);
        assert.match(err.message, /use true or false/, `${key} ${value}`);
        assert.equal(err.remediation, `${key} accepts true or false`);
      }
      assert.equal(writeSetting(reg.state.db, key, "true"), true);
      assert.equal(writeSetting(reg.state.db, key, false), false);
      assert.equal(writeSetting(reg.state.db, key, "false"), false);
      assert.equal(writeSetting(reg.state.db, key, true), true);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("writeSetting() takes deployment.trusted_proxies as IP addresses and CIDR blocks", async () => {
  const reg = await startRegistry();
  try {
    assert.deepEqual(reg.state.settings()["deployment.trusted_proxies"], [], "default: none");
    const stored = writeSetting(
      reg.state.db,
      "deployment.trusted_proxies",
      "10.0.0.0/8, 192.0.2.10, 2001:DB8::/32,::1",
    );
    assert.deepEqual(stored, ["10.0.0.0/8", "192.0.2.10", "2001:db8::/32", "::1"]);
    for (
      const [value, why] of [
        ["proxy.corp.example", /is a host name/],
        ["10.0.0.0/33", /not an IP address or CIDR block/],
        ["10.0.0.1:8080", /has a port/],
        ["http://10.0.0.1", /has a scheme/],
        ["10.0.0.1 10.0.0.2", /contains a space/],
      ] as const
    ) {
      const err = refusal(() => writeSetting(reg.state.db, "deployment.trusted_proxies", value));
      assert.match(err.message, /^Invalid value for deployment\.trusted_proxies: /);
      assert.match(err.message, why, value);
      assert.match(err.remediation ?? "", /IP addresses or CIDR blocks .*e\.g\. 10\.0\.0\.0\/8/);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("readSettings() reads a stored value that breaks a newer rule as the default", async () => {
  const reg = await startRegistry();
  try {
    const put = reg.state.db.prepare("INSERT INTO settings(key, value) VALUES (?, ?)");
    put.run("discovery.a2a_private_hosts", JSON.stringify(["ok.example:8080"]));
    put.run("deployment.public_registry_enabled", JSON.stringify("on"));
    const settings = readSettings(reg.state.db);
    assert.deepEqual(settings["discovery.a2a_private_hosts"], []);
    assert.equal(settings["deployment.public_registry_enabled"], false);
  } finally {
    await reg.close();
  }
});

Deno.test("settings set refuses `on` over HTTP and on the command line, naming the values", async () => {
  const reg = await startRegistry();
  const home = mkdtempSync(join(tmpdir(), "observal-settings-"));
  try {
    const admin = reg.user("root", "admin").key;
    const res = await fetch(`${reg.url}/api/v1/admin/settings/deployment.public_registry_enabled`, {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ value: "on" }),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.errorCode, "INVALID_ARGUMENT");
    assert.match(body.message, /deployment\.public_registry_enabled: "on" is not accepted/);

    const env = { OBSERVAL_HOME: home, HOME: home };
    const out = await cli(["registry", "settings", "set", "discovery.delegation_enabled", "1"], {
      env,
    });
    assert.equal(out.code, 2, out.stderr);
    assert.match(
      out.stderr,
      /discovery\.delegation_enabled: "1" is not accepted; use true or false/,
    );
    const hosts = await cli([
      "registry",
      "settings",
      "set",
      "discovery.a2a_private_hosts",
      "http://agents.corp.example:8080",
    ], { env });
    assert.equal(hosts.code, 2, hosts.stderr);
    assert.match(hosts.stderr, /has a scheme \(http:\/\/\)/);
    assert.match(hosts.stderr, /e\.g\. agents\.corp\.example/);
    const good = await cli(
      ["registry", "settings", "set", "discovery.delegation_enabled", "false"],
      {
        env,
      },
    );
    assert.equal(good.code, 0, good.stderr);
  } finally {
    rmSync(home, { recursive: true, force: true });
    await reg.close();
  }
});
