/**
 * Validation of `parameters.<method_key>` against the method's catalog entry. Pure: it reads the entry and
 * the context and returns D3 field errors (full paths, the platform's messages), at most one per field.
 *
 * Members the entry does not declare are passed through unchecked, at every depth: parameters are handed on
 * to the connector and the card sets depend on the connector service, so a provider's further members must
 * not be refused. The one exception is the spec's: session fields (session_expiry and similar) placed inside
 * a method's parameters are refused, because there they would be silently lost.
 */
import { MESSAGES, type FieldError } from '../errors.ts';
import { findMethod } from './catalog.ts';
import { isBase64, isCalendarDate, isCountry, isCountryOrNumeric, isCurrencyCode, isDecimal, isEmail, isFiatCurrency, isHttpUrl, isIsoDateTime } from './formats.ts';
import type { Condition, MethodEntry, MethodRule, Operation, ParamSpec, ParamType } from './types.ts';

export interface MethodContext {
  operation: Operation;
  /** Order currency, for methods that restrict it. */
  currency?: string;
  /** billing_address.country (alpha-2), for country-dependent members. */
  billingCountry?: string;
  /** True while the hosted page can still ask the payer for `collectOnPage` members (Checkout, before paying). */
  canCollect: boolean;
  /**
   * Fields of the request itself by Checkout path (`order.description`, `customer.email`, ...), for members
   * with source 'request'. Given: those members are checked (a missing key is an absent value). Not given:
   * they are not checked.
   */
  request?: Readonly<Record<string, unknown>>;
  /** Path of the method's parameters in errors; default `parameters.<key>` (S2S APM: `parameters`). */
  prefix?: string;
  /** Renames request paths in errors (S2S APM: `order.currency` -> `order_currency`). */
  fieldName?: (path: string) => string;
}

/** Top-level session fields: the spec forbids them inside parameters. */
const SESSION_FIELDS: ReadonlySet<string> = new Set([
  'merchant_key', 'operation', 'methods', 'parameters', 'order', 'cancel_url', 'success_url', 'expiry_url', 'error_url', 'url_target',
  'session_expiry', 'req_token', 'recurring_init', 'vat_calc', 'custom_data', 'customer', 'billing_address', 'payer_ip', 'card_token',
  'auth', 'schedule_id', 'schedule_start_date', 'payment_schedule_amount', 'payee_first_name', 'payee_last_name', 'payee',
  'payee_billing_address', 'accountId', 'hash',
]);

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isAbsent = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const own = (obj: Obj, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);
const sourceOf = (spec: ParamSpec) => spec.source ?? 'parameters';

/** Whether the member is asked for in this billing country at all. */
function appliesIn(spec: ParamSpec, country: string | undefined): boolean {
  if (spec.exemptIn && country && spec.exemptIn.includes(country)) return false;
  return !spec.requiredIn || (country !== undefined && spec.requiredIn.includes(country));
}

/** Whether an absent value is an error: the member is needed and no page will ask for it. */
function isNeeded(spec: ParamSpec, ctx: MethodContext): boolean {
  const source = sourceOf(spec);
  if (source !== 'parameters' && source !== 'request') return false; // the MID, the gateway or the page supply it
  if (!appliesIn(spec, ctx.billingCountry?.toUpperCase())) return false;
  const needed = spec.requirement === 'required' || (spec.requirement === 'conditional' && (spec.collectOnPage === true || spec.requiredIn !== undefined));
  return needed && !(spec.collectOnPage === true && ctx.canCollect);
}

const TYPE_NAMES: Partial<Record<ParamType, string>> = { number: 'numeric', integer: 'integer', boolean: 'bool', object: 'array', array: 'array' };

/** The JSON type check. Numbers and booleans may arrive as strings (form-encoded S2S). */
function typeMatches(type: ParamType, value: unknown): boolean {
  switch (type) {
    case 'number':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value));
    case 'integer':
      return Number.isInteger(value) || (typeof value === 'string' && /^-?\d+$/.test(value));
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false' || value === '1' || value === '0';
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      // Text members take numbers too: JSON merchants send `"quantity": 2` for an N5 member.
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
  }
}

