/**
 * Schedules, the chains that follow them (subscriptions), their charges and the sandbox test clocks.
 * The runner's writes are set-based (one statement per batch, rows as a jsonb recordset) so that a batch of
 * due payments costs a handful of round trips, and every claim is a compare-and-set.
 */
import { entriesParam, postingCtes } from './ledger-repo.ts';
import type { LedgerEntry } from '../domain/ledger/postings.ts';
import type { Sql } from './database.ts';
import { toPayment } from './payments-repo.ts';
import type { Payment, PaymentDetails } from '../domain/model/payment.ts';
import type { AttemptOpening, AttemptResult } from '../domain/model/attempt.ts';
import { ATTEMPT_RESULT_SET, CURRENT_ATTEMPT } from './attempts-repo.ts';
import type { FirstPaymentDelay, IntervalUnit, ScheduleRule } from '../domain/schedule-calendar.ts';

// --- schedules ---------------------------------------------------------------------------------------

export interface Schedule {
  id: string;
  merchantId: string;
  name: string;
  rule: ScheduleRule;
  paused: boolean;
  used: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface ScheduleRow {
  id: string;
  merchant_id: string;
  name: string;
  interval_length: number;
  interval_unit: IntervalUnit;
  day_of_month: number | null;
  payments_count: number;
  delayed_first_payment: FirstPaymentDelay['kind'];
  first_payment_interval_length: number | null;
  first_payment_interval_unit: IntervalUnit | null;
  first_payment_day_of_week: number | null;
  first_payment_day_of_month: number | null;
  paused: boolean;
  used: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The stored columns of a delay -> the calendar's delay. */
const DELAY_FROM_ROW: { readonly [K in FirstPaymentDelay['kind']]: (r: ScheduleRow) => FirstPaymentDelay } = {
  none: () => ({ kind: 'none' }),
  delay_by_interval: (r) => ({ kind: 'delay_by_interval', interval: { length: r.first_payment_interval_length ?? 1, unit: r.first_payment_interval_unit ?? 'day' } }),
  day_of_week: (r) => ({ kind: 'day_of_week', weekday: r.first_payment_day_of_week ?? 1 }),
  day_of_month: (r) => ({ kind: 'day_of_month', day: r.first_payment_day_of_month ?? 1 }),
};

function toSchedule(r: ScheduleRow): Schedule {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    name: r.name,
    rule: {
      interval: { length: r.interval_length, unit: r.interval_unit },
      ...(r.day_of_month !== null ? { dayOfMonth: r.day_of_month } : {}),
      delay: DELAY_FROM_ROW[r.delayed_first_payment](r),
      paymentsCount: r.payments_count,
    },
    paused: r.paused,
    used: r.used,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** The delay as columns; the columns of the other kinds are cleared. */
function delayColumns(d: FirstPaymentDelay): unknown[] {
  return [
    d.kind,
    d.kind === 'delay_by_interval' ? d.interval.length : null,
    d.kind === 'delay_by_interval' ? d.interval.unit : null,
    d.kind === 'day_of_week' ? d.weekday : null,
    d.kind === 'day_of_month' ? d.day : null,
  ];
}

function ruleColumns(name: string, r: ScheduleRule): unknown[] {
  return [name, r.interval.length, r.interval.unit, r.dayOfMonth ?? null, r.paymentsCount, ...delayColumns(r.delay)];
}

export async function insertSchedule(sql: Sql, s: { id: string; merchantId: string; name: string; rule: ScheduleRule; now: Date }): Promise<Schedule> {
  const [row] = await sql.query<ScheduleRow>(
    `INSERT INTO schedules (id, merchant_id, name, interval_length, interval_unit, day_of_month, payments_count, delayed_first_payment,
       first_payment_interval_length, first_payment_interval_unit, first_payment_day_of_week, first_payment_day_of_month, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING *`,
    [s.id, s.merchantId, ...ruleColumns(s.name, s.rule), s.now],
  );
  return toSchedule(row as ScheduleRow);
}

export async function getSchedule(sql: Sql, merchantId: string, id: string, lock = false): Promise<Schedule | undefined> {
  const [row] = await sql.query<ScheduleRow>(`SELECT * FROM schedules WHERE id = $1 AND merchant_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, merchantId]);
  return row && toSchedule(row);
}

export async function saveSchedule(sql: Sql, s: Pick<Schedule, 'id' | 'name' | 'rule'>, now: Date): Promise<void> {
  await sql.query(
    `UPDATE schedules SET name = $2, interval_length = $3, interval_unit = $4, day_of_month = $5, payments_count = $6,
       delayed_first_payment = $7, first_payment_interval_length = $8, first_payment_interval_unit = $9,
       first_payment_day_of_week = $10, first_payment_day_of_month = $11, updated_at = $12
     WHERE id = $1`,
    [s.id, ...ruleColumns(s.name, s.rule), now],
  );
}

/**
 * The schedule a payment request names, marked used so that it can no longer be deleted. Only the first use
 * writes: a popular schedule is not a hot row. A schedule deleted in between is not found.
 */
export async function useSchedule(sql: Sql, merchantId: string, id: string): Promise<Schedule | undefined> {
  const found = await getSchedule(sql, merchantId, id);
  if (!found || found.used) return found;
  const [row] = await sql.query<ScheduleRow>('UPDATE schedules SET used = true WHERE id = $1 AND merchant_id = $2 RETURNING *', [id, merchantId]);
  return row && toSchedule(row);
}

/** Deletes a schedule no payment uses. */
export async function deleteUnusedSchedule(sql: Sql, merchantId: string, id: string): Promise<'deleted' | 'used' | 'missing'> {
  const deleted = await sql.query('DELETE FROM schedules WHERE id = $1 AND merchant_id = $2 AND NOT used RETURNING id', [id, merchantId]);
  if (deleted.length > 0) return 'deleted';
  return (await getSchedule(sql, merchantId, id)) ? 'used' : 'missing';
}

export async function setSchedulePaused(sql: Sql, id: string, paused: boolean, now: Date): Promise<void> {
  await sql.query('UPDATE schedules SET paused = $2, updated_at = $3 WHERE id = $1', [id, paused, now]);
}

// --- subscriptions -----------------------------------------------------------------------------------

export interface Subscription {
  id: string;
  scheduleId: string;
  merchantId: string;
  initPaymentId: string;
  originPaymentId: string;
  recurringToken: string;
  operation: 'recurring' | 'recurring_debit';
  amount: bigint;
  currency: string;
  startedOn: string;
  firstDate: string;
  anchorDay: number;
  nextSeq: number;
  lastDueDate: string | null;
  nextDueDate: string | null;
  status: 'active' | 'descheduled';
}

interface SubscriptionRow {
  id: string;
  schedule_id: string;
  merchant_id: string;
  init_payment_id: string;
  origin_payment_id: string;
  recurring_token: string;
  operation: Subscription['operation'];
  amount: bigint;
  currency: string;
  started_on: string;
  first_date: string;
  anchor_day: number;
  next_seq: number;
  last_due_date: string | null;
  next_due_date: string | null;
  status: Subscription['status'];
}

export function toSubscription(r: SubscriptionRow): Subscription {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    merchantId: r.merchant_id,
    initPaymentId: r.init_payment_id,
    originPaymentId: r.origin_payment_id,
    recurringToken: r.recurring_token,
    operation: r.operation,
    amount: BigInt(r.amount),
    currency: r.currency,
    startedOn: r.started_on,
    firstDate: r.first_date,
    anchorDay: r.anchor_day,
    nextSeq: r.next_seq,
    lastDueDate: r.last_due_date,
    nextDueDate: r.next_due_date,
    status: r.status,
  };
}

const dueAt = (date: string | null): Date | null => (date === null ? null : new Date(`${date}T00:00:00.000Z`));

export type NewSubscription = Omit<Subscription, 'nextSeq' | 'lastDueDate' | 'status'> & { now: Date };

/** Puts a chain on a schedule; a chain already on it keeps its subscription (answers the existing one). */
export async function insertSubscription(sql: Sql, s: NewSubscription): Promise<Subscription> {
  const [row] = await sql.query<SubscriptionRow>(
    `INSERT INTO schedule_subscriptions (id, schedule_id, merchant_id, init_payment_id, origin_payment_id, recurring_token, operation,
       amount, currency, started_on, first_date, anchor_day, next_due_date, next_due_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
     ON CONFLICT DO NOTHING RETURNING *`,
    [s.id, s.scheduleId, s.merchantId, s.initPaymentId, s.originPaymentId, s.recurringToken, s.operation, s.amount, s.currency,
      s.startedOn, s.firstDate, s.anchorDay, s.nextDueDate, dueAt(s.nextDueDate), s.now],
  );
  if (row) return toSubscription(row);
  const existing = await findActiveSubscription(sql, s.scheduleId, s.recurringToken);
  if (!existing) throw new Error('subscription conflict without an active subscription');
  return existing;
}

export async function findActiveSubscription(sql: Sql, scheduleId: string, recurringToken: string): Promise<Subscription | undefined> {
  const [row] = await sql.query<SubscriptionRow>(
    "SELECT * FROM schedule_subscriptions WHERE schedule_id = $1 AND recurring_token = $2 AND status = 'active'",
    [scheduleId, recurringToken],
  );
  return row && toSubscription(row);
}

export async function subscriptionsOfSchedule(sql: Sql, scheduleId: string): Promise<Subscription[]> {
  const rows = await sql.query<SubscriptionRow>('SELECT * FROM schedule_subscriptions WHERE schedule_id = $1 ORDER BY created_at, id', [scheduleId]);
  return rows.map(toSubscription);
}

/** Stops one chain on one schedule. */
export async function deschedule(sql: Sql, scheduleId: string, recurringToken: string, now: Date): Promise<'descheduled' | 'already' | 'missing'> {
  const stopped = await sql.query(
    `UPDATE schedule_subscriptions SET status = 'descheduled', next_due_at = NULL, updated_at = $3
     WHERE schedule_id = $1 AND recurring_token = $2 AND status = 'active' RETURNING id`,
    [scheduleId, recurringToken, now],
  );
  if (stopped.length > 0) return 'descheduled';
  const any = await sql.query('SELECT 1 FROM schedule_subscriptions WHERE schedule_id = $1 AND recurring_token = $2 LIMIT 1', [scheduleId, recurringToken]);
  return any.length > 0 ? 'already' : 'missing';
}

/** The active chains of a schedule, locked until the caller's transaction ends (they wait for runner claims). */
export async function lockActiveSubscriptions(sql: Sql, scheduleId: string): Promise<Subscription[]> {
  const rows = await sql.query<SubscriptionRow>(
    "SELECT * FROM schedule_subscriptions WHERE schedule_id = $1 AND status = 'active' ORDER BY id FOR UPDATE",
    [scheduleId],
  );
  return rows.map(toSubscription);
}

export interface Position {
  id: string;
  nextSeq: number;
  lastDueDate: string | null;
  nextDueDate: string | null;
}

/** Moves chains to new positions on their schedule (after an update, or past payments skipped while paused). */
export async function savePositions(sql: Sql, positions: readonly Position[], now: Date): Promise<void> {
  if (positions.length === 0) return;
  await sql.query(
    `UPDATE schedule_subscriptions s SET next_seq = v.next_seq, last_due_date = v.last_due_date, next_due_date = v.next_due_date,
       next_due_at = v.next_due_at, updated_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS v(id text, next_seq int, last_due_date text, next_due_date text, next_due_at timestamptz)
     WHERE s.id = v.id`,
    [JSON.stringify(positions.map((p) => ({ id: p.id, next_seq: p.nextSeq, last_due_date: p.lastDueDate, next_due_date: p.nextDueDate, next_due_at: dueAt(p.nextDueDate) }))), now],
  );
}

/** Records payments that fell due while their schedule was paused and were skipped (no payment). */
export async function insertSkippedCharges(sql: Sql, skipped: readonly { subscriptionId: string; seq: number; dueDate: string }[], now: Date): Promise<void> {
  if (skipped.length === 0) return;
  await sql.query(
    `INSERT INTO schedule_charges (subscription_id, seq, due_date, created_at)
     SELECT subscription_id, seq, due_date, $2 FROM jsonb_to_recordset($1::jsonb) AS v(subscription_id text, seq int, due_date text)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(skipped.map((s) => ({ subscription_id: s.subscriptionId, seq: s.seq, due_date: s.dueDate }))), now],
  );
}

export interface ChargeRecord {
  subscriptionId: string;
  seq: number;
  dueDate: string;
  paymentId: string | null;
}

export async function chargesOf(sql: Sql, subscriptionId: string): Promise<ChargeRecord[]> {
  const rows = await sql.query<{ subscription_id: string; seq: number; due_date: string; payment_id: string | null }>(
    'SELECT subscription_id, seq, due_date, payment_id FROM schedule_charges WHERE subscription_id = $1 ORDER BY seq',
    [subscriptionId],
  );
  return rows.map((r) => ({ subscriptionId: r.subscription_id, seq: r.seq, dueDate: r.due_date, paymentId: r.payment_id }));
}

// --- the runner --------------------------------------------------------------------------------------

/** A due chain as the runner claims it: the subscription, its schedule's rule, its origin payment, its clock. */
export interface DueChain {
  subscription: Subscription;
  rule: ScheduleRule;
  origin: Payment;
  clockOffsetMs: number;
}

/**
 * Locks up to `limit` due chains of schedules that are not paused, skipping chains another runner is claiming.
 * The schedule rows are share-locked, so a PAUSE waits for claims in progress and no claim starts after it.
 * Due means: next_due_at has passed on the merchant's clock (the real clock plus its test-clock offset).
 */
export async function lockDueChains(tx: Sql, now: Date, limit: number): Promise<DueChain[]> {
  const rows = await tx.query<SubscriptionRow & ScheduleRow & { origin: Record<string, unknown>; clock_offset_ms: bigint }>(
    `SELECT s.*, sc.interval_length, sc.interval_unit, sc.day_of_month, sc.payments_count, sc.delayed_first_payment,
       sc.first_payment_interval_length, sc.first_payment_interval_unit, sc.first_payment_day_of_week, sc.first_payment_day_of_month,
       to_jsonb(p.*) || jsonb_build_object('amount', p.amount::text, 'captured_amount', p.captured_amount::text, 'refunded_amount', p.refunded_amount::text) AS origin, COALESCE(tc.offset_ms, 0) AS clock_offset_ms
     FROM schedule_subscriptions s
     JOIN schedules sc ON sc.id = s.schedule_id
     JOIN payments p ON p.id = s.origin_payment_id
     LEFT JOIN test_clocks tc ON tc.merchant_id = s.merchant_id
     WHERE s.status = 'active' AND NOT sc.paused
       AND s.next_due_at <= $1::timestamptz + COALESCE(tc.offset_ms, 0) * interval '1 millisecond'
     ORDER BY s.next_due_at
     LIMIT $2
     FOR UPDATE OF s SKIP LOCKED
     FOR SHARE OF sc SKIP LOCKED`,
    [now, limit],
  );
  return rows.map((r) => ({
    subscription: toSubscription(r),
    rule: toSchedule({ ...r, id: r.schedule_id, name: '', paused: false, used: true }).rule,
    origin: originPayment(r.origin),
    clockOffsetMs: Number(r.clock_offset_ms),
  }));
}

/** to_jsonb(payments row) -> Payment. Amounts come as text (a JSON number would lose bigint precision). */
function originPayment(json: Record<string, unknown>): Payment {
  return toPayment(json as unknown as Parameters<typeof toPayment>[0]);
}

/**
 * One claimed charge: its row (held by the runner's token `claimedBy` until `lockedUntil`), the payment it creates
 * (no operation in flight yet), the acquirer attempt it will make (none when no MID can take it), and where its
 * chain moves to.
 */
export interface Claim {
  subscriptionId: string;
  seq: number;
  dueDate: string;
  transactionId: string;
  payment: Payment;
  claimedBy: string;
  lockedUntil: Date;
  attempt?: AttemptOpening;
  next: Position;
}

/**
 * Writes the claims of one batch in one statement: the charge rows with the runner's claim (the unique key makes a
 * second claim of a payment number impossible), the payments, their waiting transactions and the acquirer attempts
 * they open, the chains' new positions. Returns the payment ids actually claimed; a conflicting charge row creates
 * no payment.
 */
export async function insertClaims(tx: Sql, claims: readonly Claim[], now: Date): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const input = claims.map((c) => ({
    subscription_id: c.subscriptionId, seq: c.seq, due_date: c.dueDate, locked_until: c.lockedUntil, claimed_by: c.claimedBy,
    payment_id: c.payment.id, transaction_id: c.transactionId, merchant_id: c.payment.merchantId, channel: c.payment.channel,
    operation: c.payment.operation, order_id: c.payment.orderId, amount: c.payment.amount.toString(), currency: c.payment.currency,
    description: c.payment.description, mid_id: c.payment.midId, vault_id: c.payment.vaultId, payer: c.payment.payer,
    custom_data: c.payment.customData, callback_url: c.payment.callbackUrl, details: c.payment.details,
    connector: c.attempt?.connector ?? null, why: c.attempt?.why ?? null, created_at: c.payment.createdAt,
    next_seq: c.next.nextSeq, last_due_date: c.next.lastDueDate, next_due_date: c.next.nextDueDate, next_due_at: dueAt(c.next.nextDueDate),
  }));
  const rows = await tx.query<{ payment_id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(subscription_id text, seq int, due_date text, locked_until timestamptz, claimed_by text,
         payment_id text, transaction_id text, merchant_id text, channel text, operation text, order_id text, amount text, currency text,
         description text, mid_id text, vault_id text, payer jsonb, custom_data jsonb, callback_url text, details jsonb, connector text, why text,
         created_at timestamptz, next_seq int, last_due_date text, next_due_date text, next_due_at timestamptz)),
     c AS (
       INSERT INTO schedule_charges (subscription_id, seq, due_date, payment_id, locked_until, claimed_by, created_at)
       SELECT subscription_id, seq, due_date, payment_id, locked_until, claimed_by, $2 FROM input
       ON CONFLICT DO NOTHING RETURNING payment_id),
     p AS (
       INSERT INTO payments (id, merchant_id, channel, operation, order_id, amount, currency, description, status, auth, mid_id, vault_id,
         payer, custom_data, callback_url, details, pending_operation, created_at, updated_at)
       SELECT payment_id, merchant_id, channel, operation, order_id, amount::bigint, currency, description, 'prepare', false, mid_id, vault_id,
         payer, custom_data, callback_url, details, NULL, created_at, created_at
       FROM input WHERE payment_id IN (SELECT payment_id FROM c)),
     t AS (
       INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at)
       SELECT transaction_id, payment_id, 'recurring', 'waiting', amount::bigint, '{}'::jsonb, created_at
       FROM input WHERE payment_id IN (SELECT payment_id FROM c)),
     a AS (
       INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, amount, currency, created_at)
       SELECT transaction_id, payment_id, 1, mid_id, connector, why, 'pending', amount::bigint, currency, created_at
       FROM input WHERE why IS NOT NULL AND payment_id IN (SELECT payment_id FROM c)),
     u AS (
       UPDATE schedule_subscriptions s SET next_seq = i.next_seq, last_due_date = i.last_due_date, next_due_date = i.next_due_date,
         next_due_at = i.next_due_at, updated_at = $2
       FROM input i WHERE s.id = i.subscription_id)
     SELECT payment_id FROM c`,
    [JSON.stringify(input), now],
  );
  return new Set(rows.map((r) => r.payment_id));
}

/**
 * The fence before the connector: the payments of charges still claimed by `claim`, with no operation in flight,
 * move to the in-flight operation 'authorize'. A runner whose claim was taken over since gets nothing back and
 * calls no connector; of two runners racing for one payment, the compare-and-set on its operation lets one through.
 */
export async function markAuthorizing(sql: Sql, paymentIds: readonly string[], claim: string): Promise<Set<string>> {
  if (paymentIds.length === 0) return new Set();
  const rows = await sql.query<{ id: string }>(
    `UPDATE payments SET pending_operation = 'authorize'
     WHERE id IN (SELECT c.payment_id FROM schedule_charges c WHERE c.payment_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND c.claimed_by = $2)
       AND status = 'prepare' AND pending_operation IS NULL RETURNING id`,
    [JSON.stringify(paymentIds), claim],
  );
  return new Set(rows.map((r) => r.id));
}

export interface ExpiredCharge {
  paymentId: string;
  lockedUntil: Date;
}

/**
 * Charges whose lease ran out before their payment's outcome was written (still in prepare: only claimed, or in
 * flight with 'authorize'): a runner died or stalled.
 */
export async function findExpiredCharges(sql: Sql, now: Date, limit: number): Promise<ExpiredCharge[]> {
  const rows = await sql.query<{ payment_id: string; locked_until: Date }>(
    `SELECT c.payment_id, c.locked_until
     FROM payments p JOIN schedule_charges c ON c.payment_id = p.id
     WHERE p.status = 'prepare' AND c.locked_until < $1
     ORDER BY c.locked_until LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ paymentId: r.payment_id, lockedUntil: new Date(r.locked_until) }));
}

