/**
 * The risk engine's store (migration 040): rule sets and their versions, allow/block lists, velocity counters in
 * time buckets (sharded), distinct-card members and each payment's evaluation. A payment's screen costs one read
 * (the counters its rules need and the list entries its values hit, in one statement) and one write (its
 * evaluation, its counters and members, in one statement); its outcome one more write.
 */
import type { Sql } from './database.ts';
import { groupCommitted } from './group-commit.ts';
import type { ListHit, ListKind, RiskEvaluation } from '../domain/risk/evaluate.ts';
import type { RiskRuleSet } from '../domain/risk/rules.ts';
import type { StoredPaymentForBacktest } from '../domain/risk/backtest.ts';
import type { Operation } from '../domain/operations.ts';
import { ALL_COUNTED, GRAINS, SHARDS, bucketOf, type CountedMeasures, type VelocityKeys } from '../domain/risk/velocity.ts';
import type { VelocityBy, VelocityMeasure } from '../domain/risk/rules.ts';

// --- rule sets ---------------------------------------------------------------------------------------------

export interface StoredRuleSet {
  scope: string;
  version: number;
  rules: RiskRuleSet;
  updatedAt: Date;
  updatedBy: string | null;
}

interface RuleSetRow { scope: string; version: number; rules: RiskRuleSet; updated_at: Date; updated_by: string | null }
const ruleSetOf = (r: RuleSetRow): StoredRuleSet => ({ scope: r.scope, version: Number(r.version), rules: r.rules, updatedAt: new Date(r.updated_at), updatedBy: r.updated_by });

export async function ruleSetsOf(sql: Sql, scopes: readonly string[]): Promise<StoredRuleSet[]> {
  const rows = await sql.query<RuleSetRow>('SELECT scope, version, rules, updated_at, updated_by FROM risk_rule_sets WHERE scope = ANY($1::text[])', [scopes]);
  return rows.map(ruleSetOf);
}

/**
 * Saves a new version if the current one is still `expectedVersion` (0: none saved yet); the version history gets
 * the same row. Undefined when another save got there first.
 */
export async function saveRuleSet(sql: Sql, scope: string, rules: RiskRuleSet, expectedVersion: number, by: string | null, note: string | null, now: Date): Promise<StoredRuleSet | undefined> {
  const rows = await sql.query<RuleSetRow>(
    `WITH saved AS (
       INSERT INTO risk_rule_sets AS s (scope, version, rules, updated_at, updated_by) VALUES ($1, $2::integer + 1, $3::jsonb, $4, $5)
       ON CONFLICT (scope) DO UPDATE SET version = s.version + 1, rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
         WHERE s.version = $2::integer
       RETURNING scope, version, rules, updated_at, updated_by
     ), history AS (
       INSERT INTO risk_rule_set_versions (scope, version, rules, created_at, created_by, note)
       SELECT scope, version, rules, updated_at, updated_by, $6 FROM saved
     )
     SELECT * FROM saved`,
    [scope, expectedVersion, JSON.stringify(rules), now, by, note],
  );
  return rows[0] ? ruleSetOf(rows[0]) : undefined;
}

export interface RuleSetVersion {
  version: number;
  rules: RiskRuleSet;
  createdAt: Date;
  createdBy: string | null;
  note: string | null;
}

export async function ruleSetVersions(sql: Sql, scope: string, limit = 100): Promise<RuleSetVersion[]> {
  const rows = await sql.query<{ version: number; rules: RiskRuleSet; created_at: Date; created_by: string | null; note: string | null }>(
    'SELECT version, rules, created_at, created_by, note FROM risk_rule_set_versions WHERE scope = $1 ORDER BY version DESC LIMIT $2',
    [scope, limit],
  );
  return rows.map((r) => ({ version: Number(r.version), rules: r.rules, createdAt: new Date(r.created_at), createdBy: r.created_by, note: r.note }));
}

// --- lists -------------------------------------------------------------------------------------------------

export interface ListEntry {
  id: string;
  scope: string;
  list: 'allow' | 'block';
  kind: ListKind;
  value: string;
  reason: string;
  expiresAt: Date | null;
  createdAt: Date;
  createdBy: string | null;
}

interface ListRow { id: string; scope: string; list: 'allow' | 'block'; kind: ListKind; value: string; reason: string; expires_at: Date | null; created_at: Date; created_by: string | null }
const entryOf = (r: ListRow): ListEntry => ({
  id: r.id, scope: r.scope, list: r.list, kind: r.kind, value: r.value, reason: r.reason,
  expiresAt: r.expires_at ? new Date(r.expires_at) : null, createdAt: new Date(r.created_at), createdBy: r.created_by,
});

/** Adds entries, or replaces the reason and expiry of ones listed already (an import run twice changes nothing). */
export async function upsertListEntries(sql: Sql, entries: readonly Omit<ListEntry, 'createdAt'>[], now: Date): Promise<ListEntry[]> {
  if (entries.length === 0) return [];
  const rows = await sql.query<ListRow>(
    `INSERT INTO risk_list_entries (id, scope, list, kind, value, network, reason, expires_at, created_at, created_by)
     SELECT e.id, e.scope, e.list, e.kind, e.value, CASE WHEN e.kind = 'ip' THEN e.value::cidr END, e.reason, e.expires_at, $2, e.created_by
     FROM jsonb_to_recordset($1::jsonb) AS e(id text, scope text, list text, kind text, value text, reason text, expires_at timestamptz, created_by text)
     ON CONFLICT (scope, list, kind, value) DO UPDATE SET reason = EXCLUDED.reason, expires_at = EXCLUDED.expires_at
     RETURNING id, scope, list, kind, value, reason, expires_at, created_at, created_by`,
    [JSON.stringify(entries.map((e) => ({ id: e.id, scope: e.scope, list: e.list, kind: e.kind, value: e.value, reason: e.reason, expires_at: e.expiresAt?.toISOString() ?? null, created_by: e.createdBy }))), now],
  );
  return rows.map(entryOf);
}

