/**
 * The risk engine's use case (issue 26): screens one attempt. It gathers the payment's risk facts (card brand and
 * country from the BIN table, the IP's country from the IP-to-country table, the e-mail domain), its keys (the
 * card fingerprint and keyed hashes of e-mail, IP, session and device), reads the counters its rules need and the
 * list entries its values hit (one statement), evaluates (pure, domain/risk/evaluate.ts) and records the
 * evaluation with the attempt's counters: in a statement of its own (screenRisk), or in the payment's own first
 * write (evaluateScreen, the card attempt's). The outcome is counted later, in the outcome's own write where it
 * has one (store/payments-repo.ts TransactionResult.riskOutcome), else by countRiskOutcome.
 */
import type { ServiceContext, Sql } from '../context.ts';
import { SAMPLE_BIN_TABLE } from '../../domain/bin-table.ts';
import { cardBrandByPrefix } from '../../domain/card.ts';
import { evaluateRisk, emailDomain, type RiskEvaluation, type RiskFacts, type RuleScope } from '../../domain/risk/evaluate.ts';
import { cardFingerprint, deriveRiskKey, keyedHash } from '../../domain/risk/fingerprint.ts';
import { parseIp, SAMPLE_IP_TABLE } from '../../domain/risk/ip.ts';
import { MAX_WINDOW_MINUTES, velocityConditions, velocityKey, type RiskRuleSet, type ThreeDsResult, type VelocityBy, type VelocityCondition } from '../../domain/risk/rules.ts';
import { countedMeasures, windowStart, withCurrent, type CountedMeasures, type VelocityKeys } from '../../domain/risk/velocity.ts';
import { CARD_TESTING_DEFAULTS } from '../../domain/risk/defaults.ts';
import { countOutcome, pruneVelocity, readForScreen, recordScreen, ruleSetsOf, scopesWithListEntries, velocityInUse, type CounterRead, type ListProbe, type ScreenRead, type ScreenRecord } from '../../store/risk-repo.ts';
import { loadCard, type Keyring } from '../../store/card-vault.ts';
import { riskMetrics } from './metrics.ts';

export const PLATFORM_SCOPE = 'platform';
/** How long a node keeps a scope's rule set before reading it again (a save on this node forgets it at once). */
const RULES_TTL_MS = 5_000;
/** How long an operator has to decide a payment held for review before it is declined. */
export const REVIEW_DEADLINE_MINUTES = 24 * 60;

/** What the screen knows of an attempt (services/attempt/screen.ts ScreenFacts, as the risk engine reads it). */
export interface RiskSubject {
  paymentId: string;
  merchantId: string;
  midId?: string | null;
  channel: string;
  method: string;
  intent: 'sale' | 'auth' | 'payout';
  amount: bigint;
  currency: string;
  /** The card's number when at hand (read for its brand, BIN, country and fingerprint; never kept). */
  pan?: string;
  /** A stored card's vault id, opened for its fingerprint when no PAN is at hand. */
  vaultId?: string;
  bin?: string;
  brand?: string;
  ip?: string;
  email?: string;
  billingCountry?: string;
  sessionId?: string;
  deviceId?: string;
  merchantInitiated: boolean;
  sandbox: boolean;
  recurring: boolean;
  customData?: Readonly<Record<string, unknown>> | null;
  threeDs?: ThreeDsResult;
}

export interface RiskVerdict {
  evaluation: RiskEvaluation;
  /** A review's deadline (action review). */
  reviewDeadline?: Date;
}

// --- rule sets, cached per node ----------------------------------------------------------------------------

interface Cached { at: number; set: RiskRuleSet | undefined; version: number }
const ruleCaches = new WeakMap<object, Map<string, Cached>>();
const cacheOf = (ctx: ServiceContext): Map<string, Cached> => {
  let cache = ruleCaches.get(ctx.db);
  if (!cache) ruleCaches.set(ctx.db, (cache = new Map()));
  return cache;
};

/** Forgets a scope's cached rule set, and which counters the rules read (after a save on this node). */
export const forgetRuleSet = (ctx: ServiceContext, scope: string): void => {
  cacheOf(ctx).delete(scope);
  countedCaches.delete(ctx.db);
};

/**
 * A cache refill that requests arriving meanwhile share: under load every request in flight finds an entry stale
 * at the same moment, and each would otherwise read it again (about 30 reads of the same rule sets where one does).
 */
