import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { pinAddress, resolveWithOverrides } from "../../lib/net/mod.ts";

const DNS: Record<string, string[]> = {
  "agents.example.com": ["93.184.216.34", "93.184.216.35"],
  "inside.example.com": ["93.184.216.34", "10.0.0.7"],
  "meta.example.com": ["169.254.169.254"],
};

function resolve(name: string): Promise<string[]> {
  return Object.hasOwn(DNS, name)
    ? Promise.resolve(DNS[name])
    : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${name}`));
}

function refused(pattern: RegExp, code = "UNSAFE_URL") {
  return (err: unknown) => {
    assert.ok(err instanceof ObservalError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, pattern);
    return true;
  };
}

Deno.test("pinAddress() pins a public name to its first checked address", async () => {
  const url = new URL("https://agents.example.com/a2a");
  assert.equal(await pinAddress(url, { allowPrivateHosts: [], resolve }), "93.184.216.34");
});

Deno.test("pinAddress() refuses a name when any of its addresses is private", async () => {
  await assert.rejects(
    pinAddress(new URL("https://inside.example.com/a2a"), { allowPrivateHosts: [], resolve }),
    refused(/resolves to the private or reserved address 10\.0\.0\.7/),
  );
  await assert.rejects(
    pinAddress(new URL("https://meta.example.com/a2a"), { allowPrivateHosts: [], resolve }),
    refused(/169\.254\.169\.254/),
  );
});

Deno.test("pinAddress() refuses private literals, local names and plain http unless allowlisted", async () => {
  for (
    const raw of [
      "https://10.1.2.3/",
      "https://[::1]/",
      "https://localhost/",
      "http://agents.example.com/",
    ]
  ) {
    await assert.rejects(
      pinAddress(new URL(raw), { allowPrivateHosts: [], resolve }),
      refused(/Refused/),
      raw,
    );
  }
  // An allowlisted host is trusted and connected as usual (no address to pin).
  assert.equal(
    await pinAddress(new URL("http://10.1.2.3:8080/"), { allowPrivateHosts: ["10.1.2.3"] }),
    undefined,
  );
});

Deno.test("pinAddress() refuses a metadata host even when it is allowlisted", async () => {
  for (const host of ["169.254.169.254", "metadata.google.internal", "[fd00:ec2::254]"]) {
    await assert.rejects(
      pinAddress(new URL(`http://${host}/latest`), {
        allowPrivateHosts: [host.replace(/^\[|\]$/g, "")],
      }),
      refused(/cloud metadata service/),
      host,
    );
  }
});

Deno.test("pinAddress() fails closed when the name does not resolve", async () => {
  await assert.rejects(
    pinAddress(new URL("https://missing.example.com/"), { allowPrivateHosts: [], resolve }),
    refused(/Cannot resolve the host missing\.example\.com/, "NETWORK"),
  );
});

Deno.test("resolveWithOverrides() answers listed names and asks the fallback for the rest", async () => {
  const asked: string[] = [];
  const fallback = (name: string) => {
    asked.push(name);
    return Promise.resolve(["93.184.216.34"]);
  };
  const r = resolveWithOverrides(
    " agent.test=127.0.0.1, AGENT.test=[::1] ,other.test=10.0.0.1",
    "OBSERVAL_A2A_RESOLVE",
    fallback,
  );
  assert.ok(r);
  assert.deepEqual(await r("agent.test"), ["127.0.0.1", "::1"]);
  assert.deepEqual(await r("Other.Test."), ["10.0.0.1"]);
  assert.deepEqual(await r("public.example"), ["93.184.216.34"]);
  assert.deepEqual(asked, ["public.example"]);
  assert.equal(resolveWithOverrides("  ", "X"), undefined);
  assert.equal(resolveWithOverrides(undefined, "X"), undefined);
});

Deno.test("resolveWithOverrides() refuses entries that are not host=address", () => {
  for (
    const spec of [
      "agent.test",
      "agent.test=",
      "=1.2.3.4",
      "agent.test=not-an-ip",
      "1.2.3.4=5.6.7.8",
    ]
  ) {
    assert.throws(
      () => resolveWithOverrides(spec, "OBSERVAL_A2A_RESOLVE"),
      (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, /OBSERVAL_A2A_RESOLVE has an entry that is not host=address/);
        return true;
      },
      spec,
    );
  }
});
