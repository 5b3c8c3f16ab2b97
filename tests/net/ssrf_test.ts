import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { type Requester, safeFetch, safeFetchJson } from "../../lib/net/mod.ts";
import { startServer } from "./_servers.ts";

/** What the injected resolver answers; any other name fails as NXDOMAIN. */
const DNS: Record<string, string[]> = {
  "agents.example.com": ["93.184.216.34"],
  "private.example.com": ["10.0.0.5"],
  "loopback.example.com": ["127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "cgnat.example.com": ["100.64.1.1"],
  "mixed.example.com": ["93.184.216.34", "10.0.0.1"],
  "mixed-late.example.com": ["93.184.216.34", "8.8.8.8", "192.168.0.10"],
  "mixed6.example.com": ["2606:4700::1", "::1"],
  "ula.example.com": ["fd00::1"],
  "linklocal6.example.com": ["fe80::1"],
  "scoped.example.com": ["fe80::1%eth0"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "nat64.example.com": ["64:ff9b::a00:1"],
  "sixtofour.example.com": ["2002:c0a8:101::1"],
  "garbage.example.com": ["not-an-address"],
  "empty.example.com": [],
};

function fakeResolve(name: string): Promise<string[]> {
  if (Object.hasOwn(DNS, name)) return Promise.resolve(DNS[name]);
  return Promise.reject(
    Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" }),
  );
}

const PRIVATE = /private|loopback|reserved|local-only|metadata/;
const SCHEME = /only http and https|Cannot parse|https is required/;
const CREDENTIALS = /user name or password/;
const DNS_FAILURE = /Cannot resolve/;

interface HostileCase {
  why: string;
  url: string;
  code: "UNSAFE_URL" | "NETWORK";
  message: RegExp;
}

const unsafe = (why: string, message: RegExp, urls: string[]): HostileCase[] =>
  urls.map((url) => ({ why, url, code: "UNSAFE_URL", message }));

const HOSTILE: HostileCase[] = [
  ...unsafe("a private or loopback IPv4 literal", PRIVATE, [
    "https://10.0.0.1/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://127.0.0.1/",
    "https://127.255.255.254:8443/card.json",
    "https://169.254.169.254/latest/meta-data/",
    "https://169.254.0.1/",
    "https://100.64.0.1/",
    "https://100.127.255.255/",
    "https://0.0.0.0/",
    "https://0.1.2.3/",
  ]),
  ...unsafe("a reserved, multicast or documentation IPv4 literal", PRIVATE, [
    "https://240.0.0.1/",
    "https://255.255.255.255/",
    "https://224.0.0.1/",
    "https://198.18.0.1/",
    "https://198.19.255.255/",
    "https://192.0.0.8/",
    "https://192.0.2.1/",
    "https://198.51.100.7/",
    "https://203.0.113.9/",
  ]),
  ...unsafe("a local or reserved IPv6 literal", PRIVATE, [
    "https://[::1]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::]/",
    "https://[fc00::1]/",
    "https://[fd12:3456:789a::1]/",
    "https://[fe80::1]/",
    "https://[febf::1]/",
    "https://[fec0::1]/",
    "https://[ff02::1]/",
    "https://[ff05::1:3]/",
    "https://[100::1]/",
    "https://[2001:db8::1]/",
    "https://[2001::1]/",
    "https://[64:ff9b:1::a00:1]/",
  ]),
  ...unsafe("an IPv6 form embedding a private IPv4", PRIVATE, [
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://[::ffff:0.0.0.0]/",
    "https://[::127.0.0.1]/",
    "https://[::c0a8:101]/",
    "https://[2002:7f00:1::]/",
    "https://[2002:a00:1::1]/",
    "https://[2002:a9fe:a9fe::1]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[64:ff9b::10.0.0.1]/",
    "https://[64:ff9b::a9fe:a9fe]/",
  ]),
  ...unsafe("a numeric IPv4 shorthand", PRIVATE, [
    "https://2130706433/",
    "https://0x7f.1/",
    "https://0177.0.0.1/",
    "https://127.1/",
    "https://0x7f000001/",
    "https://017700000001/",
    "https://10.1/",
    "https://0xa9.0xfe.0xa9.0xfe/",
    "https://3232235777/",
    "https://0/",
  ]),
  ...unsafe("a metadata or local-only host name", PRIVATE, [
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://metadata/",
    "https://metadata.goog/",
    "https://instance-data/latest/",
    "https://instance-data.ec2.internal/",
    "https://[fd00:ec2::254]/",
    "https://localhost/",
    "https://LOCALHOST./",
    "https://api.localhost/",
    "https://vault.internal/",
    "https://printer.local/",
    "https://intranet/",
  ]),
  ...unsafe("user info", CREDENTIALS, [
    "https://user:pass@agents.example.com/",
    "https://user@agents.example.com/",
    "https://:secret@agents.example.com/",
    "https://agents.example.com@127.0.0.1/",
  ]),
  ...unsafe("a non-http scheme", SCHEME, [
    "file:///etc/passwd",
    "ftp://agents.example.com/card.json",
    "gopher://127.0.0.1:6379/_INFO",
    "data:application/json,{}",
    "javascript:alert(1)",
    "ws://agents.example.com/",
    "dict://127.0.0.1:11211/stats",
    "//agents.example.com/card.json",
    "not a url",
  ]),
  ...unsafe("plain http to a public name", SCHEME, [
    "http://agents.example.com/.well-known/agent-card.json",
  ]),
  ...unsafe("a name resolving to a private address", PRIVATE, [
    "https://private.example.com/",
    "https://loopback.example.com/",
    "https://metadata.example.com/",
    "https://cgnat.example.com/",
    "https://mixed.example.com/",
    "https://mixed-late.example.com/",
    "https://mixed6.example.com/",
    "https://ula.example.com/",
    "https://linklocal6.example.com/",
    "https://scoped.example.com/",
    "https://mapped.example.com/",
    "https://nat64.example.com/",
    "https://sixtofour.example.com/",
    "https://garbage.example.com/",
  ]),
  {
    why: "a DNS failure",
    url: "https://missing.example.com/",
    code: "NETWORK",
    message: DNS_FAILURE,
  },
  {
    why: "an empty DNS answer",
    url: "https://empty.example.com/",
    code: "NETWORK",
    message: DNS_FAILURE,
  },
];

Deno.test("the hostile URL table holds at least 60 cases", () => {
  assert.ok(HOSTILE.length >= 60, `only ${HOSTILE.length} cases`);
});

for (const hostile of HOSTILE) {
  Deno.test(`safeFetch() refuses ${hostile.why}: ${hostile.url}`, async () => {
    const connects: unknown[] = [];
    const request: Requester = (req) => {
      connects.push(req);
      return Promise.reject(new Error("the request must not be made"));
    };
    await assert.rejects(
      safeFetch(hostile.url, { allowPrivateHosts: [], resolve: fakeResolve, request }),
      (err) => {
        assert.ok(err instanceof ObservalError, `not an ObservalError: ${err}`);
        assert.equal(err.code, hostile.code, err.message);
        assert.match(err.message, hostile.message);
        assert.ok((err.remediation ?? "").length > 10, "no remediation");
        if (hostile.message === PRIVATE) {
          assert.match(
            err.remediation!,
            /observal registry settings set discovery\.a2a_private_hosts/,
          );
        }
        return true;
      },
    );
    assert.equal(connects.length, 0);
  });
}

Deno.test("safeFetch() names the offending resolved address when one of several is private", async () => {
  await assert.rejects(
    safeFetch("https://mixed.example.com/", {
      allowPrivateHosts: [],
      resolve: fakeResolve,
      request: () => Promise.reject(new Error("unreachable")),
    }),
    /resolves to the private or reserved address 10\.0\.0\.1/,
  );
});

Deno.test("safeFetch() does not echo the password of a URL with credentials", async () => {
  await assert.rejects(
    safeFetch("https://alice:hunter2@agents.example.com/card", { allowPrivateHosts: [] }),
    (err) => {
      assert.ok(err instanceof ObservalError);
      assert.doesNotMatch(JSON.stringify(err.toJSON()), /hunter2|alice/);
      return true;
    },
  );
});

Deno.test("safeFetch() refuses credentials even for an allowlisted host", async () => {
  await assert.rejects(
    safeFetch("http://u:p@127.0.0.1:9/", { allowPrivateHosts: ["127.0.0.1"] }),
    (err) => err instanceof ObservalError && err.code === "UNSAFE_URL",
  );
});

Deno.test("safeFetchJson() refuses a redirect to an internal server without requesting it", async () => {
  const internal = await startServer((_req, res) => res.end('{"secret":true}'));
  const redirector = await startServer((_req, res) => {
    res.writeHead(302, { location: `${internal.origin}/secret` }).end();
  });
  try {
    const options = { allowPrivateHosts: ["127.0.0.1"] };
    await assert.rejects(safeFetchJson(`${redirector.origin}/card`, options), (err) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "NETWORK");
      assert.match(err.message, /returned HTTP 302/);
      assert.match(err.remediation ?? "", /Redirects are not followed/);
      return true;
    });
    // safeFetch itself hands the 3xx back rather than following it.
    const raw = await safeFetch(`${redirector.origin}/card`, options);
    assert.equal(raw.status, 302);
    assert.equal(redirector.requests.length, 2);
    assert.equal(internal.requests.length, 0);
  } finally {
    await redirector.close();
    await internal.close();
  }
});