const refills = new WeakMap<object, Map<string, Promise<void>>>();
function sharedRead(ctx: ServiceContext, key: string, read: () => Promise<void>): Promise<void> {
  let pending = refills.get(ctx.db);
  if (!pending) refills.set(ctx.db, (pending = new Map()));
  let refill = pending.get(key);
  if (!refill) {
    const map = pending;
    refill = read().finally(() => map.delete(key));
    pending.set(key, refill);
  }
  return refill;
}

/** The rule sets that screen a merchant's payments, platform first (no platform row: the card-testing defaults). */
export async function ruleSetsFor(ctx: ServiceContext, merchantId: string): Promise<{ scope: RuleScope; set: RiskRuleSet; version: number }[]> {
  const cache = cacheOf(ctx);
  const now = Date.now();
  const scopes = [PLATFORM_SCOPE, merchantId];
  const stale = scopes.filter((s) => { const c = cache.get(s); return !c || now - c.at >= RULES_TTL_MS; });
  if (stale.length > 0) {
    await sharedRead(ctx, `rules\u0000${stale.join('\u0000')}`, async () => {
      const found = new Map((await ruleSetsOf(ctx.db, stale)).map((r) => [r.scope, r]));
      for (const s of stale) {
        const row = found.get(s);
        cache.set(s, { at: now, set: row?.rules ?? (s === PLATFORM_SCOPE ? CARD_TESTING_DEFAULTS : undefined), version: row?.version ?? 0 });
        if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
      }
    });
  }
  const out: { scope: RuleScope; set: RiskRuleSet; version: number }[] = [];
  for (const [i, s] of scopes.entries()) {
    const c = cache.get(s)!;
    if (c.set) out.push({ scope: i === 0 ? 'platform' : 'merchant', set: c.set, version: c.version });
  }
  return out;
}

// --- which counters any rule reads, cached per node ---------------------------------------------------------

const countedCaches = new WeakMap<object, { at: number; counted: CountedMeasures }>();

/**
 * The counters a payment keeps: those the velocity conditions of any scope's running rules read (the platform's
 * defaults while it has no rule set saved). Counters are platform-wide (a merchant's rule by card reads the card's
 * attempts at every merchant), so every payment keeps what any rule reads. Read again after RULES_TTL_MS, or at once
 * after a save on this node; a rule on a counter no rule read before counts from then on (docs/operators/risk.md).
 */
async function countedFor(ctx: ServiceContext): Promise<CountedMeasures> {
  const cached = countedCaches.get(ctx.db);
  const now = Date.now();
  if (cached && now - cached.at < RULES_TTL_MS) return cached.counted;
  await sharedRead(ctx, 'counted', async () => {
    const { conditions, platformSaved } = await velocityInUse(ctx.db);
    const defaults = platformSaved ? [] : velocityConditions([CARD_TESTING_DEFAULTS], { merchantId: '', sandbox: false });
    countedCaches.set(ctx.db, { at: now, counted: countedMeasures([...conditions, ...defaults]) });
  });
  return countedCaches.get(ctx.db)!.counted;
}

// --- which scopes have lists, cached per node ---------------------------------------------------------------

const listCaches = new WeakMap<object, Map<string, { at: number; any: boolean }>>();
const listCacheOf = (ctx: ServiceContext): Map<string, { at: number; any: boolean }> => {
  let cache = listCaches.get(ctx.db);
  if (!cache) listCaches.set(ctx.db, (cache = new Map()));
  return cache;
};

/** Forgets whether a scope has list entries (after a change on this node). */
export const forgetLists = (ctx: ServiceContext, scope: string): void => void listCacheOf(ctx).delete(scope);

