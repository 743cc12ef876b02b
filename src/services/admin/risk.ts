/**
 * The risk engine for operators (issue 26): rule sets per scope (`platform` or a merchant's id), saved whole as a
 * new version (validated, compare-and-set on the version read, audited), their history and the restore of an
 * earlier version; allow and block lists (add, remove, CSV import and export); a payment's risk evaluation.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { isCountryCode } from '../../domain/countries.ts';
import { isEmail } from '../../domain/methods/formats.ts';
import { validateRuleSet, type RiskRuleSet } from '../../domain/risk/rules.ts';
import { CARD_TESTING_DEFAULTS } from '../../domain/risk/defaults.ts';
import { LIST_KINDS, type ListKind } from '../../domain/risk/evaluate.ts';
import { cardFingerprint } from '../../domain/risk/fingerprint.ts';
import { isCidr } from '../../domain/risk/ip.ts';
import { luhnValid } from '../../domain/card.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import {
  deleteListEntry, evaluationOf, listEntries, ruleSetsOf, ruleSetVersions, saveRuleSet, upsertListEntries, type ListEntry, type StoredEvaluation,
} from '../../store/risk-repo.ts';
import { forgetLists, forgetRuleSet, PLATFORM_SCOPE, riskKeyOf, ruleSetsFor } from '../risk/engine.ts';
import { emptyBacktest, tallyPayment, type BacktestResult } from '../../domain/risk/backtest.ts';
import { backtestPage, evaluationKeysOf } from '../../store/risk-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { SAMPLE_BIN_TABLE } from '../../domain/bin-table.ts';
import { SAMPLE_IP_TABLE } from '../../domain/risk/ip.ts';
import type { RuleScope } from '../../domain/risk/evaluate.ts';
import { formatAmount } from '../../domain/money.ts';
import { splitCsvLine } from '../../domain/csv.ts';

export interface RuleSetView {
  scope: string;
  /** 0: never saved (the platform's card-testing defaults, or a merchant without rules). */
  version: number;
  rules: RiskRuleSet;
  updated_at: string | null;
  updated_by: string | null;
}

/** A scope is the platform or a merchant that exists. */
async function checkScope(ctx: ServiceContext, scope: string): Promise<void> {
  if (scope === PLATFORM_SCOPE) return;
  if (!isUuid(scope) || !(await findMerchantById(ctx.db, ctx.keyring, scope))) throw new GatewayError('notFound');
}

const unsaved = (scope: string): RiskRuleSet => (scope === PLATFORM_SCOPE ? CARD_TESTING_DEFAULTS : { rules: [] });

export async function getRuleSet(ctx: ServiceContext, scope: string): Promise<RuleSetView> {
  await checkScope(ctx, scope);
  const [row] = await ruleSetsOf(ctx.db, [scope]);
  return row
    ? { scope, version: row.version, rules: row.rules, updated_at: row.updatedAt.toISOString(), updated_by: row.updatedBy }
    : { scope, version: 0, rules: unsaved(scope), updated_at: null, updated_by: null };
}

/** Saves a rule set whole as the next version, if `version` is still the current one; audited. */
export async function putRuleSet(ctx: ServiceContext, actor: AuditActor, scope: string, input: { version: number; rules: unknown; note?: string }): Promise<RuleSetView> {
  await checkScope(ctx, scope);
  const errors = validateRuleSet(input.rules).map((e): FieldError => ({ field: `rules.${e.field}`, message: e.message }));
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const rules = input.rules as RiskRuleSet;
  const before = await getRuleSet(ctx, scope);
  const saved = await ctx.db.transaction(async (tx) => {
    const row = await saveRuleSet(tx, scope, rules, input.version, actor.name, input.note ?? null, ctx.clock.now());
    if (!row) throw new GatewayError('riskRulesChanged');
    await appendAudit(tx, { actor, action: 'risk.rules', objectType: 'risk_rule_set', objectId: scope, before: { version: before.version, rules: before.rules }, after: { version: row.version, rules }, details: input.note ? { note: input.note } : undefined }, ctx.clock.now());
    return row;
  });
  forgetRuleSet(ctx, scope);
  return { scope, version: saved.version, rules: saved.rules, updated_at: saved.updatedAt.toISOString(), updated_by: saved.updatedBy };
}

