/**
 * Callback delivery rules (decisions D7), as data and pure functions: the retry schedule, the URL block rule,
 * what counts as delivered, and an SSRF helper for the merchant settings validator.
 */

export type CallbackProtocol = 'checkout' | 's2s';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The platform publishes no schedule, so this one is ours (D7): about a day in total, then failed. */
export const CALLBACK_RETRY_SCHEDULE: readonly { readonly delayMs: number; readonly times: number }[] = [
  { delayMs: 1 * MINUTE, times: 1 },
  { delayMs: 5 * MINUTE, times: 2 },
  { delayMs: 10 * MINUTE, times: 5 },
  { delayMs: 1 * HOUR, times: 5 },
  { delayMs: 6 * HOUR, times: 3 },
];

/** The schedule unrolled: entry i is the wait after attempt i + 1 failed. */
export const CALLBACK_RETRY_DELAYS_MS: readonly number[] = CALLBACK_RETRY_SCHEDULE.flatMap(({ delayMs, times }) =>
  Array.from({ length: times }, () => delayMs),
);

/** The first attempt plus one per retry. */
export const CALLBACK_MAX_ATTEMPTS = 1 + CALLBACK_RETRY_DELAYS_MS.length;

/**
 * How long to wait before the next attempt, given how many attempts were made already;
 * undefined when the schedule is exhausted and the callback is failed.
 */
export function nextAttemptDelay(attemptsSoFar: number): number | undefined {
  if (attemptsSoFar <= 0) return 0;
  return CALLBACK_RETRY_DELAYS_MS[attemptsSoFar - 1];
}

/** Five timeouts of one URL within five minutes block it for fifteen minutes, for every merchant (D7). */
export const URL_BLOCK_RULE = { timeouts: 5, windowMs: 5 * MINUTE, blockMs: 15 * MINUTE } as const;

/** What the block rule remembers about one URL. */
export interface UrlHealth {
  /** Timeout instants still inside the window (at most URL_BLOCK_RULE.timeouts of them). */
  readonly timeouts: readonly Date[];
  readonly blockedUntil: Date | null;
}

export const HEALTHY_URL: UrlHealth = { timeouts: [], blockedUntil: null };

/** Timeouts at most windowMs before `now` (both ends of the five minutes count). */
export function timeoutsInWindow(timeouts: readonly Date[], now: Date): Date[] {
  const from = now.getTime() - URL_BLOCK_RULE.windowMs;
  return timeouts.filter((t) => t.getTime() >= from && t.getTime() <= now.getTime());
}

/** Adds a timeout at `at`; the fifth in the window blocks the URL (`justBlocked`) and starts a fresh count. */
export function afterTimeout(health: UrlHealth, at: Date): UrlHealth & { justBlocked: boolean } {
  const timeouts = [...timeoutsInWindow(health.timeouts, at), at];
  if (timeouts.length < URL_BLOCK_RULE.timeouts) {
    return { timeouts, blockedUntil: health.blockedUntil, justBlocked: false };
  }
  const until = new Date(at.getTime() + URL_BLOCK_RULE.blockMs);
  const blockedUntil = health.blockedUntil && health.blockedUntil > until ? health.blockedUntil : until;
  return { timeouts: [], blockedUntil, justBlocked: true };
}

/** A successful delivery resets the count; a block already set runs its course. */
export function afterSuccess(health: UrlHealth): UrlHealth {
  return { timeouts: [], blockedUntil: health.blockedUntil };
}

export function isUrlBlocked(health: Pick<UrlHealth, 'blockedUntil'>, now: Date): boolean {
  return health.blockedUntil !== null && health.blockedUntil.getTime() > now.getTime();
}

/** Checkout: any 2xx. S2S: a 2xx whose body is `OK` (trimmed, any case). */
export function isDelivered(protocol: CallbackProtocol, httpStatus: number, body: string): boolean {
  const is2xx = httpStatus >= 200 && httpStatus <= 299;
  if (protocol === 'checkout') return is2xx;
  return is2xx && body.trim().toUpperCase() === 'OK';
}

export type AttemptOutcome = 'delivered' | 'redirect' | 'http_error' | 'not_ok_body' | 'timeout' | 'network_error';

/** Names what an answered POST means, for the attempt log. Redirects are never followed (D7: a failure). */
export function responseOutcome(protocol: CallbackProtocol, httpStatus: number, body: string): AttemptOutcome {
  if (isDelivered(protocol, httpStatus, body)) return 'delivered';
  if (httpStatus >= 300 && httpStatus <= 399) return 'redirect';
  if (httpStatus >= 200 && httpStatus <= 299) return 'not_ok_body';
  return 'http_error';
}

// ---- SSRF: internal addresses (callback-targets.ts applies them to callback URLs) ----