function lengthMessage(spec: ParamSpec, text: string): string | undefined {
  const length = [...text].length;
  const { minLength: min, maxLength: max } = spec;
  if (min !== undefined && min === max) return length === min ? undefined : MESSAGES.exactLength(min);
  if (max !== undefined && length > max) return MESSAGES.tooLong(max);
  if (min !== undefined && length < min) return MESSAGES.tooShort(min);
  return undefined;
}

function shapeMessage(spec: ParamSpec, text: string): string | undefined {
  if (spec.shape === 'N' && !/^\d+$/.test(text)) return MESSAGES.notType('digit');
  if (spec.shape === 'A' && !/^[A-Za-z]+$/.test(text)) return MESSAGES.notType('alpha');
  return undefined;
}

function formatMessage(spec: ParamSpec, text: string): string | undefined {
  if (spec.type === 'url' && !isHttpUrl(text)) return MESSAGES.notUrl;
  if (spec.type === 'email' && !isEmail(text)) return MESSAGES.notEmail;
  if (spec.type === 'date' && !isCalendarDate(text)) return MESSAGES.notDate;
  if (spec.type === 'datetime' && !isIsoDateTime(text)) return MESSAGES.notDatetime;
  if (spec.decimal && !isDecimal(text, spec.decimal.integer, spec.decimal.fraction)) return MESSAGES.notValid;
  switch (spec.format) {
    case 'country':
      return isCountry(text) ? undefined : MESSAGES.notCountry;
    case 'country-or-numeric':
      return isCountryOrNumeric(text) ? undefined : MESSAGES.notCountry;
    case 'currency':
      return isCurrencyCode(text) ? undefined : MESSAGES.notCurrency;
    case 'base64':
      return isBase64(text) ? undefined : MESSAGES.notValid;
    default:
      return undefined;
  }
}

/** Checks in the order a merchant fixes them: type, length, shape, format, pattern, allowed values. */
function scalarMessage(spec: ParamSpec, value: unknown): string | undefined {
  if (!typeMatches(spec.type, value)) return MESSAGES.notType(TYPE_NAMES[spec.type] ?? 'string');
  if (spec.type === 'boolean') return undefined;
  const text = String(value);
  return (
    lengthMessage(spec, text) ??
    shapeMessage(spec, text) ??
    formatMessage(spec, text) ??
    (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(text) ? MESSAGES.notValid : undefined) ??
    (spec.values !== undefined && !spec.values.includes(text) ? MESSAGES.notChoice : undefined)
  );
}

function checkMembers(members: readonly ParamSpec[], obj: Obj, path: string, ctx: MethodContext, out: FieldError[]): void {
  for (const member of members) checkValue(member, own(obj, member.name), `${path}.${member.name}`, ctx, out);
}

function checkValue(spec: ParamSpec, value: unknown, path: string, ctx: MethodContext, out: FieldError[]): void {
  if (isAbsent(value)) {
    if (!isNeeded(spec, ctx)) return;
    const before = out.length;
    // A needed object that is missing: name its missing members, which is what the merchant must add.
    if (spec.type === 'object' && spec.members) checkMembers(spec.members, {}, path, ctx, out);
    if (out.length === before) out.push({ field: path, message: MESSAGES.blank });
    return;
  }
  if (!typeMatches(spec.type, value)) {
    out.push({ field: path, message: scalarMessage(spec, value) as string });
  } else if (spec.type === 'object') {
    checkMembers(spec.members ?? [], value as Obj, path, ctx, out);
  } else if (spec.type === 'array') {
    const item = spec.items;
    if (item) (value as unknown[]).forEach((v, i) => checkValue(item, v, `${path}[${i}]`, ctx, out));
  } else {
    const message = scalarMessage(spec, value);
    if (message) out.push({ field: path, message });
  }
}