export async function getRuleSetVersions(ctx: ServiceContext, scope: string): Promise<{ version: number; rules: RiskRuleSet; created_at: string; created_by: string | null; note: string | null }[]> {
  await checkScope(ctx, scope);
  return (await ruleSetVersions(ctx.db, scope)).map((v) => ({ version: v.version, rules: v.rules, created_at: v.createdAt.toISOString(), created_by: v.createdBy, note: v.note }));
}

/** Saves an earlier version's rules again as the newest version (version 0 of the platform: the defaults). */
export async function restoreRuleSet(ctx: ServiceContext, actor: AuditActor, scope: string, version: number): Promise<RuleSetView> {
  await checkScope(ctx, scope);
  const current = await getRuleSet(ctx, scope);
  const rules = version === 0 ? unsaved(scope) : (await ruleSetVersions(ctx.db, scope, 10_000)).find((v) => v.version === version)?.rules;
  if (!rules) throw new GatewayError('notFound');
  return putRuleSet(ctx, actor, scope, { version: current.version, rules, note: `restored version ${version}` });
}

// --- lists -------------------------------------------------------------------------------------------------

export interface ListEntryInput {
  list: 'allow' | 'block';
  kind: ListKind;
  value: string;
  reason: string;
  expires_at?: string | null;
}

export interface ListEntryView {
  id: string;
  list: 'allow' | 'block';
  kind: ListKind;
  value: string;
  reason: string;
  expires_at: string | null;
  created_at: string;
  created_by: string | null;
}

const viewOf = (e: ListEntry): ListEntryView => ({
  id: e.id, list: e.list, kind: e.kind, value: e.value, reason: e.reason, expires_at: e.expiresAt?.toISOString() ?? null, created_at: e.createdAt.toISOString(), created_by: e.createdBy,
});

/** Each kind's value as listed: a card number becomes its fingerprint (the number is never kept). */
const NORMALISE: Readonly<Record<ListKind, (value: string, key: () => Buffer) => string | undefined>> = {
  card: (v, key) => (/^[0-9a-f]{32}$/.test(v) ? v : /^\d{12,19}$/.test(v.replace(/[\s-]/g, '')) && luhnValid(v.replace(/[\s-]/g, '')) ? cardFingerprint(key(), v) : undefined),
  bin: (v) => (/^\d{6,8}$/.test(v) ? v : undefined),
  email: (v) => (isEmail(v.trim()) ? v.trim().toLowerCase() : undefined),
  email_domain: (v) => (/^[a-z0-9.-]{1,253}$/i.test(v.trim()) && v.includes('.') ? v.trim().toLowerCase() : undefined),
  ip: (v) => (isCidr(v.trim()) ? v.trim() : undefined),
  country: (v) => (isCountryCode(v.trim().toUpperCase()) ? v.trim().toUpperCase() : undefined),
  device: (v) => (/^[\w.:-]{1,128}$/.test(v) ? v : undefined),
};

const KIND_HINT: Readonly<Record<ListKind, string>> = {
  card: 'a card number or a card fingerprint (32 hex digits)', bin: '6 to 8 digits', email: 'an e-mail address', email_domain: 'a domain',
  ip: 'an IP address or CIDR block', country: 'an ISO 3166-1 alpha-2 code', device: 'a device id (letters, digits, . : _ -)',
};