/** Whether any of the scopes has list entries: a payment's values are looked up in the lists only then. */
async function anyLists(ctx: ServiceContext, scopes: readonly string[]): Promise<boolean> {
  const cache = listCacheOf(ctx);
  const now = Date.now();
  const stale = scopes.filter((s) => { const c = cache.get(s); return !c || now - c.at >= RULES_TTL_MS; });
  if (stale.length > 0) {
    await sharedRead(ctx, `lists\u0000${stale.join('\u0000')}`, async () => {
      const found = await scopesWithListEntries(ctx.db, stale);
      for (const s of stale) cache.set(s, { at: now, any: found.has(s) });
      while (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
    });
  }
  return scopes.some((s) => cache.get(s)!.any);
}

// --- keys --------------------------------------------------------------------------------------------------

const riskKeys = new WeakMap<Keyring, Buffer>();
/**
 * The keyed-hash key, derived from the vault's active key. Rotating the active vault key starts new fingerprints
 * (velocity history and card list entries keyed by the old ones stop matching): see docs/operators/risk.md.
 */
export function riskKeyOf(keyring: Keyring): Buffer {
  let key = riskKeys.get(keyring);
  if (!key) {
    key = deriveRiskKey(keyring.keys.get(keyring.activeKeyId)!.expose());
    riskKeys.set(keyring, key);
  }
  return key;
}

async function panOf(ctx: ServiceContext, s: RiskSubject): Promise<string | undefined> {
  if (s.pan) return s.pan;
  if (!s.vaultId) return undefined;
  return (await loadCard(ctx.db, ctx.keyring, s.vaultId))?.pan();
}

/**
 * The payment's keys (the card's fingerprint always: lists and the dispute feed read it). The others are keyed
 * hashes, each a call into the native HMAC: only those a counter is kept or read by (`needed`; undefined: all).
 */
function keysOf(key: Buffer, s: RiskSubject, fingerprint: string | undefined, needed?: ReadonlySet<VelocityBy>): VelocityKeys {
  const keys: VelocityKeys = { merchant: s.merchantId };
  if (fingerprint) keys.card = fingerprint;
  if (s.email && (!needed || needed.has('email'))) keys.email = keyedHash(key, 'email', s.email.trim().toLowerCase());
  if (s.ip && (!needed || needed.has('ip'))) keys.ip = keyedHash(key, 'ip', s.ip);
  if (s.sessionId && (!needed || needed.has('session'))) keys.session = keyedHash(key, 'session', s.sessionId);
  if (s.deviceId && (!needed || needed.has('device'))) keys.device = keyedHash(key, 'device', s.deviceId);
  return keys;
}

/** The dimensions a payment needs keys for: those its counters are kept by and those its rules read. */
function neededDimensions(counted: CountedMeasures | undefined, conditions: readonly VelocityCondition[]): Set<VelocityBy> {
  const needed = new Set<VelocityBy>(conditions.map((v) => v.by));
  if (counted) for (const list of [counted.attempts, counted.outcomes, counted.members]) for (const by of list) needed.add(by);
  return needed;
}

function factsOf(ctx: ServiceContext, s: RiskSubject, pan: string | undefined): RiskFacts {
  const bin = pan ? pan.slice(0, 8) : s.bin;
  const issuer = bin ? (ctx.binTable ?? SAMPLE_BIN_TABLE).lookup(bin) : undefined;
  const ip = parseIp(s.ip);
  return {
    merchantId: s.merchantId, midId: s.midId, channel: s.channel, method: s.method, intent: s.intent,
    money: { minor: s.amount, currency: s.currency }, bin, brand: s.brand ?? (bin ? cardBrandByPrefix(bin.slice(0, 6)) ?? issuer?.brand : undefined),
    cardCountry: issuer?.country, billingCountry: s.billingCountry, ip, ipCountry: (ctx.ipTable ?? SAMPLE_IP_TABLE).country(ip),
    emailDomain: emailDomain(s.email), recurring: s.recurring, merchantInitiated: s.merchantInitiated, sandbox: s.sandbox, customData: s.customData, threeDs: s.threeDs,
  };
}

function listProbe(s: RiskSubject, facts: RiskFacts, fingerprint: string | undefined): ListProbe {
  const countries = [...new Set([facts.cardCountry, facts.ipCountry, facts.billingCountry].filter((c): c is string => c !== undefined))];
  return {
    card: fingerprint, bins: facts.bin && facts.bin.length >= 6 ? [6, 7, 8].filter((n) => facts.bin!.length >= n).map((n) => facts.bin!.slice(0, n)) : undefined,
    email: s.email?.trim().toLowerCase(), emailDomain: facts.emailDomain, ip: facts.ip ? s.ip : undefined, countries, device: s.deviceId,
  };
}

function counterReads(conditions: readonly VelocityCondition[], keys: VelocityKeys, now: Date): { reads: CounterRead[]; absent: string[] } {
  const reads = new Map<string, CounterRead>();
  const absent: string[] = [];
  for (const v of conditions) {
    const id = velocityKey(v);
    if (reads.has(id) || absent.includes(id)) continue;
    const key = keys[v.by];
    if (!key) { absent.push(id); continue; }
    const { grain, since } = windowStart(now, v.window_minutes);
    reads.set(id, { id, measure: v.measure, dimension: v.by, key, grain, since, currency: v.currency ?? '' });
  }
  return { reads: [...reads.values()], absent };
}

/** Screens one attempt: evaluates it and records the evaluation and the attempt's counters (one statement). */
export async function screenRisk(ctx: ServiceContext, s: RiskSubject): Promise<RiskVerdict> {
  const { record, ...verdict } = await evaluateScreen(ctx, s);
  await recordScreen(ctx.db, record);
  return verdict;
}

/**
 * Evaluates one attempt and answers the verdict with the record of the screen (its evaluation, the attempt's
 * counters and card), not written yet: the caller writes it with its own first write of the payment (the card
 * attempt folds it into the payment's insert, services/attempt/screen.ts), or alone (writeScreen), exactly once.
 */
export async function evaluateScreen(ctx: ServiceContext, s: RiskSubject): Promise<RiskVerdict & { record: ScreenRecord }> {
  const now = ctx.clock.now();
  const sets = await ruleSetsFor(ctx, s.merchantId);
  const pan = await panOf(ctx, s);
  const secret = riskKeyOf(ctx.keyring);
  const fingerprint = pan ? cardFingerprint(secret, pan) : undefined;
  const facts = factsOf(ctx, s, pan);
  // A charge the payer is not present for skips velocity (issue 26), so its counters are neither read nor kept.
  const conditions = s.merchantInitiated ? [] : velocityConditions(sets.map((x) => x.set), s);
  const counted = s.merchantInitiated ? undefined : await countedFor(ctx);
  const keys = keysOf(secret, s, fingerprint, neededDimensions(counted, conditions));
  const { reads, absent } = counterReads(conditions, keys, now);
  const scopes = [PLATFORM_SCOPE, s.merchantId];
  const lists = await anyLists(ctx, scopes);
  // Nothing to read (no counter a rule could use, no list entry anywhere the payment could hit): no statement.
  const read: ScreenRead = reads.length > 0 || lists
    ? await readForScreen(ctx.db, scopes, reads, lists ? listProbe(s, facts, fingerprint) : {}, fingerprint ?? null, now)
    : { counters: new Map(), lists: [] };
  const velocity = new Map<string, bigint>(absent.map((id) => [id, 0n]));
  const current = { amount: s.amount, currency: s.currency, hasCard: fingerprint !== undefined };
  for (const r of reads) {
    const stored = read.counters.get(r.id);
    if (stored) velocity.set(r.id, withCurrent(r.measure, stored.value, { ...current, cardSeen: stored.memberSeen }, r.currency || s.currency));
  }
  const evaluation = evaluateRisk(sets, facts, { velocity, lists: read.lists, absent });
  const reviewDeadline = evaluation.action === 'review' ? new Date(now.getTime() + REVIEW_DEADLINE_MINUTES * 60_000) : undefined;
  const record: ScreenRecord = {
    paymentId: s.paymentId, merchantId: s.merchantId, evaluation, keys, card: fingerprint ?? null, amount: s.amount, currency: s.currency,
    // A review is queued only by a path that holds the payment for it (services/attempt/screen.ts holdsForReview).
    count: !s.merchantInitiated, review: null, now,
  };
  if (counted) record.counted = counted;
  riskMetrics.observe(evaluation);
  if (evaluation.failed.length > 0) {
    ctx.logger.error({ merchantId: s.merchantId, paymentId: s.paymentId, failed: evaluation.failed.map((f) => ({ scope: f.scope, index: f.index, name: f.name, error: f.error })) }, 'risk: a rule failed and was skipped');
  }
  return reviewDeadline ? { evaluation, reviewDeadline, record } : { evaluation, record };
}

/** Writes a screen's record (evaluateScreen) in a statement of its own. */
export async function writeScreen(sql: Sql, record: ScreenRecord): Promise<void> {
  await recordScreen(sql, record);
}

/** Counts an attempt's final outcome under its screen's keys (declines apart from approvals). */
export async function countRiskOutcome(ctx: ServiceContext, sql: Sql, paymentId: string, outcome: 'approved' | 'declined'): Promise<void> {
  await countOutcome(sql, paymentId, outcome, ctx.clock.now());
}

/** Deletes one batch of counters older than the longest window (and an hour): returns how many rows went. */
export async function pruneRiskCounters(ctx: ServiceContext): Promise<number> {
  return pruneVelocity(ctx.db, new Date(ctx.clock.now().getTime() - (MAX_WINDOW_MINUTES + 60) * 60_000));
}
