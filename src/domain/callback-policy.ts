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

function isPrivateIpv6(g: number[]): boolean {
  const [g0 = 0, , , , , g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g.slice(0, 5).every((x) => x === 0);
  if (upperZero && g5 === 0xffff) return isPrivateIpv4(g6 * 65536 + g7); // IPv4-mapped
  if (upperZero && g5 === 0 && g6 === 0 && g7 <= 1) return true; // :: and ::1
  if (g0 === 0x64 && g[1] === 0xff9b) return isPrivateIpv4(g6 * 65536 + g7); // NAT64
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xff00) === 0xff00; // ULA, link-local, multicast
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
