/**
 * Table-driven over the whole catalog: for every method a valid request passes, and each declared required,
 * length, type, format, pattern and allowed-value rule refuses a bad value on the right path with the right
 * message. The cases are generated from the entries; test/methods/spec-cases.test.ts holds the hand-written
 * rows from the spec text that keep this from being circular.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_LIST, type MethodEntry, type ParamSpec } from '../../src/domain/methods/catalog.ts';
import { validateMethodParameters, type MethodContext } from '../../src/domain/methods/validate.ts';
import { MESSAGES, type FieldError } from '../../src/domain/errors.ts';
import { filler, validContext, validParameters, walk, withValue, type WalkedMember } from './support.ts';

interface Case {
  name: string;
  value: unknown;
  /** Replaces the member's value in the valid request (undefined removes it). */
  field: string;
  /** Expected message on `field`; undefined: the request passes. */
  message?: string;
  ctx?: Partial<MethodContext>;
}

const SUPPLIED = new Set(['mid', 'gateway', 'page']);

/** What an absent member must give under the strictest context (no page left to ask). */
function absentMessage(entry: MethodEntry, spec: ParamSpec, country: string): string | undefined {
  if (spec.source && SUPPLIED.has(spec.source)) return undefined;
  if (spec.exemptIn?.includes(country)) return undefined;
  if (spec.requiredIn && !spec.requiredIn.includes(country)) return undefined;
  const inSet = (entry.rules ?? []).some((r) => r.kind === 'allOrNone' && r.members.includes(spec.name));
  const needed = spec.requirement === 'required' || (spec.requirement === 'conditional' && (spec.collectOnPage || spec.requiredIn !== undefined)) || inSet;
  return needed ? MESSAGES.blank : undefined;
}

/** A value of the wrong JSON type and the message it must give. */
function wrongType(spec: ParamSpec): [unknown, string] {
  switch (spec.type) {
    case 'number':
      return ['abc', MESSAGES.notType('numeric')];
    case 'integer':
      return ['1.5', MESSAGES.notType('integer')];
    case 'boolean':
      return ['maybe', MESSAGES.notType('bool')];
    case 'object':
    case 'array':
      return ['text', MESSAGES.notType('array')];
    default:
      return [{ nested: true }, MESSAGES.notType('string')];
  }
}

/** A wrong value of the right length and shape for a member with allowed values. */
function notAChoice(values: readonly string[]): string {
  const first = values[0] as string;
  const candidate = /^\d+$/.test(first) ? '9'.repeat(first.length) : 'ZZ';
  assert.ok(!values.includes(candidate));
  return candidate;
}

const FORMAT_CASES: Record<string, [string, string]> = {
  url: ['not a url', MESSAGES.notUrl],
  email: ['not-an-email', MESSAGES.notEmail],
  date: ['2024-13-45', MESSAGES.notDate],
  datetime: ['2024-05-01 08:30:00', MESSAGES.notDatetime],
  country: ['QQ', MESSAGES.notCountry],
  'country-or-numeric': ['QQ', MESSAGES.notCountry],
  currency: ['euro', MESSAGES.notCurrency],
  base64: ['abc', MESSAGES.notValid],
};

