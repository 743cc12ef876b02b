/**
 * Parameters a payout takes from elsewhere than parameters.<method>: the session's payee (payee_first_name,
 * payee_last_name, payee.email, ...), and the MID the payment routes to (account_uuid, fee_calculation_method,
 * and the members a MID may set instead of the request). Pure: the catalog says which member comes from where.
 */
import type { MethodEntry, ParamSpec, PayeeField } from './types.ts';

type Obj = Record<string, unknown>;

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** The parameters with the payee's values filled in where the catalog names one and the request sent none. */
export function withPayeeValues(entry: MethodEntry, params: Readonly<Obj>, payee: Readonly<Partial<Record<PayeeField, string>>>): Obj {
  const out: Obj = { ...params };
  for (const spec of entry.params) {
    const value = spec.payee && payee[spec.payee];
    if (value && (spec.source ?? 'parameters') === 'parameters' && absent(out[spec.name])) out[spec.name] = value;
  }
  return out;
}

const fromMid = (spec: ParamSpec) => spec.source === 'mid' || spec.orMid === true;

/** A MID setting as a parameter value: scalars only (settings are flat scalars). */
const settingValue = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

/** A member the payout cannot go without: a required MID setting, or a member the request or the MID must give. */
const mandatory = (spec: ParamSpec) => (spec.source === 'mid' && spec.requirement === 'required') || spec.orMid === true;

/**
 * What the MID supplies: `values` the members it sets (or their defaults) that the request lacks, `missing` the
 * mandatory members neither the request nor the MID gives (the payout cannot go without them).
 */
export function midSupplied(entry: MethodEntry, params: Readonly<Obj>, settings: Readonly<Obj>): { values: Obj; missing: string[] } {
  const values: Obj = {};
  const missing: string[] = [];
  for (const spec of entry.params.filter(fromMid)) {
    if (spec.source !== 'mid' && !absent(params[spec.name])) continue;
    const value = settingValue(settings[spec.name]) ?? (spec.default === undefined ? undefined : String(spec.default));
    if (value !== undefined) values[spec.name] = value;
    else if (mandatory(spec)) missing.push(spec.name);
  }
  return { values, missing };
}

/** The decline reason of a payout stopped for `missing` members (midSupplied): where each could have come from. */
export function missingReason(entry: MethodEntry, missing: readonly string[]): string {
  const orMid = new Set(entry.params.filter((p) => p.orMid === true).map((p) => p.name));
  const midOnly = missing.filter((name) => !orMid.has(name));
  const either = missing.filter((name) => orMid.has(name));
  return [
    midOnly.length > 0 && `MID setting missing: ${midOnly.join(', ')}`,
    either.length > 0 && `Missing in the request and the MID settings: ${either.join(', ')}`,
  ].filter(Boolean).join('; ');
}

export interface MidSettingRule {
  values?: readonly string[];
  pattern?: string;
}

/** MID settings that a method of the catalog reads, with the values or the shape it allows (fee_calculation_method, branch_identifier). */
export function midSettingRules(entries: readonly MethodEntry[]): Map<string, MidSettingRule> {
  const rules = new Map<string, MidSettingRule>();
  for (const entry of entries) {
    for (const spec of entry.params.filter(fromMid)) {
      const known = rules.get(spec.name) ?? {};
      rules.set(spec.name, { ...known, ...(spec.values ? { values: spec.values } : {}), ...(spec.pattern ? { pattern: spec.pattern } : {}) });
    }
  }
  return rules;
}

/** Whether a MID setting fits what the methods reading it allow. */
export function fitsMidSetting(rule: MidSettingRule | undefined, value: unknown): boolean {
  if (!rule) return true;
  const text = String(value);
  return (!rule.values || rule.values.includes(text)) && (!rule.pattern || new RegExp(rule.pattern, 'u').test(text));
}