const holds = (when: Condition, obj: Obj): boolean => {
  const v = own(obj, when.member);
  return !isAbsent(v) && when.values.includes(String(v));
};

function ruleErrors(rule: MethodRule, obj: Obj, path: string): FieldError[] {
  const at = (member: string, message: string) => [{ field: `${path}.${member}`, message }];
  const present = (member: string) => !isAbsent(own(obj, member));
  switch (rule.kind) {
    case 'allOrNone':
      return rule.members.some(present) ? rule.members.filter((m) => !present(m)).flatMap((m) => at(m, MESSAGES.blank)) : [];
    case 'together':
      return []; // a lone member is dropped by prepareMethodParameters, as the spec says it is ignored
    case 'onlyWhen':
      return present(rule.member) && !holds(rule.when, obj) ? at(rule.member, MESSAGES.shouldBeBlank) : [];
    case 'patternWhen':
      return present(rule.member) && holds(rule.when, obj) && !new RegExp(rule.pattern, 'u').test(String(own(obj, rule.member))) ? at(rule.member, MESSAGES.notValid) : [];
    case 'equalsWhen': {
      const v = String(own(obj, rule.member));
      const equal = Number.isNaN(Number(v)) ? v === rule.value : Number(v) === Number(rule.value);
      return present(rule.member) && holds(rule.when, obj) && !equal ? at(rule.member, MESSAGES.equalTo(rule.value)) : [];
    }
  }
}

function currencyErrors(entry: MethodEntry, ctx: MethodContext): FieldError[] {
  const currency = ctx.currency;
  if (!currency) return [];
  const listed = !entry.currencies || entry.currencies.includes(currency);
  const kind = !entry.currencyKind || (entry.currencyKind === 'fiat') === isFiatCurrency(currency);
  return listed && kind ? [] : [{ field: ctx.fieldName?.('order.currency') ?? 'order.currency', message: MESSAGES.notChoice }];
}

function requestErrors(entry: MethodEntry, ctx: MethodContext): FieldError[] {
  const request = ctx.request;
  if (!request) return [];
  const out: FieldError[] = [];
  for (const spec of entry.params) {
    if (sourceOf(spec) === 'request') checkValue(spec, own(request as Obj, spec.name), ctx.fieldName?.(spec.name) ?? spec.name, ctx, out);
  }
  return out;
}

function misplacedSessionFields(entry: MethodEntry, obj: Obj, path: string): FieldError[] {
  const declared = new Set(entry.params.filter((p) => sourceOf(p) !== 'request').map((p) => p.name));
  return Object.keys(obj)
    .filter((key) => SESSION_FIELDS.has(key) && !declared.has(key))
    .map((key) => ({ field: `${path}.${key}`, message: MESSAGES.extraField }));
}

/** First error per field, in the order found. */
function firstPerField(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.field) && seen.add(e.field));
}

/** Errors of one method's parameters (value: what the request holds at parameters.<key>, maybe nothing). */
export function validateMethodParameters(entry: MethodEntry, value: unknown, ctx: MethodContext): FieldError[] {
  const path = ctx.prefix ?? `parameters.${entry.key}`;
  if (value !== undefined && value !== null && !isObject(value)) return [{ field: path, message: MESSAGES.notType('array') }];
  const obj = (value ?? {}) as Obj;
  const members: FieldError[] = [];
  checkMembers(entry.params.filter((p) => sourceOf(p) !== 'request'), obj, path, ctx, members);
  const rules = (entry.rules ?? []).flatMap((rule) => ruleErrors(rule, obj, path));
  return firstPerField([...misplacedSessionFields(entry, obj, path), ...members, ...rules, ...requestErrors(entry, ctx), ...currencyErrors(entry, ctx)]);
}