function memberCases(entry: MethodEntry, m: WalkedMember, country: string): Case[] {
  const { spec, path } = m;
  const cases: Case[] = [];
  const absent = absentMessage(entry, spec, country);
  cases.push({ name: `${path} absent`, field: path, value: undefined, message: absent });
  if (spec.collectOnPage) cases.push({ name: `${path} absent, the page asks`, field: path, value: undefined, ctx: { canCollect: true } });
  const [bad, typeMessage] = wrongType(spec);
  cases.push({ name: `${path} wrong type`, field: path, value: bad, message: typeMessage });
  if (spec.type === 'object' || spec.type === 'array' || spec.type === 'boolean') return cases;
  const { minLength: min, maxLength: max } = spec;
  if (min !== undefined && min === max) {
    cases.push({ name: `${path} length ${min + 1}`, field: path, value: filler(spec, min + 1), message: MESSAGES.exactLength(min) });
  } else {
    if (max !== undefined) cases.push({ name: `${path} length ${max + 1}`, field: path, value: filler(spec, max + 1), message: MESSAGES.tooLong(max) });
    if (min !== undefined && min > 1) cases.push({ name: `${path} length ${min - 1}`, field: path, value: filler(spec, min - 1), message: MESSAGES.tooShort(min) });
  }
  // Typed members (number) refuse letters by their type already.
  if (spec.shape === 'N' && spec.type === 'string') cases.push({ name: `${path} not digits`, field: path, value: 'a'.repeat(min ?? 1), message: MESSAGES.notType('digit') });
  if (spec.shape === 'A') cases.push({ name: `${path} not letters`, field: path, value: '1'.repeat(min ?? 1), message: MESSAGES.notType('alpha') });
  if (spec.decimal) cases.push({ name: `${path} too many decimals`, field: path, value: '1.234', message: MESSAGES.notValid });
  const format = spec.format ?? spec.type;
  const formatCase = FORMAT_CASES[format];
  if (formatCase) cases.push({ name: `${path} not a ${format}`, field: path, value: formatCase[0], message: formatCase[1] });
  // A space-holding value breaks every pattern of the catalog; typed members fail their type first.
  if (spec.pattern && spec.type === 'string') cases.push({ name: `${path} off pattern`, field: path, value: `# ${'#'.repeat(Math.max(0, (min ?? 0) - 2))}`, message: MESSAGES.notValid });
  if (spec.values) cases.push({ name: `${path} not an allowed value`, field: path, value: notAChoice(spec.values), message: MESSAGES.notChoice });
  return cases;
}

function run(entry: MethodEntry, c: Case, member: WalkedMember): FieldError[] {
  const ctx = validContext(entry, c.ctx);
  if (member.spec.source === 'request') {
    return validateMethodParameters(entry, validParameters(entry), { ...ctx, request: withValue(ctx.request ?? {}, member.segments, c.value) });
  }
  return validateMethodParameters(entry, withValue(validParameters(entry), member.segments, c.value), ctx);
}

const errorPath = (entry: MethodEntry, member: WalkedMember) => (member.spec.source === 'request' ? member.path : `parameters.${entry.key}.${member.path}`);

for (const entry of METHOD_LIST) {
  describe(`method ${entry.key}`, () => {
    it('accepts a valid request', () => {
      assert.deepEqual(validateMethodParameters(entry, validParameters(entry), validContext(entry)), []);
    });

    it('accepts members it does not declare', () => {
      assert.deepEqual(validateMethodParameters(entry, { ...validParameters(entry), provider_extra: { any: ['thing'] } }, validContext(entry)), []);
    });

    it('refuses a session field placed inside its parameters', () => {
      const errors = validateMethodParameters(entry, { ...validParameters(entry), session_expiry: 60 }, validContext(entry));
      assert.deepEqual(errors, [{ field: `parameters.${entry.key}.session_expiry`, message: MESSAGES.extraField }]);
    });

    it('refuses parameters that are not an object', () => {
      assert.deepEqual(validateMethodParameters(entry, 'text', validContext(entry)), [{ field: `parameters.${entry.key}`, message: MESSAGES.notType('array') }]);
    });

    if (entry.currencies || entry.currencyKind) {
      const other = entry.currencyKind === 'fiat' ? 'BTC' : entry.currencyKind === 'crypto' ? 'EUR' : 'USD';
      it(`refuses order currency ${other}`, () => {
        const errors = validateMethodParameters(entry, validParameters(entry), validContext(entry, { currency: other }));
        assert.deepEqual(errors, [{ field: 'order.currency', message: MESSAGES.notChoice }]);
      });
    }

    const country = validContext(entry).billingCountry as string;
    const members = [...walk(entry.params.filter((p) => p.source !== 'request')), ...entry.params.filter((p) => p.source === 'request').map((spec) => ({ spec, segments: [spec.name], path: spec.name }))];
    for (const member of members) {
      for (const c of memberCases(entry, member, country)) {
        it(c.name, () => {
          const errors = run(entry, c, member);
          const field = errorPath(entry, member);
          if (c.message === undefined) {
            assert.deepEqual(errors, [], `${field} should pass`);
          } else if (c.value === undefined && member.spec.type === 'object') {
            // A needed object that is missing is reported by the members the merchant must add.
            assert.ok(errors.some((e) => e.field.startsWith(field)), JSON.stringify(errors));
          } else {
            assert.deepEqual(errors.find((e) => e.field === field), { field, message: c.message }, JSON.stringify(errors));
          }
        });
      }
    }
  });
}