Deno.test("safeFetchJson() does not follow a redirect from a public name to a metadata address", async () => {
  const seen: string[] = [];
  const request: Requester = (req) => {
    seen.push(req.url.href);
    return Promise.resolve({
      status: 301,
      headers: { location: "http://169.254.169.254/latest/meta-data/" },
      body: (async function* () {})(),
    });
  };
  await assert.rejects(
    safeFetchJson("https://agents.example.com/", {
      allowPrivateHosts: [],
      resolve: fakeResolve,
      request,
    }),
    /returned HTTP 301/,
  );
  assert.deepEqual(seen, ["https://agents.example.com/"]);
});

Deno.test("safeFetch() refuses a body larger than 256 KiB by default", async () => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = "x".repeat(16 * 1024);
    for (let i = 0; i < 20; i++) res.write(chunk); // 320 KiB, chunked, no Content-Length
    res.end();
  });
  try {
    await assert.rejects(
      safeFetch(`${server.origin}/big`, { allowPrivateHosts: ["127.0.0.1"] }),
      (err) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "NETWORK");
        assert.match(err.message, /larger than 256 KiB/);
        return true;
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() refuses a huge Content-Length before reading the body", async () => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-length": String(8 * 1024 * 1024 * 1024) });
    res.write("{"); // then nothing more: only the declared length can end this early
  });
  try {
    await assert.rejects(
      safeFetch(`${server.origin}/huge`, { allowPrivateHosts: ["127.0.0.1"], timeoutMs: 5_000 }),
      (err) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "NETWORK");
        assert.match(err.message, /larger than 256 KiB/);
        return true;
      },
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() times out a body trickled past timeoutMs", async () => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 50);
    res.on("close", () => clearInterval(timer));
  });
  try {
    const started = Date.now();
    await assert.rejects(
      safeFetch(`${server.origin}/slow`, { allowPrivateHosts: ["127.0.0.1"], timeoutMs: 300 }),
      (err) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "NETWORK");
        assert.match(err.message, /timed out after 300 ms/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5_000);
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() times out a server that never sends headers", async () => {
  const server = await startServer(() => {});
  try {
    await assert.rejects(
      safeFetch(`${server.origin}/`, { allowPrivateHosts: ["127.0.0.1"], timeoutMs: 300 }),
      /timed out after 300 ms/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() counts a DNS lookup that never answers against timeoutMs", async () => {
  await assert.rejects(
    safeFetch("https://agents.example.com/", {
      allowPrivateHosts: [],
      resolve: () => new Promise<string[]>(() => {}),
      request: () => Promise.reject(new Error("unreachable")),
      timeoutMs: 100,
    }),
    /timed out after 100 ms/,
  );
});

Deno.test("safeFetch() times out a requester that ignores the abort signal", async () => {
  const never = new Promise<never>(() => {});
  await assert.rejects(
    safeFetch("https://agents.example.com/", {
      allowPrivateHosts: [],
      resolve: fakeResolve,
      request: () =>
        Promise.resolve({
          status: 200,
          headers: {},
          body: { [Symbol.asyncIterator]: () => ({ next: () => never }) },
        }),
      timeoutMs: 100,
    }),
    /timed out after 100 ms/,
  );
});