/**
 * The fraud-dispute feed's entries: added only where no entry of anyone else (an operator's, an import's) for the
 * same scope, kind and value is in force, in either list, and never changing one: an operator's reason, expiry and
 * allow or block win. The feed's own entry (`createdBy`) is refreshed, and an expired entry of anyone is taken over.
 * Answers the entries written.
 */
export async function addFeedListEntries(sql: Sql, entries: readonly Omit<ListEntry, 'createdAt'>[], createdBy: string, now: Date): Promise<ListEntry[]> {
  if (entries.length === 0) return [];
  const rows = await sql.query<ListRow>(
    `INSERT INTO risk_list_entries AS r (id, scope, list, kind, value, network, reason, expires_at, created_at, created_by)
     SELECT e.id, e.scope, e.list, e.kind, e.value, CASE WHEN e.kind = 'ip' THEN e.value::cidr END, e.reason, e.expires_at, $2::timestamptz, $3::text
     FROM jsonb_to_recordset($1::jsonb) AS e(id text, scope text, list text, kind text, value text, reason text, expires_at timestamptz)
     WHERE NOT EXISTS (
       SELECT 1 FROM risk_list_entries o
       WHERE o.scope = e.scope AND o.kind = e.kind AND o.value = e.value AND o.created_by IS DISTINCT FROM $3::text
         AND (o.expires_at IS NULL OR o.expires_at > $2::timestamptz))
     ON CONFLICT (scope, list, kind, value) DO UPDATE SET reason = EXCLUDED.reason, expires_at = EXCLUDED.expires_at, created_by = EXCLUDED.created_by
       WHERE r.created_by IS NOT DISTINCT FROM EXCLUDED.created_by OR (r.expires_at IS NOT NULL AND r.expires_at <= $2::timestamptz)
     RETURNING id, scope, list, kind, value, reason, expires_at, created_at, created_by`,
    [JSON.stringify(entries.map((e) => ({ id: e.id, scope: e.scope, list: e.list, kind: e.kind, value: e.value, reason: e.reason, expires_at: e.expiresAt?.toISOString() ?? null }))), now, createdBy],
  );
  return rows.map(entryOf);
}

export async function deleteListEntry(sql: Sql, scope: string, id: string): Promise<boolean> {
  return (await sql.query('DELETE FROM risk_list_entries WHERE scope = $1 AND id = $2 RETURNING id', [scope, id])).length === 1;
}

/** The scopes among these that have list entries (expired ones included: they only cost a read). */
export async function scopesWithListEntries(sql: Sql, scopes: readonly string[]): Promise<Set<string>> {
  const rows = await sql.query<{ scope: string }>('SELECT DISTINCT scope FROM risk_list_entries WHERE scope = ANY($1::text[])', [scopes]);
  return new Set(rows.map((r) => r.scope));
}

export interface ListFilter {
  scope: string;
  list?: 'allow' | 'block';
  kind?: ListKind;
  limit: number;
  /** Entries after this id (ids sort in creation order). */
  after?: string;
  /** Entries whose value or reason holds this text (case-insensitive), or whose value is exactly one of `exact`. */
  search?: { text: string; exact: string[] };
}

export async function listEntries(sql: Sql, f: ListFilter): Promise<ListEntry[]> {
  const rows = await sql.query<ListRow>(
    `SELECT id, scope, list, kind, value, reason, expires_at, created_at, created_by FROM risk_list_entries
     WHERE scope = $1 AND ($2::text IS NULL OR list = $2) AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR id > $4)
       AND ($6::text IS NULL OR strpos(lower(value), $6) > 0 OR strpos(lower(reason), $6) > 0 OR value = ANY($7::text[]))
     ORDER BY id LIMIT $5`,
    [f.scope, f.list ?? null, f.kind ?? null, f.after ?? null, f.limit, f.search ? f.search.text.toLowerCase() : null, f.search?.exact ?? []],
  );
  return rows.map(entryOf);
}

// --- the screen's read and write -------------------------------------------------------------------------

/** The values of a payment the lists are searched for (each absent one is not searched). */
export interface ListProbe {
  card?: string;
  /** The card's first 6, 7 and 8 digits (a BIN entry is 6 to 8 digits). */
  bins?: string[];
  email?: string;
  emailDomain?: string;
  ip?: string;
  countries?: string[];
  device?: string;
}

export interface CounterRead {
  /** The counter's velocityKey (echoed back). */
  id: string;
  measure: 'attempts' | 'declines' | 'approvals' | 'amount' | 'distinct_cards';
  dimension: string;
  key: string;
  grain: number;
  since: Date;
  /** amount: the currency summed; '' otherwise. */
  currency: string;
}

export interface ScreenRead {
  counters: Map<string, { value: bigint; memberSeen: boolean }>;
  lists: ListHit[];
}

/** One payment's screen read, as its parameters travel (the batched statement takes a JSON array of them). */
interface ScreenReadItem {
  /** The scopes whose list entries apply. */
  s: readonly string[];
  /** The counters to read, their instants as ISO text (a Date takes JSON.stringify off its fast path). */
  c: readonly (Omit<CounterRead, 'since'> & { since: string })[];
  /** The (kind, value) pairs the lists are searched for. */
  p: { k: string; v: string }[];
  ip: string | null;
  /** The payment's card, as a distinct-cards member. */
  m: string | null;
  /** Now, as ISO text. */
  t: string;
}