/**
 * Errors of a session's whole `parameters` object: keys that are not offered methods (session_expiry and
 * the like included) are refused, and each offered method's parameters are validated.
 */
export function validateSessionParameters(methods: readonly string[], parameters: unknown, ctx: Omit<MethodContext, 'prefix'>): FieldError[] {
  if (parameters !== undefined && parameters !== null && !isObject(parameters)) return [{ field: 'parameters', message: MESSAGES.notType('array') }];
  const given = (parameters ?? {}) as Obj;
  const errors: FieldError[] = Object.keys(given)
    .filter((key) => !methods.includes(key))
    .map((key) => ({ field: `parameters.${key}`, message: MESSAGES.extraField }));
  for (const key of new Set(methods)) {
    const entry = findMethod(key);
    if (entry) errors.push(...validateMethodParameters(entry, own(given, key), ctx));
  }
  return firstPerField(errors);
}

/**
 * The parameters as they go on to the provider: values the method fixes (a gateway member with one allowed
 * value) are filled in, and members the spec says are ignored alone are dropped.
 */
export function prepareMethodParameters(entry: MethodEntry, value: Readonly<Obj>): Obj {
  const out: Obj = { ...value };
  for (const spec of entry.params) {
    if (sourceOf(spec) === 'gateway' && spec.values?.length === 1 && isAbsent(own(out, spec.name))) out[spec.name] = spec.values[0];
  }
  for (const rule of entry.rules ?? []) {
    if (rule.kind !== 'together') continue;
    if (!rule.members.every((m) => !isAbsent(own(out, m)))) for (const m of rule.members) delete out[m];
  }
  return out;
}

/** prepareMethodParameters over a whole (validated) session `parameters` object. */
export function prepareSessionParameters(parameters: Readonly<Record<string, Obj>>): Record<string, Obj> {
  return Object.fromEntries(Object.entries(parameters).map(([key, value]) => {
    const entry = findMethod(key);
    return [key, entry && isObject(value) ? prepareMethodParameters(entry, value) : value];
  }));
}

export interface PageField {
  /** Member path inside parameters.<key> (`bankDetails.cbu`), or the request path for source 'request'. */
  path: string;
  spec: ParamSpec;
  /** The payer must fill it in; otherwise the page offers it. */
  required: boolean;
}

function pageMembers(specs: readonly ParamSpec[], obj: Obj, base: string, ctx: Omit<MethodContext, 'canCollect'>, out: PageField[]): void {
  const country = ctx.billingCountry?.toUpperCase();
  for (const spec of specs) {
    const path = base ? `${base}.${spec.name}` : spec.name;
    const value = own(obj, spec.name);
    if (spec.type === 'object' && spec.members && spec.collectOnPage) {
      pageMembers(spec.members, isObject(value) ? value : {}, path, ctx, out);
    } else if (spec.collectOnPage && isAbsent(value) && appliesIn(spec, country)) {
      out.push({ path, spec, required: isNeeded(spec, { ...ctx, canCollect: false }) });
    }
  }
}

/**
 * What the hosted page asks the payer for: `collectOnPage` members the request lacks, in this billing
 * country (members that depend on the country are left out while it is unknown). Request fields are
 * included when `ctx.request` is given.
 */
export function pageFields(entry: MethodEntry, value: unknown, ctx: Omit<MethodContext, 'canCollect'>): PageField[] {
  const out: PageField[] = [];
  pageMembers(entry.params.filter((p) => sourceOf(p) === 'parameters'), isObject(value) ? value : {}, '', ctx, out);
  const request = ctx.request;
  if (!request) return out;
  const country = ctx.billingCountry?.toUpperCase();
  for (const spec of entry.params) {
    const asked = sourceOf(spec) === 'request' && spec.collectOnPage && isAbsent(own(request as Obj, spec.name)) && appliesIn(spec, country);
    if (asked) out.push({ path: spec.name, spec, required: isNeeded(spec, { ...ctx, canCollect: false }) });
  }
  return out;
}
