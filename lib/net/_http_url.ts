import { ObservalError } from "../core/mod.ts";

/**
 * Parses an http(s) URL that carries no user info and drops its fragment. Everything
 * else (other schemes, no host, credentials, unparseable text) is refused as UNSAFE_URL.
 */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ObservalError("UNSAFE_URL", `Cannot parse "${clip(raw)}" as a URL`, {
      remediation: "Give an absolute https:// URL, e.g. https://agents.example.com",
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ObservalError(
      "UNSAFE_URL",
      `Refused a "${url.protocol}" URL: only http and https URLs can be fetched`,
      { remediation: "Give an https:// URL", resource: clip(raw) },
    );
  }
  if (url.hostname === "") {
    throw new ObservalError("UNSAFE_URL", `The URL "${clip(raw)}" has no host`, {
      remediation: "Give an absolute https:// URL with a host name",
    });
  }
  if (url.username !== "" || url.password !== "") {
    url.username = "";
    url.password = "";
    url.hash = "";
    // The message names the URL without the credentials, so they are not echoed back.
    throw new ObservalError("UNSAFE_URL", `Refused a URL carrying a user name or password`, {
      remediation: `Remove the "user:password@" part and use ${url.href}`,
      resource: url.href,
    });
  }
  url.hash = "";
  return url;
}

/** Shortens text for a message, so hostile input cannot flood the terminal. */
export function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