interface ScreenReadRow {
  counters: { id: string; value: string; seen: boolean | null }[] | null;
  lists: { scope: string; list: 'allow' | 'block'; kind: ListKind; value: string; reason: string }[] | null;
}

/**
 * The two reads of a screen as SQL over one item's parameters (`item` answers each of them as an SQL expression):
 * the counters, each summed over its window's buckets (distinct cards counted, and whether this card is one of
 * them), and the list entries in force that the payment's values hit.
 */
function screenReadColumns(item: { counters: string; scopes: string; pairs: string; ip: string; member: string; now: string }): string {
  return `(SELECT json_agg(json_build_object('id', c.id, 'value', CASE WHEN c.measure = 'distinct_cards'
            THEN (SELECT count(DISTINCT m.member) FROM risk_velocity_members m WHERE m.dimension = c.dimension AND m.key = c.key AND m.grain = c.grain AND m.bucket >= c.since)
            ELSE (SELECT coalesce(sum(CASE c.measure WHEN 'attempts' THEN v.attempts WHEN 'declines' THEN v.declines WHEN 'approvals' THEN v.approvals ELSE v.amount END), 0)
                  FROM risk_velocity v WHERE v.dimension = c.dimension AND v.key = c.key AND v.grain = c.grain AND v.bucket >= c.since AND (c.currency = '' OR v.currency = c.currency)) END::text,
          'seen', CASE WHEN c.measure = 'distinct_cards' AND ${item.member} IS NOT NULL THEN EXISTS (SELECT 1 FROM risk_velocity_members m WHERE m.dimension = c.dimension AND m.key = c.key AND m.grain = c.grain AND m.bucket >= c.since AND m.member = ${item.member}) END))
         FROM jsonb_to_recordset(${item.counters}) AS c(id text, measure text, dimension text, key text, grain smallint, since timestamptz, currency text)) AS counters,
       (SELECT json_agg(json_build_object('scope', e.scope, 'list', e.list, 'kind', e.kind, 'value', e.value, 'reason', e.reason)) FROM risk_list_entries e
         WHERE e.scope = ANY(${item.scopes}) AND (e.expires_at IS NULL OR e.expires_at > ${item.now})
           AND ((e.kind, e.value) IN (SELECT p.k, p.v FROM jsonb_to_recordset(${item.pairs}) AS p(k text, v text))
                OR (${item.ip} IS NOT NULL AND e.kind = 'ip' AND e.network >>= ${item.ip}))) AS lists`;
}

const SCREEN_READ_ONE = `SELECT ${screenReadColumns({ counters: '$1::jsonb', scopes: '$2::text[]', pairs: '$3::jsonb', ip: '$4::inet', member: '$5::text', now: '$6::timestamptz' })}`;

const SCREEN_READ_MANY = `SELECT r.n, ${screenReadColumns({
  counters: "r.x->'c'", scopes: "ARRAY(SELECT jsonb_array_elements_text(r.x->'s'))", pairs: "r.x->'p'",
  ip: "(r.x->>'ip')::inet", member: "(r.x->>'m')", now: "(r.x->>'t')::timestamptz",
})}
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(x, n) ORDER BY r.n`;

function screenReadOf(row: ScreenReadRow | undefined): ScreenRead {
  const read: ScreenRead = { counters: new Map(), lists: [] };
  for (const c of row?.counters ?? []) read.counters.set(c.id, { value: BigInt(c.value), memberSeen: c.seen === true });
  for (const l of row?.lists ?? []) read.lists.push({ list: l.list, kind: l.kind, value: l.value, reason: l.reason, scope: l.scope === 'platform' ? 'platform' : 'merchant' });
  return read;
}

async function readOneScreen(sql: Sql, i: ScreenReadItem): Promise<ScreenRead> {
  const [row] = await sql.query<ScreenReadRow>(SCREEN_READ_ONE, [JSON.stringify(i.c), i.s, JSON.stringify(i.p), i.ip, i.m, i.t]);
  return screenReadOf(row);
}

async function readManyScreens(sql: Sql, items: readonly ScreenReadItem[]): Promise<ScreenRead[]> {
  const rows = await sql.query<ScreenReadRow & { n: string | number | bigint }>(SCREEN_READ_MANY, [JSON.stringify(items)]);
  const byOrdinal = new Map(rows.map((r) => [Number(r.n), r]));
  return items.map((_, i) => screenReadOf(byOrdinal.get(i + 1)));
}

/**
 * Screen reads made at the same time share one statement (group commit, as the writes do): under load a lone
 * read per SALE with velocity rules cost its planning (about 170 µs of database CPU, force_custom_plan) and a
 * round trip each, and halved the SALE's throughput with 50 rules (3 velocity) against none.
 */
const screenReadsGrouped = groupCommitted<ScreenReadItem, ScreenRead>({ one: readOneScreen, many: readManyScreens });

/**
 * The counters and the list entries of one payment in one statement (shared with the screens read at the same
 * time). memberSeen: whether the payment's card is among the distinct cards counted already (then it does not add one).
 */
