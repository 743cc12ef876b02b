/**
 * Where the gateway may POST callbacks (SSRF). A payment's `callback_url` and a merchant's notification URL
 * must name a public host: no loopback, private, link-local (cloud metadata), CGNAT, ULA or reserved address
 * in any spelling the URL parser accepts (127.1, 2130706433, 0x7f000001, [::ffff:127.0.0.1]), no internal
 * name (localhost, metadata.google.internal, single-label intranet names). The same rule runs again at
 * delivery on the addresses the name resolves to (callback-http.ts), so a name rebinding to an internal
 * address is caught there. Hosts the operator lists (CALLBACK_ALLOWED_PRIVATE_HOSTS: on-premise merchants,
 * the test suite's local listeners) are exempt at both stages, and so is each whole URL the policy allows (the
 * demo merchant's notification URL outside production): that scheme, host, port and path only. Pure: no DNS here.
 */
import { isPrivateAddressUrl } from './callback-policy.ts';
import { MESSAGES } from './errors.ts';

export interface CallbackTargetPolicy {
  /** Host names or address literals (lower case, IPv6 without brackets) allowed although internal. */
  readonly allowedPrivateHosts: ReadonlySet<string>;
  /** Whole URLs (urlKey) allowed although internal. */
  readonly allowedUrls: ReadonlySet<string>;
}

export const PUBLIC_TARGETS_ONLY: CallbackTargetPolicy = { allowedPrivateHosts: new Set(), allowedUrls: new Set() };

/** The refusal names the setting that lets an operator allow an internal host (issue 31). */
export const PRIVATE_TARGET_MESSAGE = 'This URL must point to a public address (an operator allows an internal host with CALLBACK_ALLOWED_PRIVATE_HOSTS).';

/** Names that resolve to the inside of a network by convention, whatever DNS says. */
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home.arpa'];

/** The policy's host key of a URL: lower case, no trailing dot, IPv6 without brackets. */
export function hostKey(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
}

/** Host keys from an operator's list of hosts, blanks dropped. */
export const hostKeys = (hosts: readonly string[]): Set<string> => new Set(hosts.map((h) => hostKey(h.trim())).filter((h) => h !== ''));

/** The URL parsed, when it is one the gateway can call (http or https); undefined otherwise. */
export function httpUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The policy's key of a whole URL: the parser's normal form without the fragment. */
function urlKey(url: URL): string {
  return url.href.replace(/#.*$/, '');
}

/** True when the policy allows exactly this URL (scheme, host, port, path and query). */
export function isAllowedUrl(url: string, policy: CallbackTargetPolicy): boolean {
  try {
    return policy.allowedUrls.has(urlKey(new URL(url)));
  } catch {
    return false;
  }
}

/** A policy from `host1,host2` (an operator setting) and whole URLs allowed as they are. */
export function callbackTargetPolicy(allowed: readonly string[], allowedUrls: readonly string[] = []): CallbackTargetPolicy {
  const urls = allowedUrls.flatMap((u) => {
    try {
      return [urlKey(new URL(u))];
    } catch {
      return [];
    }
  });
  return { allowedPrivateHosts: hostKeys(allowed), allowedUrls: new Set(urls) };
}

function isInternalName(host: string): boolean {
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) return true;
  // A single-label name (no dot, not an IPv6 literal) is resolved by the gateway's own search domains.
  return !host.includes('.') && !host.includes(':');
}

/** Why the gateway must not POST to this URL, or undefined when it may. */
export function callbackUrlProblem(url: string, policy: CallbackTargetPolicy = PUBLIC_TARGETS_ONLY): string | undefined {
  const parsed = httpUrl(url);
  if (!parsed) return MESSAGES.notUrl;
  const host = hostKey(parsed.hostname);
  if (policy.allowedPrivateHosts.has(host) || policy.allowedUrls.has(urlKey(parsed))) return undefined;
  if (isPrivateAddressUrl(parsed.href) || isInternalName(host)) return PRIVATE_TARGET_MESSAGE;
  return undefined;
}