function checkedEntries(ctx: ServiceContext, scope: string, actor: AuditActor, inputs: readonly ListEntryInput[], prefix: string, pastExpiry: boolean): Omit<ListEntry, 'createdAt'>[] {
  const errors: FieldError[] = [];
  const out: Omit<ListEntry, 'createdAt'>[] = [];
  const now = ctx.clock.now();
  for (const [i, e] of inputs.entries()) {
    const at = `${prefix}[${i}]`;
    if (e.list !== 'allow' && e.list !== 'block') { errors.push({ field: `${at}.list`, message: 'The value you selected is not a valid choice.' }); continue; }
    if (!LIST_KINDS.includes(e.kind)) { errors.push({ field: `${at}.kind`, message: 'The value you selected is not a valid choice.' }); continue; }
    const value = NORMALISE[e.kind](String(e.value ?? ''), () => riskKeyOf(ctx.keyring));
    if (value === undefined) { errors.push({ field: `${at}.value`, message: `This value is not valid: ${KIND_HINT[e.kind]}.` }); continue; }
    if (!e.reason || String(e.reason).trim() === '' || String(e.reason).length > 255) { errors.push({ field: `${at}.reason`, message: 'This value should not be blank (255 characters at most).' }); continue; }
    const expires = e.expires_at ? new Date(e.expires_at) : null;
    if (expires && (Number.isNaN(expires.getTime()) || (!pastExpiry && expires <= now))) { errors.push({ field: `${at}.expires_at`, message: 'This value should be a date-time in the future.' }); continue; }
    out.push({ id: newId(), scope, list: e.list, kind: e.kind, value, reason: String(e.reason).trim(), expiresAt: expires, createdBy: actor.name });
  }
  if (errors.length > 0) throw GatewayError.invalid(errors.slice(0, 50));
  return out;
}

/** Adds entries (an entry listed already takes the new reason and expiry); audited as one change. */
export async function addListEntries(ctx: ServiceContext, actor: AuditActor, scope: string, inputs: readonly ListEntryInput[], prefix = 'entries'): Promise<ListEntryView[]> {
  await checkScope(ctx, scope);
  // An import may carry entries expired since their export: kept as they were, they never match.
  const entries = checkedEntries(ctx, scope, actor, inputs, prefix, prefix !== 'entries');
  return ctx.db.transaction(async (tx) => {
    const saved = await upsertListEntries(tx, entries, ctx.clock.now());
    await appendAudit(tx, { actor, action: 'risk.list.add', objectType: 'risk_list', objectId: scope, after: saved.map(viewOf) }, ctx.clock.now());
    return saved.map(viewOf);
  }).finally(() => forgetLists(ctx, scope));
}

export async function removeListEntry(ctx: ServiceContext, actor: AuditActor, scope: string, id: string): Promise<void> {
  await checkScope(ctx, scope);
  if (!isUuid(id)) throw new GatewayError('notFound');
  await ctx.db.transaction(async (tx) => {
    if (!(await deleteListEntry(tx, scope, id))) throw new GatewayError('notFound');
    await appendAudit(tx, { actor, action: 'risk.list.remove', objectType: 'risk_list', objectId: scope, details: { id } }, ctx.clock.now());
  });
  forgetLists(ctx, scope);
}

/**
 * What a search finds: entries whose value or reason holds the text; a card number typed whole also finds its
 * fingerprint (the number itself is never kept), an e-mail or domain its lower-case form.
 */
function searchOf(ctx: ServiceContext, q: string | undefined): { text: string; exact: string[] } | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  const exact = LIST_KINDS.flatMap((kind) => {
    if (kind === 'card' && !/^[\d\s-]{12,25}$/.test(text)) return [];
    const value = NORMALISE[kind](text, () => riskKeyOf(ctx.keyring));
    return value === undefined ? [] : [value];
  });
  return { text, exact: [...new Set(exact)] };
}

export async function getListEntries(ctx: ServiceContext, scope: string, f: { list?: 'allow' | 'block'; kind?: ListKind; after?: string; limit?: number; q?: string }): Promise<ListEntryView[]> {
  await checkScope(ctx, scope);
  if (f.after !== undefined && !isUuid(f.after)) throw GatewayError.field('after', 'This value is not valid.');
  return (await listEntries(ctx.db, { scope, list: f.list, kind: f.kind, after: f.after, limit: Math.min(Math.max(f.limit ?? 100, 1), 1000), search: searchOf(ctx, f.q) })).map(viewOf);
}