export function readForScreen(sql: Sql, scopes: readonly string[], counters: readonly CounterRead[], probe: ListProbe, cardMember: string | null, now: Date): Promise<ScreenRead> {
  const pairs: { k: string; v: string }[] = [];
  const add = (kind: ListKind, value: string | undefined) => { if (value) pairs.push({ k: kind, v: value }); };
  add('card', probe.card); add('email', probe.email); add('email_domain', probe.emailDomain); add('device', probe.device);
  for (const b of probe.bins ?? []) add('bin', b);
  for (const c of probe.countries ?? []) add('country', c);
  const c = counters.map((r) => ({ id: r.id, measure: r.measure, dimension: r.dimension, key: r.key, grain: r.grain, since: r.since.toISOString(), currency: r.currency }));
  return screenReadsGrouped(sql, { s: scopes, c, p: pairs, ip: probe.ip ?? null, m: cardMember, t: now.toISOString() });
}

/**
 * The velocity conditions of every rule that runs (active or shadow) in every scope's saved rule set, each (by,
 * measure) pair once, and whether the platform has a rule set saved (none: its defaults run). What a payment's
 * counters must keep for any rule to read (services/risk/engine.ts countedFor).
 */
export async function velocityInUse(sql: Sql): Promise<{ conditions: { by: VelocityBy; measure: VelocityMeasure }[]; platformSaved: boolean }> {
  const [row] = await sql.query<{ conditions: { by: VelocityBy; measure: VelocityMeasure }[] | null; platform: boolean }>(
    `SELECT (SELECT json_agg(DISTINCT jsonb_build_object('by', v->>'by', 'measure', v->>'measure'))
               FROM risk_rule_sets s, jsonb_array_elements(s.rules->'rules') AS r,
                    jsonb_array_elements(CASE jsonb_typeof(r->'when'->'velocity') WHEN 'array' THEN r->'when'->'velocity' ELSE '[]'::jsonb END) AS v
              WHERE coalesce(r->>'mode', 'active') <> 'off') AS conditions,
            EXISTS (SELECT 1 FROM risk_rule_sets WHERE scope = 'platform') AS platform`,
  );
  return { conditions: row?.conditions ?? [], platformSaved: row?.platform === true };
}

export interface ScreenRecord {
  paymentId: string;
  merchantId: string;
  evaluation: RiskEvaluation;
  keys: VelocityKeys;
  card: string | null;
  amount: bigint;
  currency: string;
  /** Count the attempt (false: recorded only, as a merchant-initiated charge's velocity is not kept). */
  count: boolean;
  /**
   * The counters kept (the dimensions some rule reads each kind of counter by, services/risk/engine.ts): only
   * those are written, now and with the outcome. Undefined: every dimension of `keys`.
   */
  counted?: CountedMeasures;
  review: { deadline: Date } | null;
  /** When the attempt was screened: the evaluation's time and the buckets it is counted in. */
  now: Date;
}

/**
 * The shards of a bucket's counter rows (SHARDS in all) are split between the two writers of a payment's counters:
 * the screen counts attempts in the first half, the outcome counts approvals and declines in the second. The two
 * are different statements, in flight at the same time under load (the payment's insert and another payment's
 * outcome update, each group-committed), and so never wait for each other's row locks; reads sum every shard.
 */
const ATTEMPT_SHARDS = SHARDS / 2;
const attemptShard = (): number => Math.floor(Math.random() * ATTEMPT_SHARDS);
/** An outcome shard, drawn by the statement for each counter row it writes. */
const OUTCOME_SHARD = `(${ATTEMPT_SHARDS} + floor(random() * ${SHARDS - ATTEMPT_SHARDS}))::smallint`;

/** A bucket's instant as ISO text; payments of one minute share it, so the last one per grain is kept. */
const lastBuckets = new Map<number, { start: number; iso: string }>();
function bucketIso(now: Date, grain: (typeof GRAINS)[number]): string {
  const start = bucketOf(now, grain).getTime();
  const last = lastBuckets.get(grain);
  if (last && last.start === start) return last.iso;
  const iso = new Date(start).toISOString();
  lastBuckets.set(grain, { start, iso });
  return iso;
}

/**
 * The parameter of screenCtes for one or more screens (a batch of payments): their evaluations, their attempt
 * counters summed per counter row (one random attempt shard per statement: a row is written once by it, however
 * many of the batch's payments share its key) and their cards as members of their keys, each list in the order
 * rows are locked (dimension, key, grain, bucket, shard, currency), so that two statements that write counters
 * of the same keys take their locks in one order and never deadlock. `parts` says which lists hold rows (screenCtes
 * leaves the empty ones out).
 */
export function screenParam(records: readonly ScreenRecord[]): ScreenParam {
  const evaluations: unknown[][] = [];
  const counters = new Map<string, [string, string, number, string, number, string, number, bigint]>();
  const members = new Map<string, [string, string, number, string, string]>();
  const shard = attemptShard();
  for (const r of records) {
    const e = r.evaluation;
    const counted = r.counted ?? ALL_COUNTED;
    // The keys the outcome counts under (outcomeCountCtes): "outcomes" names the dimensions, when not all of them.
    const keys = r.counted ? Object.assign({}, r.keys, { count: r.count, outcomes: r.counted.outcomes }) : Object.assign({}, r.keys, { count: r.count });
    evaluations.push([r.paymentId, r.merchantId, r.now.toISOString(), e.action, e.score, e, keys, r.currency, r.amount.toString(), r.review ? 'pending' : null, r.review?.deadline.toISOString() ?? null]);
    if (!r.count) continue;
    for (const grain of GRAINS) {
      let bucket: string | undefined;
      for (const dimension of counted.attempts) {
        const key = r.keys[dimension];
        if (!key) continue;
        bucket ??= bucketIso(r.now, grain);
        const id = `${dimension}\u0000${key}\u0000${grain}\u0000${bucket}\u0000${r.currency}`;
        const counter = counters.get(id);
        if (counter) {
          counter[6] += 1;
          counter[7] += r.amount;
        } else counters.set(id, [dimension, key, grain, bucket, shard, r.currency, 1, r.amount]);
      }
      if (!r.card) continue;
      for (const dimension of counted.members) {
        const key = r.keys[dimension];
        if (!key) continue;
        bucket ??= bucketIso(r.now, grain);
        members.set(`${dimension}\u0000${key}\u0000${grain}\u0000${bucket}\u0000${r.card}`, [dimension, key, grain, bucket, r.card]);
      }
    }
  }
  const byLockOrder = (a: readonly unknown[], b: readonly unknown[]): number => {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as string | number;
      const y = b[i] as string | number;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  const c = [...counters.values()].sort(byLockOrder).map((row) => [row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7].toString()]);
  const m = [...members.values()].sort(byLockOrder);
  return { json: JSON.stringify({ e: evaluations, c, m }), parts: { counters: c.length > 0, members: m.length > 0 } };
}

