/**
 * Test helpers for the method catalog: a valid request derived from an entry (every declared member filled
 * in), the member walk, and path-based edits. Kept apart from the validator so that the tests do not reuse
 * its logic.
 */
import type { MethodEntry, ParamSpec } from '../../src/domain/methods/catalog.ts';
import type { MethodContext } from '../../src/domain/methods/validate.ts';

export type Segment = string | number;

/** A valid value for a member, from its rules (members with a pattern carry their own `example`). */
export function exampleFor(spec: ParamSpec): unknown {
  if (spec.example !== undefined) return spec.example;
  if (spec.values) return spec.values[0];
  switch (spec.type) {
    case 'object':
      return Object.fromEntries((spec.members ?? []).map((m) => [m.name, exampleFor(m)]));
    case 'array':
      return spec.items ? [exampleFor(spec.items)] : [];
    case 'boolean':
      return true;
    case 'integer':
      return 1;
    case 'number':
      return spec.decimal ? '12.34' : spec.shape === 'N' ? '12' : 10.5;
    case 'url':
      return 'https://shop.example/item';
    case 'email':
      return 'payer@example.com';
    case 'date':
      return '1990-01-15';
    case 'datetime':
      return '2024-05-01T08:30:00Z';
    default:
      break;
  }
  if (spec.format === 'country' || spec.format === 'country-or-numeric') return 'BR';
  if (spec.format === 'currency') return 'EUR';
  if (spec.format === 'base64') return 'aGVsbG8=';
  return filler(spec, Math.max(spec.minLength ?? 1, 1));
}

/** A string of n characters of the member's shape (digits for N, letters for A, text otherwise). */
export function filler(spec: ParamSpec, n: number): string {
  return (spec.shape === 'N' ? '1' : spec.shape === 'A' ? 'A' : 'a').repeat(n);
}

const isRequestMember = (p: ParamSpec) => p.source === 'request';

/** parameters.<key> with every declared member (request fields excluded). */
export function validParameters(entry: MethodEntry): Record<string, unknown> {
  return Object.fromEntries(entry.params.filter((p) => !isRequestMember(p)).map((p) => [p.name, exampleFor(p)]));
}

/** The request fields the entry rules on, by Checkout path. */
export function validRequest(entry: MethodEntry): Record<string, unknown> {
  return Object.fromEntries(entry.params.filter(isRequestMember).map((p) => [p.name, exampleFor(p)]));
}

/** The strictest context: no page left to ask, a currency and a billing country the method accepts. */
export function validContext(entry: MethodEntry, overrides: Partial<MethodContext> = {}): MethodContext {
  const requiredIn = entry.params.find((p) => p.requiredIn)?.requiredIn?.[0];
  const currency = entry.currencies?.[0] ?? (entry.currencyKind === 'crypto' ? 'BTC' : 'EUR');
  return { operation: entry.operations[0] ?? 'purchase', currency, billingCountry: requiredIn ?? 'BR', canCollect: false, request: validRequest(entry), ...overrides };
}

export interface WalkedMember {
  spec: ParamSpec;
  /** Segments inside parameters.<key> (or the request path for request members). */
  segments: Segment[];
  /** The error path suffix: `cart.items[0].price`. */
  path: string;
}

/** Every member, nested ones included (array items at index 0). */
export function walk(specs: readonly ParamSpec[], segments: Segment[] = [], path = ''): WalkedMember[] {
  return specs.flatMap((spec) => {
    const segs = [...segments, spec.name];
    const p = path ? `${path}.${spec.name}` : spec.name;
    const self: WalkedMember = { spec, segments: segs, path: p };
    if (spec.type === 'object' && spec.members) return [self, ...walk(spec.members, segs, p)];
    if (spec.type === 'array' && spec.items?.members) return [self, ...walk(spec.items.members, [...segs, 0], `${p}[0]`)];
    return [self];
  });
}

/** A deep copy with the value at `segments` replaced (undefined deletes it). */
export function withValue<T>(root: T, segments: readonly Segment[], value: unknown): T {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const seg of segments.slice(0, -1)) node = node[seg] as Record<string | number, unknown>;
  const last = segments[segments.length - 1] as Segment;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy as T;
}
