/**
 * Short builders for catalog entries, so that an entry reads like the spec's table it comes from.
 * They only fill in defaults (type string, source parameters); every rule stays visible in the entry.
 */
import type { ParamSpec } from './types.ts';

type Options = Partial<Omit<ParamSpec, 'name' | 'requirement'>>;
/** Supplied members are required of whoever supplies them unless the spec says optional. */
type SuppliedOptions = Partial<Omit<ParamSpec, 'name'>>;

export const required = (name: string, opts: Options = {}): ParamSpec => ({ name, type: 'string', requirement: 'required', ...opts });
export const conditional = (name: string, opts: Options = {}): ParamSpec => ({ name, type: 'string', requirement: 'conditional', ...opts });
export const optional = (name: string, opts: Options = {}): ParamSpec => ({ name, type: 'string', requirement: 'optional', ...opts });

/** Conditional and asked on the hosted page when the request lacks it (the spec's most common rule). */
export const onPage = (name: string, label: string, opts: Options = {}): ParamSpec => conditional(name, { collectOnPage: true, label, ...opts });

/** Documented fields that the merchant does not send in parameters (see ParamSource). */
export const fromRequest = (path: string, requirement: ParamSpec['requirement'], opts: Options = {}): ParamSpec => ({ name: path, type: 'string', requirement, source: 'request', ...opts });
export const fromMid = (name: string, note: string, opts: SuppliedOptions = {}): ParamSpec => ({ name, type: 'string', requirement: 'required', source: 'mid', note, ...opts });
export const fromGateway = (name: string, note: string, opts: SuppliedOptions = {}): ParamSpec => ({ name, type: 'string', requirement: 'required', source: 'gateway', note, ...opts });
export const fromPage = (name: string, note: string, opts: SuppliedOptions = {}): ParamSpec => ({ name, type: 'string', requirement: 'required', source: 'page', note, ...opts });

const UNSTATED = 'C in the spec, condition not stated: checked only when sent.';

/**
 * A member of the spec's coded tables (card set 6): `AN100` text up to 100, `N13` up to 13 digits, `A2`
 * exactly 2 letters, `N10.N2` a decimal with up to 10 integer and 2 fraction digits, `AN` text of any length.
 * Req is the table's column: C conditional (condition not stated), O optional.
 */
export function coded(name: string, code: string, req: 'C' | 'O', opts: Options = {}): ParamSpec {
  const m = /^(AN|N|A)(\d+)?(?:\.N(\d+))?$/.exec(code);
  if (!m) throw new Error(`bad shape code ${code} for ${name}`);
  const [, shape, size, fraction] = m;
  const n = size === undefined ? undefined : Number(size);
  const base: ParamSpec =
    fraction !== undefined
      ? { name, type: 'number', requirement: 'optional', decimal: { integer: n ?? 0, fraction: Number(fraction) } }
      : shape === 'A'
        ? { name, type: 'string', requirement: 'optional', shape: 'A', minLength: n, maxLength: n }
        : { name, type: 'string', requirement: 'optional', shape: shape as 'AN' | 'N', maxLength: n };
  const requirement = req === 'C' ? 'conditional' : 'optional';
  return { ...base, requirement, ...(req === 'C' && !opts.note ? { note: UNSTATED } : {}), ...opts };
}

/** An object member whose members follow. */
export const object = (name: string, requirement: ParamSpec['requirement'], members: readonly ParamSpec[], opts: Options = {}): ParamSpec => ({
  name,
  type: 'object',
  requirement,
  members,
  ...opts,
});

/** An array member whose items are objects with these members. */
export const arrayOf = (name: string, requirement: ParamSpec['requirement'], members: readonly ParamSpec[], opts: Options = {}): ParamSpec => ({
  name,
  type: 'array',
  requirement,
  items: { name: 'item', type: 'object', requirement: 'required', members },
  ...opts,
});

/** Puts members under one spec group (card sets), for the docs. */
export const inGroup = (group: string, params: readonly ParamSpec[]): ParamSpec[] => params.map((p) => ({ ...p, group }));