/** Which of a screen's lists hold rows: the attempt counters (none under the default rules) and the members. */
export interface ScreenParts {
  counters: boolean;
  members: boolean;
}

export interface ScreenParam {
  json: string;
  parts: ScreenParts;
}

/**
 * Up to three data-modifying CTEs that write the screens of `param` (an SQL expression of screenParam's JSON):
 * the evaluations (a payment screened already keeps its first), the attempt counters and the distinct-card members.
 * Written alone by recordScreen, or folded into the payment's own insert (payments-repo.ts), so that a SALE's screen
 * costs no statement, no commit and no round trip of its own. A list without rows gets no CTE (`parts`): an empty
 * one cost its statement planning and an executor's start all the same; the counters' upsert, empty under the
 * default rules, was about 50 µs of planning and as much of execution of a lone SALE's insert (EXPLAIN ANALYZE).
 */
export function screenCtes(param: string, parts: ScreenParts): string {
  return `risk_ev AS (
       INSERT INTO risk_evaluations (payment_id, merchant_id, created_at, action, score, evaluation, keys, currency, amount, review, review_deadline)
       SELECT x->>0, x->>1, (x->>2)::timestamptz, x->>3, (x->>4)::smallint, x->5, x->6, x->>7, (x->>8)::bigint, x->>9, (x->>10)::timestamptz
       FROM jsonb_array_elements((${param})->'e') AS x
       ON CONFLICT (payment_id) DO NOTHING
     )${parts.counters ? `, risk_vc AS (
       INSERT INTO risk_velocity AS v (dimension, key, grain, bucket, shard, currency, attempts, amount)
       SELECT x->>0, x->>1, (x->>2)::smallint, (x->>3)::timestamptz, (x->>4)::smallint, x->>5, (x->>6)::bigint, (x->>7)::bigint
       FROM jsonb_array_elements((${param})->'c') WITH ORDINALITY AS c(x, n) ORDER BY c.n
       ON CONFLICT (dimension, key, grain, bucket, shard, currency) DO UPDATE SET attempts = v.attempts + EXCLUDED.attempts, amount = v.amount + EXCLUDED.amount
     )` : ''}${parts.members ? `, risk_vm AS (
       INSERT INTO risk_velocity_members (dimension, key, grain, bucket, member)
       SELECT x->>0, x->>1, (x->>2)::smallint, (x->>3)::timestamptz, x->>4
       FROM jsonb_array_elements((${param})->'m') WITH ORDINALITY AS m(x, n) ORDER BY m.n
       ON CONFLICT DO NOTHING
     )` : ''}`;
}

/** The evaluations, the attempts' counters (both grains, summed per row) and their cards as members, in one statement. */
async function recordScreens(sql: Sql, records: readonly ScreenRecord[]): Promise<void[]> {
  const { json, parts } = screenParam(records);
  await sql.query(`WITH ${screenCtes('$1::jsonb', parts)} SELECT 1`, [json]);
  return records.map(() => undefined);
}

/**
 * Screens recorded at the same time share one statement (group commit): the schedule runner screens a pass's
 * charges side by side before their connector calls, one statement (and one commit) each before.
 */
const recordGroupCommitted = groupCommitted<ScreenRecord, void>({
  one: async (sql, r) => void (await recordScreens(sql, [r])),
  many: recordScreens,
});

/** The evaluation, the attempt's counters (both grains) and its card as a member of its keys, in one statement. */
export function recordScreen(sql: Sql, r: ScreenRecord): Promise<void> {
  return recordGroupCommitted(sql, r);
}

/**
 * Two data-modifying CTEs that count the final outcomes of the rows of `rows` (an SQL FROM item with the columns
 * payment_id, outcome ('approved', 'declined' or NULL: nothing to count) and at (the outcome's time)) under the
 * keys each payment's screen counted it, in the buckets of `at`. Once per payment: the evaluation's outcome is
 * set by compare-and-set, so a repeated outcome counts nothing. Folded into the payment's outcome update
 * (payments-repo.ts) or written alone by countOutcome. Counter rows are summed per statement and written in
 * lock order, in an outcome shard (see ATTEMPT_SHARDS).
 */