/**
 * Takes over an expired charge: a compare-and-set on its lease moves the lease and the claim to `newClaim`, so the
 * runner that held it can no longer fence it. Returns the payment as it stands (no operation in flight: the
 * connector was never called; 'authorize': it may have been), or undefined when another runner took it first.
 */
export async function takeOverCharge(sql: Sql, expired: ExpiredCharge, lockedUntil: Date, newClaim: string): Promise<Payment | undefined> {
  const rows = await sql.query<Parameters<typeof toPayment>[0]>(
    `WITH c AS (UPDATE schedule_charges SET locked_until = $3, claimed_by = $4 WHERE payment_id = $1 AND locked_until = $2 RETURNING payment_id)
     SELECT * FROM payments WHERE id IN (SELECT payment_id FROM c)`,
    [expired.paymentId, expired.lockedUntil, lockedUntil, newClaim],
  );
  const [row] = rows;
  return row && toPayment(row);
}

/** A charge's result, written only if its payment is still in flight ('authorize'), with its attempt's. */
export interface ChargeOutcome {
  paymentId: string;
  status: string;
  capturedAmount: bigint;
  declineReason: string | null;
  threeDs: unknown;
  details: PaymentDetails;
  transactionId: string;
  transactionStatus: string;
  transactionDetails: Record<string, unknown>;
  attempt: AttemptResult;
  at: Date;
}

