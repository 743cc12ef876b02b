/**
 * IP addresses for the risk engine (issue 26): an address or a CIDR block as a number range, and the IP-to-country
 * table. Like the BIN table, the gateway fetches nothing: the table is the small sample below unless the operator
 * gives a file of their own (IP_COUNTRY_FILE, read at start-up). IPv4 and IPv6 live in separate number spaces
 * (an IPv4 address is never inside an IPv6 block, IPv4-mapped IPv6 addresses are read as IPv4).
 */
import { isIP } from 'node:net';
import { isCountryCode } from '../countries.ts';

export interface IpValue {
  version: 4 | 6;
  value: bigint;
}

/** An inclusive range of one IP version. */
export interface IpRange {
  version: 4 | 6;
  from: bigint;
  to: bigint;
}

function v4(text: string): bigint {
  let n = 0n;
  for (const part of text.split('.')) n = (n << 8n) + BigInt(Number(part));
  return n;
}

function v6(text: string): IpValue {
  const mapped = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped && /^::ffff:$/i.test(mapped[1]!)) return { version: 4, value: v4(mapped[2]!) };
  let body = text;
  let tail: bigint | undefined;
  if (mapped) {
    body = `${mapped[1]!}0:0`;
    tail = v4(mapped[2]!);
  }
  const [head = '', rest] = body.split('::');
  const left = head ? head.split(':') : [];
  const right = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  let n = 0n;
  for (const g of groups) n = (n << 16n) + BigInt(parseInt(g, 16));
  if (tail !== undefined) n = (n & ~0xffffffffn) | tail;
  return { version: 6, value: n };
}

/** An address as a number, or undefined when the text is no IP address. */
export function parseIp(text: string | undefined): IpValue | undefined {
  if (!text) return undefined;
  const kind = isIP(text);
  if (kind === 4) return { version: 4, value: v4(text) };
  if (kind === 6) return v6(text);
  return undefined;
}

/** "203.0.113.0/24", "2001:db8::/32" or a single address -> its range; undefined when not valid. */
export function parseCidr(text: string): IpRange | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const width = ip.version === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(width) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > width) return undefined;
  const hostBits = BigInt(width - prefix);
  const from = (ip.value >> hostBits) << hostBits;
  return { version: ip.version, from, to: from + (1n << hostBits) - 1n };
}

export const isCidr = (text: string): boolean => parseCidr(text) !== undefined;

export const ipWithin = (ip: IpValue | undefined, range: IpRange): boolean =>
  ip !== undefined && ip.version === range.version && ip.value >= range.from && ip.value <= range.to;

export interface IpCountryRange extends IpRange {
  country: string;
}

/**
 * The built-in sample: documentation ranges (RFC 5737, RFC 3849) given countries of the sandbox's own choice, so
 * tests and demos can exercise IP-country rules. They say nothing about real networks.
 */
export const SAMPLE_IP_COUNTRIES: readonly { cidr: string; country: string }[] = [
  { cidr: '192.0.2.0/24', country: 'US' },
  { cidr: '198.51.100.0/24', country: 'GB' },
  { cidr: '203.0.113.0/24', country: 'DE' },
  { cidr: '2001:db8::/32', country: 'NL' },
];

export class IpCountryTable {
  /** Narrowest first, so a file can carve a smaller block out of a larger one. */
  private readonly ranges: readonly IpCountryRange[];

  constructor(ranges: readonly IpCountryRange[]) {
    this.ranges = [...ranges].sort((a, b) => (a.to - a.from < b.to - b.from ? -1 : a.to - a.from > b.to - b.from ? 1 : 0));
  }

  get size(): number {
    return this.ranges.length;
  }

  country(ip: IpValue | undefined): string | undefined {
    if (!ip) return undefined;
    for (const r of this.ranges) if (ipWithin(ip, r)) return r.country;
    return undefined;
  }
}

/** Checks a table as read from a file ([{cidr, country}] or {"ranges": [...]}): every problem with its position. */
export function parseIpCountries(value: unknown): { table: IpCountryTable } | { problems: string[] } {
  const list = Array.isArray(value) ? value : (value as { ranges?: unknown } | null)?.ranges;
  if (!Array.isArray(list)) return { problems: ['expected a JSON array of {cidr, country} (or {"ranges": [...]})'] };
  const problems: string[] = [];
  const ranges: IpCountryRange[] = [];
  for (const [i, entry] of list.entries()) {
    const e = entry as { cidr?: unknown; country?: unknown } | null;
    const range = typeof e?.cidr === 'string' ? parseCidr(e.cidr) : undefined;
    if (!range) problems.push(`[${i}]: cidr should be an IPv4 or IPv6 address or block (203.0.113.0/24)`);
    else if (typeof e?.country !== 'string' || !isCountryCode(e.country)) problems.push(`[${i}]: country should be an ISO 3166-1 alpha-2 code`);
    else ranges.push({ ...range, country: e.country });
  }
  return problems.length > 0 ? { problems } : { table: new IpCountryTable(ranges) };
}

export const SAMPLE_IP_TABLE = new IpCountryTable(SAMPLE_IP_COUNTRIES.map((r) => ({ ...parseCidr(r.cidr)!, country: r.country })));

/** Parsed CIDR lists, per list object: a rule's `ips` or a merchant's allowed addresses parsed once, not per request. */
const parsedLists = new WeakMap<readonly string[], IpRange[]>();

/** The ranges of a list of CIDRs (unparseable entries left out; lists are validated when saved). */
export function cidrRanges(list: readonly string[]): IpRange[] {
  let ranges = parsedLists.get(list);
  if (!ranges) {
    ranges = list.map(parseCidr).filter((r): r is IpRange => r !== undefined);
    parsedLists.set(list, ranges);
  }
  return ranges;
}