export function outcomeCountCtes(rows: string): string {
  return `risk_oe AS (
       UPDATE risk_evaluations e SET outcome = r.outcome FROM ${rows}
       WHERE e.payment_id = r.payment_id AND r.outcome IS NOT NULL AND e.outcome IS NULL
       RETURNING e.keys, e.currency, r.outcome, r.at
     ), risk_oc AS (
       INSERT INTO risk_velocity AS v (dimension, key, grain, bucket, shard, currency, approvals, declines)
       SELECT k.key, k.value, g.g, date_bin(make_interval(mins => g.g), o.at, timestamptz 'epoch'), ${OUTCOME_SHARD}, o.currency,
              count(*) FILTER (WHERE o.outcome = 'approved'), count(*) FILTER (WHERE o.outcome = 'declined')
       FROM risk_oe o, jsonb_each_text(o.keys) AS k, (VALUES ${GRAINS.map((g) => `(${g}::smallint)`).join(', ')}) AS g(g)
       WHERE k.key <> 'count' AND k.key <> 'outcomes' AND (o.keys->>'count')::boolean AND (NOT (o.keys ? 'outcomes') OR o.keys->'outcomes' ? k.key)
       GROUP BY 1, 2, 3, 4, 6 ORDER BY 1, 2, 3, 4, 6
       ON CONFLICT (dimension, key, grain, bucket, shard, currency) DO UPDATE SET approvals = v.approvals + EXCLUDED.approvals, declines = v.declines + EXCLUDED.declines
     )`;
}

/**
 * Counts a payment's final outcome under the keys its screen counted it (once: the evaluation's outcome is set
 * by compare-and-set, so a repeated post counts nothing).
 */
export async function countOutcome(sql: Sql, paymentId: string, outcome: 'approved' | 'declined', now: Date): Promise<void> {
  await sql.query(`WITH ${outcomeCountCtes('(SELECT $1::text AS payment_id, $2::text AS outcome, $3::timestamptz AS at) AS r')} SELECT 1`, [paymentId, outcome, now]);
}

export interface StoredEvaluation {
  paymentId: string;
  merchantId: string;
  createdAt: Date;
  evaluation: RiskEvaluation;
  outcome: string | null;
  review: string | null;
  reviewDeadline: Date | null;
  /** The payer's device id the hosted page posted with the payment (its details' deviceId); null: none. */
  deviceId: string | null;
}

/** The keys a payment's counters were kept under (its card's fingerprint among them). */
export async function evaluationKeysOf(sql: Sql, paymentId: string): Promise<Partial<Record<string, string>> | undefined> {
  const [r] = await sql.query<{ keys: Record<string, string> }>('SELECT keys FROM risk_evaluations WHERE payment_id = $1', [paymentId]);
  return r?.keys;
}

export async function evaluationOf(sql: Sql, paymentId: string): Promise<StoredEvaluation | undefined> {
  const [r] = await sql.query<{ payment_id: string; merchant_id: string; created_at: Date; evaluation: RiskEvaluation; outcome: string | null; review: string | null; review_deadline: Date | null; device_id: string | null }>(
    `SELECT e.payment_id, e.merchant_id, e.created_at, e.evaluation, e.outcome, e.review, e.review_deadline, p.details->>'deviceId' AS device_id
       FROM risk_evaluations e LEFT JOIN payments p ON p.id = e.payment_id WHERE e.payment_id = $1`,
    [paymentId],
  );
  return r && { paymentId: r.payment_id, merchantId: r.merchant_id, createdAt: new Date(r.created_at), evaluation: r.evaluation, outcome: r.outcome, review: r.review, reviewDeadline: r.review_deadline ? new Date(r.review_deadline) : null, deviceId: r.device_id ?? null };
}

/** Counters and members older than the longest window are of no use: deleted in batches by a worker. */
export async function pruneVelocity(sql: Sql, before: Date, limit = 10_000): Promise<number> {
  const a = await sql.query(`DELETE FROM risk_velocity WHERE ctid IN (SELECT ctid FROM risk_velocity WHERE bucket < $1 LIMIT $2) RETURNING 1`, [before, limit]);
  const b = await sql.query(`DELETE FROM risk_velocity_members WHERE ctid IN (SELECT ctid FROM risk_velocity_members WHERE bucket < $1 LIMIT $2) RETURNING 1`, [before, limit]);
  return a.length + b.length;
}

// --- backtests ---------------------------------------------------------------------------------------------

export interface BacktestPage {
  rows: StoredPaymentForBacktest[];
  /** Where the next page starts; undefined: this was the last. */
  next?: { createdAt: Date; id: string };
}

/** The payer's three values a backtest reads (its e-mail, IP, country), read as text: no whole payer object parsed. */
function payerOf(r: { email: string | null; ip: string | null; country: string | null }): StoredPaymentForBacktest['payer'] {
  const payer: StoredPaymentForBacktest['payer'] = {};
  if (r.email !== null) payer.email = r.email;
  if (r.ip !== null) payer.ip = r.ip;
  if (r.country !== null) payer.country = r.country;
  return payer;
}

interface BacktestRow {
  id: string; merchant_id: string; sandbox: boolean; mid_id: string | null; channel: string; method: string; operation: Operation; auth: boolean;
  amount: bigint | string; currency: string; status: string; created_at: Date; email: string | null; ip: string | null; country: string | null;
  custom_data: Record<string, unknown> | null; first6: string | null; brand: string | null; mit: boolean | null; velocity: Record<string, string> | null;
}

/**
 * One page of a scope's payments created since `since`, oldest first (keyset on created_at, id), with what a
 * backtest replays: the payment's own fields and the counter values its screen read.
 */