export interface OutboxRow {
  id: string;
  merchantId: string;
  paymentId: string;
  url: string;
  protocol: 'checkout' | 's2s';
  fields: unknown;
  body: string;
}

/**
 * Writes the outcomes of a batch in one statement: payments (compare-and-set on the in-flight state), their
 * transactions, and the callbacks of the payments that were written (outbox, due at `dueAt` on the real
 * clock even when the merchant's test clock runs ahead), and the ledger entries of the payments written (each
 * entry names its payment). Returns the payment ids written.
 */
export async function recordOutcomes(sql: Sql, outcomes: readonly ChargeOutcome[], callbacks: readonly OutboxRow[], dueAt: Date, entries: readonly LedgerEntry[] = []): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const values = outcomes.map((o) => ({
    id: o.paymentId, status: o.status, captured_amount: o.capturedAmount.toString(), decline_reason: o.declineReason, three_ds: o.threeDs ?? null,
    details: o.details, transaction_id: o.transactionId, transaction_status: o.transactionStatus, transaction_details: o.transactionDetails, updated_at: o.at,
    at_status: o.attempt.status, at_code: o.attempt.declineCode, at_retry: o.attempt.retry, at_stop: o.attempt.stop ?? null, at_ref: o.attempt.acquirerRef,
    at_finished: o.attempt.finished ? o.at : null,
  }));
  const outbox = callbacks.map((c) => ({ id: c.id, merchant_id: c.merchantId, payment_id: c.paymentId, url: c.url, protocol: c.protocol, fields: c.fields, body: c.body }));
  const rows = await sql.query<{ id: string }>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, status text, captured_amount text, decline_reason text, three_ds jsonb,
         details jsonb, transaction_id text, transaction_status text, transaction_details jsonb, updated_at timestamptz,
         at_status text, at_code text, at_retry text, at_stop text, at_ref text, at_finished timestamptz)),
     u AS (
       UPDATE payments p SET status = v.status, captured_amount = v.captured_amount::bigint, decline_reason = v.decline_reason,
         three_ds = COALESCE(v.three_ds, p.three_ds), details = p.details || v.details, pending_operation = NULL,
         updated_at = v.updated_at, version = p.version + 1
       FROM v WHERE p.id = v.id AND p.status = 'prepare' AND p.pending_operation = 'authorize' RETURNING p.id),
     t AS (
       UPDATE transactions tr SET status = v.transaction_status, details = tr.details || v.transaction_details
       FROM v WHERE tr.id = v.transaction_id AND v.id IN (SELECT id FROM u)),
     a AS (
       UPDATE payment_attempts pa SET ${ATTEMPT_RESULT_SET({ status: 'v.at_status', code: 'v.at_code', retry: 'v.at_retry', stop: 'v.at_stop', ref: 'v.at_ref', finishedAt: 'v.at_finished' })}
       FROM v WHERE pa.payment_id = v.id AND pa.seq = ${CURRENT_ATTEMPT('v.id')} AND v.id IN (SELECT id FROM u)),
     cb AS (
       INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, next_attempt_at, created_at)
       SELECT x.id, x.merchant_id, x.payment_id, x.url, x.protocol, x.fields, x.body, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS x(id text, merchant_id text, payment_id text, url text, protocol text, fields jsonb, body text)
       WHERE x.payment_id IN (SELECT id FROM u)
       ON CONFLICT (id) DO NOTHING),
     ${postingCtes(`(SELECT x->>0 AS ref, x->>1 AS event, x->>2 AS account, x->>3 AS currency, (x->>4)::bigint AS amount, x->>5 AS payment_id, $3::timestamptz AS created_at
        FROM jsonb_array_elements($4::jsonb) AS x WHERE x->>5 IN (SELECT id FROM u)) AS le`)}
     SELECT id FROM u`,
    [JSON.stringify(values), JSON.stringify(outbox), dueAt, entriesParam(entries)],
  );
  return new Set(rows.map((r) => r.id));
}

// --- test clocks -------------------------------------------------------------------------------------

export async function clockOffset(sql: Sql, merchantId: string): Promise<number> {
  const [row] = await sql.query<{ offset_ms: bigint }>('SELECT offset_ms FROM test_clocks WHERE merchant_id = $1', [merchantId]);
  return row ? Number(row.offset_ms) : 0;
}

/** Moves one merchant's clock forward; returns the new offset. */
export async function advanceClock(sql: Sql, merchantId: string, byMs: number, now: Date): Promise<number> {
  const [row] = await sql.query<{ offset_ms: bigint }>(
    `INSERT INTO test_clocks (merchant_id, offset_ms, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (merchant_id) DO UPDATE SET offset_ms = test_clocks.offset_ms + EXCLUDED.offset_ms, updated_at = EXCLUDED.updated_at
     RETURNING offset_ms`,
    [merchantId, byMs, now],
  );
  return Number(row?.offset_ms ?? 0);
}