const CSV_HEADER = 'list,kind,value,reason,expires_at';
const csvField = (v: string): string => (/[",\n\r]/.test(v) || /^[=+\-@]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Every entry of a scope as CSV (a header line, then one line per entry). */
export async function exportListCsv(ctx: ServiceContext, scope: string): Promise<string> {
  await checkScope(ctx, scope);
  const lines = [CSV_HEADER];
  for (let after: string | undefined; ;) {
    const page = await listEntries(ctx.db, { scope, after, limit: 1000 });
    for (const e of page) lines.push([e.list, e.kind, e.value, e.reason, e.expiresAt?.toISOString() ?? ''].map(csvField).join(','));
    if (page.length < 1000) break;
    after = page.at(-1)!.id;
  }
  return `${lines.join('\n')}\n`;
}

/** Imports CSV (the export's columns; the header line is optional): every line is checked before any is saved. */
export async function importListCsv(ctx: ServiceContext, actor: AuditActor, scope: string, csv: string): Promise<{ imported: number }> {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines[0]?.trim().toLowerCase() === CSV_HEADER) lines.shift();
  if (lines.length > 10_000) throw GatewayError.field('csv', 'At most 10000 lines per import.');
  const inputs = lines.map((line): ListEntryInput => {
    const [list = '', kind = '', value = '', reason = '', expires = ''] = splitCsvLine(line) ?? [];
    return { list: list as 'allow', kind: kind as ListKind, value, reason, expires_at: expires || null };
  });
  const saved = await addListEntries(ctx, actor, scope, inputs, 'csv.lines');
  return { imported: saved.length };
}

/** What of a payment each list kind takes (the card: the fingerprint its screen kept; never its number). */
const PAYMENT_VALUES: Readonly<Record<ListKind, (p: { email?: string; ip?: string; country?: string; first6?: string; card?: string; device?: string }) => string | undefined>> = {
  card: (p) => p.card,
  bin: (p) => p.first6,
  email: (p) => p.email,
  email_domain: (p) => (p.email?.includes('@') ? p.email.slice(p.email.lastIndexOf('@') + 1) : undefined),
  ip: (p) => p.ip,
  country: (p) => p.country,
  device: (p) => p.device,
};

/** Lists a payment's values (its card, e-mail, IP, ...) in one action, as the console's "add to list" does. */
export async function listPaymentValues(ctx: ServiceContext, actor: AuditActor, scope: string, input: { payment_id: string; list: 'allow' | 'block'; kinds: ListKind[]; reason: string; expires_at?: string | null }): Promise<ListEntryView[]> {
  const payment = isUuid(input.payment_id) ? await getPayment(ctx.db, input.payment_id) : undefined;
  if (!payment || (scope !== PLATFORM_SCOPE && payment.merchantId !== scope)) throw GatewayError.field('payment_id', 'Payment not found.');
  const keys = await evaluationKeysOf(ctx.db, payment.id);
  const values = { email: payment.payer.email, ip: payment.payer.ip, country: payment.payer.country, first6: payment.details.first6Last4?.slice(0, 6), card: keys?.card, device: payment.details.deviceId };
  const errors: FieldError[] = [];
  const entries: ListEntryInput[] = [];
  for (const [i, kind] of input.kinds.entries()) {
    const value = PAYMENT_VALUES[kind]?.(values);
    if (value === undefined) errors.push({ field: `kinds[${i}]`, message: `The payment has no ${kind} to list.` });
    else entries.push({ list: input.list, kind, value, reason: input.reason, expires_at: input.expires_at ?? null });
  }
  if (errors.length > 0) throw GatewayError.invalid(errors);
  return addListEntries(ctx, actor, scope, entries);
}

// --- a payment's evaluation --------------------------------------------------------------------------------

export interface EvaluationView {
  payment_id: string;
  screened_at: string;
  action: string;
  reason: string;
  score: number;
  outcome: string | null;
  review: string | null;
  review_deadline: string | null;
  device_id: string | null;
  evaluation: StoredEvaluation['evaluation'];
}

export async function paymentRisk(ctx: ServiceContext, paymentId: string): Promise<EvaluationView> {
  const stored = isUuid(paymentId) ? await evaluationOf(ctx.db, paymentId) : undefined;
  if (!stored) throw new GatewayError('notFound');
  return evaluationView(stored);
}

/** A stored evaluation as the admin API shows it (GET .../risk/payments/{id}, and the payment view's `risk`). */
export function evaluationView(stored: StoredEvaluation): EvaluationView {
  const e = stored.evaluation;
  return { payment_id: stored.paymentId, screened_at: stored.createdAt.toISOString(), action: e.action, reason: e.reason, score: e.score, outcome: stored.outcome, review: stored.review, review_deadline: stored.reviewDeadline?.toISOString() ?? null, device_id: stored.deviceId, evaluation: e };
}

// --- backtests ---------------------------------------------------------------------------------------------

export const MAX_BACKTEST_DAYS = 90;
const BACKTEST_PAGE = 5_000;

/**
 * Runs a draft rule set over the scope's payments of the last `days` days (nothing is written): a merchant's
 * draft after the platform's current rules, the platform's draft over every merchant's payments on its own.
 */
export interface BacktestView {
  scope: string;
  days: number;
  payments: number;
  counts: BacktestResult['counts'];
  examples: Record<keyof BacktestResult['examples'], { payment_id: string; amount: string; currency: string; status: string; reason: string }[]>;
  lost_approved: { count: number; volume: Record<string, string> };
  reviewed_approved: { count: number; volume: Record<string, string> };
  not_replayable: Record<string, number>;
}

const volumeView = (v: Record<string, bigint>): Record<string, string> => Object.fromEntries(Object.entries(v).map(([c, minor]) => [c, formatAmount(minor, c)]));

function backtestView(scope: string, days: number, r: BacktestResult): BacktestView {
  const examples = Object.fromEntries(Object.entries(r.examples).map(([action, list]) => [action, list.map((e) => ({ ...e, amount: formatAmount(e.amount, e.currency) }))])) as BacktestView['examples'];
  return {
    scope, days, payments: r.payments, counts: r.counts, examples,
    lost_approved: { count: r.lost_approved.count, volume: volumeView(r.lost_approved.volume) },
    reviewed_approved: { count: r.reviewed_approved.count, volume: volumeView(r.reviewed_approved.volume) },
    not_replayable: r.not_replayable,
  };
}

export async function backtest(ctx: ServiceContext, scope: string, input: { rules: unknown; days: number }): Promise<BacktestView> {
  await checkScope(ctx, scope);
  const errors = validateRuleSet(input.rules).map((e): FieldError => ({ field: `rules.${e.field}`, message: e.message }));
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const draft = input.rules as RiskRuleSet;
  const merchantId = scope === PLATFORM_SCOPE ? null : scope;
  const sets: { scope: RuleScope; set: RiskRuleSet }[] = merchantId
    ? [...(await ruleSetsFor(ctx, merchantId)).filter((s) => s.scope === 'platform'), { scope: 'merchant', set: draft }]
    : [{ scope: 'platform', set: draft }];
  const until = ctx.clock.now();
  const since = new Date(until.getTime() - input.days * 86_400_000);
  const result = emptyBacktest();
  const bins = ctx.binTable ?? SAMPLE_BIN_TABLE;
  const ips = ctx.ipTable ?? SAMPLE_IP_TABLE;
  // The next page is asked for before this one is replayed: the store's statement and the replay overlap.
  const sql = ctx.reads ?? ctx.db;
  for (let pending: ReturnType<typeof backtestPage> | undefined = backtestPage(sql, merchantId, since, until, undefined, BACKTEST_PAGE); pending;) {
    const page: Awaited<ReturnType<typeof backtestPage>> = await pending;
    pending = page.next ? backtestPage(sql, merchantId, since, until, page.next, BACKTEST_PAGE) : undefined;
    for (const p of page.rows) tallyPayment(result, sets, p, bins, ips);
  }
  return backtestView(scope, input.days, result);
}