export async function backtestPage(sql: Sql, merchantId: string | null, since: Date, until: Date, after: { createdAt: Date; id: string } | undefined, limit: number): Promise<BacktestPage> {
  const rows = await sql.query<BacktestRow>(
    `SELECT p.id, p.merchant_id, m.sandbox, p.mid_id, p.channel, p.operation, p.auth, p.amount, p.currency, p.status, p.created_at,
            p.payer->>'email' AS email, p.payer->>'ip' AS ip, p.payer->>'country' AS country, p.custom_data,
            CASE WHEN p.details ? 'apm' OR p.channel = 's2s_apm' THEN coalesce(p.details->'apm'->>'method', p.details->>'brand', 'apm') ELSE 'card' END AS method,
            left(p.details->>'first6Last4', 6) AS first6, p.details->>'brand' AS brand, (p.details->>'merchantInitiated')::boolean AS mit,
            -- A counter of a dimension the payment had no value for was read as 0 and is named apart (velocity_absent).
            e.evaluation->'velocity' || coalesce((SELECT jsonb_object_agg(k, to_jsonb('0'::text)) FROM jsonb_array_elements_text(e.evaluation->'velocity_absent') AS a(k)), '{}'::jsonb) AS velocity
     FROM payments p JOIN merchants m ON m.id = p.merchant_id LEFT JOIN risk_evaluations e ON e.payment_id = p.id
     WHERE ($1::text IS NULL OR p.merchant_id = $1) AND p.created_at >= $2 AND p.created_at <= $3
       AND ($4::timestamptz IS NULL OR (p.created_at, p.id) > ($4::timestamptz, $5::text))
     ORDER BY p.created_at, p.id LIMIT $6`,
    [merchantId, since, until, after?.createdAt ?? null, after?.id ?? '', limit],
  );
  const out = rows.map((r): StoredPaymentForBacktest => ({
    id: r.id, merchantId: r.merchant_id, sandbox: r.sandbox, midId: r.mid_id, channel: r.channel, method: r.method, operation: r.operation, auth: r.auth,
    amount: BigInt(r.amount), currency: r.currency, status: r.status, createdAt: new Date(r.created_at), payer: payerOf(r), customData: r.custom_data,
    first6: r.first6, brand: r.brand, merchantInitiated: r.mit === true, velocity: r.velocity,
  }));
  const last = out.at(-1);
  return out.length === limit && last ? { rows: out, next: { createdAt: last.createdAt, id: last.id } } : { rows: out };
}

// --- reviews -----------------------------------------------------------------------------------------------

/** A payment held for an operator's review, as the queue lists it. */
export interface PendingReview {
  paymentId: string;
  merchantId: string;
  screenedAt: Date;
  deadline: Date;
  score: number;
  reason: string;
  orderId: string;
  amount: bigint;
  currency: string;
  auth: boolean;
  channel: string;
  payerEmail: string | null;
}

/** The queue, soonest deadline first (paged by the last payment id and deadline of the page before). */
export async function pendingReviews(sql: Sql, q: { merchantId?: string; limit: number; after?: { deadline: Date; paymentId: string }; dueBy?: Date }): Promise<PendingReview[]> {
  const rows = await sql.query<{ payment_id: string; merchant_id: string; created_at: Date; review_deadline: Date; score: number; reason: string; order_id: string; amount: string | bigint; currency: string; auth: boolean; channel: string; email: string | null }>(
    `SELECT e.payment_id, e.merchant_id, e.created_at, e.review_deadline, e.score, e.evaluation->>'reason' AS reason,
            p.order_id, p.amount, p.currency, p.auth, p.channel, p.payer->>'email' AS email
       FROM risk_evaluations e JOIN payments p ON p.id = e.payment_id
      WHERE e.review = 'pending' AND ($1::text IS NULL OR e.merchant_id = $1)
        AND ($2::timestamptz IS NULL OR (e.review_deadline, e.payment_id) > ($2::timestamptz, $3::text))
        AND ($5::timestamptz IS NULL OR e.review_deadline <= $5)
      ORDER BY e.review_deadline, e.payment_id LIMIT $4`,
    [q.merchantId ?? null, q.after?.deadline.toISOString() ?? null, q.after?.paymentId ?? '', q.limit, q.dueBy?.toISOString() ?? null],
  );
  return rows.map((r) => ({
    paymentId: r.payment_id, merchantId: r.merchant_id, screenedAt: new Date(r.created_at), deadline: new Date(r.review_deadline), score: Number(r.score), reason: r.reason,
    orderId: r.order_id, amount: BigInt(r.amount), currency: r.currency, auth: r.auth, channel: r.channel, payerEmail: r.email,
  }));
}

/**
 * Closes a payment's review (approved, declined, or expired by its deadline), with who decided and their note in
 * the evaluation: a compare-and-set on `pending`, in the transaction that moves the payment on.
 */