type Cidr4 = readonly [number, number];
const PRIVATE_IPV4: readonly Cidr4[] = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // IETF protocol assignments
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // benchmarking
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved and broadcast
];

function ipv4ToInt(host: string): number | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

function isPrivateIpv4(ip: number): boolean {
  return PRIVATE_IPV4.some(([base, bits]) => Math.floor(ip / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/** Eight 16-bit groups of a (URL-normalised, so hex-only) IPv6 address. */
function ipv6Groups(host: string): number[] | undefined {
  const [head = '', tail, extra] = host.split('::');
  if (extra !== undefined) return undefined;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<number>(Math.max(fill, 0)).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const ipv4At = (hi: number, lo: number): number => hi * 65536 + lo;
const zeros = (g: readonly number[], from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);

/**
 * Every IPv6 form that carries an IPv4 address, and where it carries it: the rule decides on the IPv4 address,
 * so `[::127.0.0.1]`, `[::ffff:0:7f00:1]` or `[2002:7f00:1::]` are loopback as `127.0.0.1` is. A form that
 * carries two (Teredo: server and client) is internal when either is.
 */
const EMBEDDED_IPV4: readonly { readonly form: string; matches(g: readonly number[]): boolean; ipv4s(g: readonly number[]): number[] }[] = [
  // ::a.b.c.d (deprecated IPv4-compatible; :: and ::1 are 0.0.0.0 and 0.0.0.1, both in "this" network)
  { form: 'IPv4-compatible', matches: (g) => zeros(g, 0, 6), ipv4s: (g) => [ipv4At(g[6]!, g[7]!)] },
  { form: 'IPv4-mapped ::ffff:0:0/96', matches: (g) => zeros(g, 0, 5) && g[5] === 0xffff, ipv4s: (g) => [ipv4At(g[6]!, g[7]!)] },
  { form: 'IPv4-translated ::ffff:0:0:0/96', matches: (g) => zeros(g, 0, 4) && g[4] === 0xffff && g[5] === 0, ipv4s: (g) => [ipv4At(g[6]!, g[7]!)] },
  { form: 'NAT64 64:ff9b::/96', matches: (g) => g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6), ipv4s: (g) => [ipv4At(g[6]!, g[7]!)] },
  { form: '6to4 2002::/16', matches: (g) => g[0] === 0x2002, ipv4s: (g) => [ipv4At(g[1]!, g[2]!)] },
  // Teredo: the server in the clear, the client's address inverted.
  { form: 'Teredo 2001::/32', matches: (g) => g[0] === 0x2001 && g[1] === 0, ipv4s: (g) => [ipv4At(g[2]!, g[3]!), ipv4At(g[6]! ^ 0xffff, g[7]! ^ 0xffff)] },
  // ISATAP interface identifier: ::0:5efe:a.b.c.d or ::200:5efe:a.b.c.d under any prefix.
  { form: 'ISATAP', matches: (g) => (g[4]! & 0xfdff) === 0 && g[5] === 0x5efe, ipv4s: (g) => [ipv4At(g[6]!, g[7]!)] },
];

/** IPv6 ranges internal by themselves: [first group, mask of the first group]. */
const PRIVATE_IPV6: readonly (readonly [number, number])[] = [
  [0xfc00, 0xfe00], // unique local fc00::/7
  [0xfe80, 0xffc0], // link-local fe80::/10
  [0xfec0, 0xffc0], // site-local fec0::/10 (deprecated, still routed inside some networks)
  [0xff00, 0xff00], // multicast
];

function isPrivateIpv6(g: number[]): boolean {
  const g0 = g[0]!;
  if (PRIVATE_IPV6.some(([base, mask]) => (g0 & mask) === base)) return true;
  if (g0 === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // local-use NAT64 64:ff9b:1::/48: translates to anywhere inside
  return EMBEDDED_IPV4.some((form) => form.matches(g) && form.ipv4s(g).some(isPrivateIpv4));
}

/**
 * True when the URL points at a loopback, private, link-local or otherwise internal address literal, or at
 * localhost. No DNS lookup (pure): a public name that resolves to a private address needs a check at connect
 * time too. Unparseable URLs count as private, so a validator using this fails closed.
 */
export function isPrivateAddressUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return true;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups === undefined || isPrivateIpv6(groups);
  }
  const v4 = ipv4ToInt(host);
  return v4 !== undefined && isPrivateIpv4(v4);
}

/**
 * True when a resolved address (IPv4 dotted or IPv6 text, as DNS answers it) is loopback, private,
 * link-local, CGNAT, ULA, multicast, reserved or an IPv4-mapped form of one. Unparseable counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  return isPrivateAddressUrl(address.includes(':') ? `http://[${address.replace(/%.*$/, '')}]/` : `http://${address}/`);
}