export async function closeReview(sql: Sql, paymentId: string, review: 'approved' | 'declined' | 'expired', decided: { by: string; note: string; at: Date }): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE risk_evaluations SET review = $2, evaluation = evaluation || jsonb_build_object('review_decision', $3::jsonb)
      WHERE payment_id = $1 AND review = 'pending' RETURNING 1`,
    [paymentId, review, JSON.stringify({ decision: review, by: decided.by, note: decided.note, at: decided.at.toISOString() })],
  );
  return rows.length === 1;
}

/** Screened payments since a moment, by the outcome the screen gave, and those a shadow rule matched. */
export async function screenCounts(sql: Sql, since: Date): Promise<{ byAction: Record<string, number>; shadowMatched: number; pendingReviews: number }> {
  const rows = await sql.query<{ action: string; n: string; shadow: string; pending: string }>(
    `SELECT action, count(*)::text AS n,
            count(*) FILTER (WHERE evaluation->'matched' @> '[{"mode":"shadow"}]')::text AS shadow,
            count(*) FILTER (WHERE review = 'pending')::text AS pending
       FROM risk_evaluations WHERE created_at >= $1 GROUP BY action`,
    [since.toISOString()],
  );
  const byAction: Record<string, number> = {};
  let shadowMatched = 0;
  let pendingReviews = 0;
  for (const r of rows) {
    byAction[r.action] = Number(r.n);
    shadowMatched += Number(r.shadow);
    pendingReviews += Number(r.pending);
  }
  return { byAction, shadowMatched, pendingReviews };
}

/** A rule's counts over stored evaluations (ruleCounts): what it decided, its shadow matches, its failures. */
export interface RuleCount {
  scope: 'platform' | 'merchant';
  /** The merchant whose rule it is; null for a platform rule. */
  merchantId: string | null;
  name: string;
  blocked: number;
  reviewed: number;
  challenged: number;
  shadow: number;
  failed: number;
}

/**
 * By rule, since an instant: the payments each rule blocked, reviewed or challenged (it decided), matched in
 * shadow, or failed on; the `limit` rules with the most, most first. One read of the evaluations the window holds.
 */
export async function ruleCounts(sql: Sql, since: Date, limit: number): Promise<RuleCount[]> {
  const rows = await sql.query<{ scope: string; merchant_id: string | null; name: string; result: string; n: string }>(
    `WITH e AS (SELECT merchant_id, action, evaluation FROM risk_evaluations WHERE created_at >= $1),
     hits AS (
       SELECT evaluation->'decided_by'->'rule'->>'scope' AS scope, merchant_id, evaluation->'decided_by'->'rule'->>'name' AS name, action AS result
         FROM e WHERE evaluation->'decided_by'->'rule' IS NOT NULL AND action IN ('block', 'review', 'require_3ds')
       UNION ALL
       SELECT m->>'scope', merchant_id, m->>'name', 'shadow' FROM e, jsonb_array_elements(e.evaluation->'matched') AS m WHERE m->>'mode' = 'shadow'
       UNION ALL
       SELECT f->>'scope', merchant_id, f->>'name', 'failed' FROM e, jsonb_array_elements(e.evaluation->'failed') AS f)
     SELECT scope, CASE WHEN scope = 'merchant' THEN merchant_id END AS merchant_id, name, result, count(*)::text AS n
       FROM hits GROUP BY 1, 2, 3, 4`,
    [since.toISOString()],
  );
  const byRule = new Map<string, RuleCount>();
  const FIELDS: Record<string, 'blocked' | 'reviewed' | 'challenged' | 'shadow' | 'failed'> = { block: 'blocked', review: 'reviewed', require_3ds: 'challenged', shadow: 'shadow', failed: 'failed' };
  for (const r of rows) {
    const key = JSON.stringify([r.scope, r.merchant_id, r.name]);
    let c = byRule.get(key);
    if (!c) byRule.set(key, c = { scope: r.scope === 'platform' ? 'platform' : 'merchant', merchantId: r.merchant_id, name: r.name, blocked: 0, reviewed: 0, challenged: 0, shadow: 0, failed: 0 });
    c[FIELDS[r.result]!] += Number(r.n);
  }
  const total = (c: RuleCount) => c.blocked + c.reviewed + c.challenged + c.shadow + c.failed;
  return [...byRule.values()].sort((a, b) => total(b) - total(a) || a.name.localeCompare(b.name)).slice(0, limit);
}

// --- the fraud-dispute feed (issue 29) --------------------------------------------------------------------

export interface DisputeFeedRow {
  enabled: boolean;
  kinds: ('card' | 'email' | 'device')[];
  scope: 'platform' | 'merchant';
  expiresDays: number | null;
  version: number;
  updatedAt: Date;
  updatedBy: string | null;
}

interface FeedRow { enabled: boolean; kinds: DisputeFeedRow['kinds']; scope: DisputeFeedRow['scope']; expires_days: number | null; version: number; updated_at: Date; updated_by: string | null }
const feedOf = (r: FeedRow): DisputeFeedRow => ({
  enabled: r.enabled, kinds: r.kinds, scope: r.scope, expiresDays: r.expires_days === null ? null : Number(r.expires_days), version: Number(r.version), updatedAt: new Date(r.updated_at), updatedBy: r.updated_by,
});

export async function disputeFeed(sql: Sql): Promise<DisputeFeedRow | undefined> {
  const [r] = await sql.query<FeedRow>('SELECT enabled, kinds, scope, expires_days, version, updated_at, updated_by FROM risk_dispute_feed');
  return r && feedOf(r);
}

/** Saves the feed's setting as the next version if `version` is still the current one (0: never saved); else undefined. */
export async function saveDisputeFeed(sql: Sql, feed: Pick<DisputeFeedRow, 'enabled' | 'kinds' | 'scope' | 'expiresDays'>, version: number, by: string | null, now: Date): Promise<DisputeFeedRow | undefined> {
  const values = [feed.enabled, JSON.stringify(feed.kinds), feed.scope, feed.expiresDays, version, now, by];
  const [r] = version === 0
    ? await sql.query<FeedRow>(
      `INSERT INTO risk_dispute_feed (id, enabled, kinds, scope, expires_days, version, updated_at, updated_by)
       VALUES (true, $1, $2::jsonb, $3, $4, $5::integer + 1, $6, $7) ON CONFLICT (id) DO NOTHING
       RETURNING enabled, kinds, scope, expires_days, version, updated_at, updated_by`, values)
    : await sql.query<FeedRow>(
      `UPDATE risk_dispute_feed SET enabled = $1, kinds = $2::jsonb, scope = $3, expires_days = $4, version = version + 1, updated_at = $6, updated_by = $7
       WHERE version = $5 RETURNING enabled, kinds, scope, expires_days, version, updated_at, updated_by`, values);
  return r && feedOf(r);
}
