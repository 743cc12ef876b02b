/**
 * Importing an acquirer's settlement report (issue 28): the file is read line by line from its stream (constant
 * memory: rows go to the store a page at a time), in one transaction, so a file that cannot be read whole imports
 * nothing and every problem is answered with its line number (D3 400, never a 5xx). The same file twice (same
 * digest) changes nothing; a corrected file for the same batch supersedes the live one. Then the rows are matched
 * a page at a time (domain/reconciliation/matcher.ts), fees checked against the MID's buy rates, matched rows
 * posted to the ledger (keyed by our record, so once, whichever file carries them), records past due that no
 * report took flagged missing, and the batch's totals checked against its announced payout and bank credit.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { duplicateKey, MATCHED_KINDS, splitCsvLine, type LineProblem, type ReportRow } from '../../domain/reconciliation/report.ts';
import { adyenLayout, isAdyenHeader, isUpstreamHeader, profileColumnsMissing, profileLayout, upstreamLayout, type Layout } from '../../domain/reconciliation/layouts.ts';
import { matchRows, type OurRecord } from '../../domain/reconciliation/matcher.ts';
import { expectedFee, feeDifference } from '../../domain/reconciliation/buy-rates.ts';
import { addToTotals, batchFlags, type BatchTotals } from '../../domain/reconciliation/batch.ts';
import { cardRegion, type CardRegion } from '../../domain/ledger/regions.ts';
import { accountName, entriesOf, type LedgerEntry } from '../../domain/ledger/postings.ts';
import { findMidById } from '../../store/merchants-repo.ts';
import { insertEntries, moneyTermsOf } from '../../store/ledger-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import {
  duplicateLines, finishImport, importByDigest, importById, insertImport, insertMissing, insertRows, liveImportOfBatch, outcomeCounts,
  profileOf, recordsByAmounts, recordsByRefs, resolveSettledLate, saveProfile, setImportOutcome, supersede,
  type ReconProfile, type RowOutcome, type StoredImport, type StoredRecord,
} from '../../store/reconciliation-repo.ts';

const DAY_MS = 86_400_000;
/** Rows written and matched per statement. */
export const PAGE = 2_000;
/** Problems answered at most (the count of the rest is said). */
const MAX_PROBLEMS = 100;

export interface ImportInput {
  midId: string;
  fileName?: string;
  /** The acquirer's batch this file is (else the file's Batch Number, else its digest). */
  batch?: string;
  body: Readable;
}

export interface ImportResult {
  import: StoredImport;
  /** true: this very file was imported before; nothing changed. */
  unchanged: boolean;
  /** The import this one superseded (a corrected file for its batch). */
  superseded: string | null;
}

class Unchanged extends Error {
  constructor(readonly existing: StoredImport) { super('unchanged'); }
}

/** The MID's profile, or the defaults (a profile is written with the MID's first import). */
export function defaultProfile(midId: string, now: Date): ReconProfile {
  return { midId, csvProfile: null, buyRates: { mode: 'blended', rows: [] }, settlementDays: 3, windowDays: 3, reconcileFrom: now, updatedAt: now };
}

function layoutFor(headerLine: string, profile: ReconProfile): { layout: Layout; separator: string } | undefined {
  const comma = splitCsvLine(headerLine, ',');
  if (comma && isAdyenHeader(comma)) return { layout: adyenLayout(comma), separator: ',' };
  if (comma && isUpstreamHeader(comma)) return { layout: upstreamLayout(), separator: ',' };
  const p = profile.csvProfile;
  if (!p) return undefined;
  const separator = p.separator ?? ',';
  const header = splitCsvLine(headerLine, separator);
  return header && profileColumnsMissing(p, header).length === 0 ? { layout: profileLayout(p, header), separator } : undefined;
}

const problemsError = (problems: LineProblem[], more: number): GatewayError => {
  const fields: FieldError[] = problems.sort((a, b) => a.line - b.line).slice(0, MAX_PROBLEMS).map((p) => ({ field: `line ${p.line}`, message: p.message }));
  const extra = more + Math.max(0, problems.length - MAX_PROBLEMS);
  if (extra > 0) fields.push({ field: 'file', message: `${extra} more problems; nothing was imported.` });
  return GatewayError.invalid(fields);
};

export async function importReport(ctx: ServiceContext, actor: AuditActor, input: ImportInput): Promise<ImportResult> {
  const mid = isUuid(input.midId) ? await findMidById(ctx.db, input.midId) : undefined;
  if (!mid) {
    input.body.resume();
    throw new GatewayError('notFound');
  }
  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction(async (tx) => {
      // A file's statements are each a page's work, planned while the tables' statistics lag the rows the
      // transaction writes: their estimates can pass jit_above_cost, and compiling a plan (0.6 s seen) costs more
      // than running it (a few ms). SET LOCAL: for this transaction only.
      await tx.query('SET LOCAL jit = off');
      // One import per MID at a time: its profile row is the lock.
      let profile = await profileOf(tx, mid.id);
      if (!profile) await saveProfile(tx, (profile = defaultProfile(mid.id, now)));
      await tx.query('SELECT 1 FROM recon_profiles WHERE mid_id = $1 FOR UPDATE', [mid.id]);
      const id = newId();
      await insertImport(tx, { id, midId: mid.id, digest: `reading:${id}`, layout: 'unknown', fileName: input.fileName ?? null, createdBy: actor.name, createdAt: now });
      // Each page is matched as it is read and written with its outcomes; the transaction keeps the file whole or
      // nothing. A corrected file of a batch takes over from the live import before its first page is matched.
      let batchKey = input.batch;
      let previous: StoredImport | undefined;
      let first = true;
      const matcher = pageMatcher(ctx, tx, mid.id, profile);
      // Pages overlap with the connection's work, so that it always has the next statement while this process
      // parses and matches: a page's lookup of our records is made as soon as the page is read, then the page
      // before it is matched and its writes (its rows, its ledger entries) made. The transaction runs its
      // statements one at a time in the order made (the store queues them: pg 9 refuses a statement sent while
      // another runs), so a page's lookup sees every page's writes but the one just before it:
      // the records that page took are kept (one page's keys) and left out of the lookup's answer. A failed
      // statement surfaces at the next page or at the end, failing the file. In flight at most: one page's
      // lookup and the page before's writes (constant memory).
      let pending: { page: PageRow[]; found: Promise<StoredRecord[]> } | undefined;
      let lastTaken: ReadonlySet<string> = new Set();
      let writing: Promise<unknown> = Promise.resolve();
      const decide = async () => {
        if (!pending) return;
        const { page, found } = pending;
        pending = undefined;
        // A lookup fails when a write before it did (the transaction is aborted): that write's error is the one.
        const records = await found.catch(async (err: unknown) => { await writing; throw err; });
        const entries = await matcher.decide(page, records, lastTaken);
        lastTaken = new Set(page.flatMap((r) => (r.result?.recordKey && (r.result.outcome === 'matched' || r.result.outcome === 'mismatched') ? [r.result.recordKey] : [])));
        const written = Promise.all([insertEntries(tx, entries, now), insertRows(tx, id, mid.id, page)]);
        written.catch(() => undefined);
        const before = writing;
        writing = Promise.all([before, written]);
        writing.catch(() => undefined);
      };
      const read = await readFile(tx, id, mid, profile, input.body, async (page) => {
        if (page.length === 0) {
          await decide();
          return void (await writing);
        }
        if (first) {
          first = false;
          batchKey ??= page.find((r) => r.batch)?.batch ?? undefined;
          previous = batchKey === undefined ? undefined : await liveImportOfBatch(tx, mid.id, batchKey);
          if (previous) await supersede(tx, previous.id, id);
        }
        const found = matcher.lookup(page);
        found.catch(() => undefined);
        await decide();
        pending = { page, found };
      });
      if (read.problems.length > 0 || read.more > 0) throw problemsError(read.problems, read.more);
      const existing = await importByDigest(tx, mid.id, read.digest);
      if (existing) throw new Unchanged(existing);
      const key = batchKey ?? read.digest;
      await tx.query('UPDATE recon_imports SET layout = $2 WHERE id = $1', [id, read.layout]);
      await finishImport(tx, id, { batchKey: key, digest: read.digest, rows: read.rows, totals: totalsJson(read.totals), periodFrom: read.periodFrom, periodTo: read.periodTo });
      await postBookings(tx, id, mid.id, key, now);
      const account = accountName('acquirer_receivable', { merchantId: '', acquirer: mid.id });
      if (read.periodTo) await insertMissing(tx, id, mid.id, account, profile.reconcileFrom, new Date(read.periodTo.getTime() - profile.settlementDays * DAY_MS));
      await resolveSettledLate(tx, mid.id, now);
      const counts = await outcomeCounts(tx, id);
      await setImportOutcome(tx, id, { flags: batchFlags(read.totals, new Map()), counts });
      const saved = (await importById(tx, id))!;
      await appendAudit(tx, { actor, action: 'reconciliation.import', objectType: 'mid', objectId: mid.id, after: { import_id: id, batch: key, digest: read.digest, rows: read.rows, counts, superseded: previous?.id ?? null } }, now);
      return { import: saved, unchanged: false, superseded: previous?.id ?? null };
    });
  } catch (err) {
    if (err instanceof Unchanged) return { import: err.existing, unchanged: true, superseded: null };
    throw err;
  }
}

interface ReadResult {
  digest: string;
  layout: string;
  rows: number;
  batch: string | null;
  totals: BatchTotals;
  periodFrom: Date | null;
  periodTo: Date | null;
  problems: LineProblem[];
  more: number;
}

/**
 * The stream's lines (LF or CRLF), pulled chunk by chunk: the upload is read only as fast as its rows are written
 * (backpressure), so memory holds a chunk and a page, whatever the file's size. Each chunk also feeds the digest.
 */
async function* linesOf(body: Readable, hash: ReturnType<typeof createHash>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  for await (const chunk of body as AsyncIterable<Buffer>) {
    hash.update(chunk);
    const text = rest + decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const p of parts) yield p.endsWith('\r') ? p.slice(0, -1) : p;
  }
  rest += decoder.decode();
  if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}

type PageRow = ReportRow & { dupKey: string | undefined; result?: RowOutcome };

/**
 * Reads the stream line by line, handing each page of rows to `flush` (not once the file has a problem), and an
 * empty page when the last is handed (flush then waits for the pages' writes).
 */
async function readFile(tx: Sql, importId: string, mid: { id: string; currencies: string[] | null }, profile: ReconProfile, body: Readable, flush: (page: PageRow[]) => Promise<void>): Promise<ReadResult> {
  const hash = createHash('sha256');
  const out: ReadResult = { digest: '', layout: 'unknown', rows: 0, batch: null, totals: new Map(), periodFrom: null, periodTo: null, problems: [], more: 0 };
  const carried = mid.currencies === null ? null : new Set(mid.currencies);
  let page: PageRow[] = [];
  let chosen: { layout: Layout; separator: string } | undefined;
  let n = 0;
  const problem = (p: LineProblem) => { if (out.problems.length < MAX_PROBLEMS) out.problems.push(p); else out.more++; };
  for await (const raw of linesOf(body, hash)) {
    n++;
    const text = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (n === 1) {
      chosen = layoutFor(text, profile);
      if (!chosen) problem({ line: 1, message: `the header is not Adyen's Settlement details report${profile.csvProfile ? ' nor the MID\'s CSV profile (a column is missing)' : ', and the MID has no CSV profile'}: unknown layout.` });
      else out.layout = chosen.layout.name;
      continue;
    }
    if (!chosen || text.trim() === '') continue;
    const fields = splitCsvLine(text, chosen.separator);
    if (!fields) { problem({ line: n, message: 'a quoted field is not closed.' }); continue; }
    const row = chosen.layout.read(fields, n);
    if (Array.isArray(row)) { for (const p of row) problem(p); continue; }
    for (const c of new Set([row.currency, row.netCurrency])) {
      if (carried && !carried.has(c)) problem({ line: n, message: `currency ${c}: the MID does not carry it.` });
    }
    out.rows++;
    addToTotals(out.totals, row);
    if (!out.periodFrom || row.bookedAt < out.periodFrom) out.periodFrom = row.bookedAt;
    if (!out.periodTo || row.bookedAt > out.periodTo) out.periodTo = row.bookedAt;
    out.batch ??= row.batch;
    if (out.problems.length > 0) continue; // nothing of this file will be kept: stop writing, keep reading
    page.push({ ...row, dupKey: duplicateKey(row) });
    if (page.length >= PAGE) { await flush(page); page = []; }
  }
  if (n === 0) problem({ line: 1, message: 'the file is empty.' });
  else if (chosen && out.rows === 0 && out.problems.length === 0) problem({ line: 2, message: 'the file has a header and no rows.' });
  if (out.problems.length === 0) {
    if (page.length > 0) await flush(page);
    await flush([]);
    for (const d of await duplicateLines(tx, importId, MAX_PROBLEMS)) problem({ line: d.line, message: `duplicates line ${d.first}.` });
  }
  out.digest = hash.digest('hex');
  return out;
}

const totalsJson = (totals: BatchTotals): StoredImport['totals'] =>
  Object.fromEntries([...totals].map(([c, t]) => [c, { net: t.net.toString(), fees: t.fees.toString(), payout: t.payout === null ? null : t.payout.toString(), rows: t.rows }]));

/** The card region of a record: its issuer (the BIN table) against its merchant's country. */
async function regionsOf(ctx: ServiceContext, tx: Sql, records: readonly StoredRecord[], countries: Map<string, string | null>): Promise<OurRecord[]> {
  const out: OurRecord[] = [];
  for (const r of records) {
    if (!countries.has(r.merchantId)) countries.set(r.merchantId, (await moneyTermsOf(tx, r.merchantId)).country);
    const digits = (r.card ?? '').slice(0, 6);
    const issuer = /^\d{6}$/.test(digits) ? ctx.binTable?.lookup(digits)?.country : undefined;
    const region: CardRegion = cardRegion(issuer, countries.get(r.merchantId) ?? undefined);
    out.push({ key: r.key, paymentId: r.paymentId, kind: r.kind, acquirerRef: r.acquirerRef, currency: r.currency, amount: r.amount, at: r.at, method: r.method, region });
  }
  return out;
}

/** The ledger entries of a row the books accept: the settlement of its record, and the fee the acquirer withheld. */
export function settlementEntries(row: Pick<ReportRow, 'kind' | 'amount' | 'currency' | 'fee' | 'netCurrency'>, rec: { key: string; paymentId: string; merchantId: string }, midId: string): LedgerEntry[] {
  const credit = row.kind === 'settled' || row.kind === 'chargeback_reversed' || row.kind === 'refund_reversed';
  const on = { merchantId: rec.merchantId, acquirer: midId, ref: `recon:${rec.key}`, paymentId: rec.paymentId };
  return [
    ...entriesOf([{ kind: credit ? 'acquirer_settlement' : 'acquirer_settlement_return', amount: row.amount }], { ...on, currency: row.currency }),
    ...entriesOf([{ kind: 'acquirer_fee', amount: row.fee > 0n ? row.fee : 0n }], { ...on, currency: row.netCurrency }),
  ];
}

/**
 * Matches a page of rows against our records (found by the page's references, then by its amounts within the
 * window), checks fees, sets each row's result; the matched rows' entries, for the caller to post.
 */
function pageMatcher(ctx: ServiceContext, tx: Sql, midId: string, profile: ReconProfile): {
  lookup(page: readonly PageRow[]): Promise<StoredRecord[]>;
  decide(page: PageRow[], byRef: readonly StoredRecord[], taken: ReadonlySet<string>): Promise<LedgerEntry[]>;
} {
  const account = accountName('acquirer_receivable', { merchantId: '', acquirer: midId });
  const windowMs = profile.windowDays * DAY_MS;
  const countries = new Map<string, string | null>();
  return {
    /**
     * Our untaken records the page's rows name by the acquirer's reference (the payments our references name that
     * these did not find are read by decide: usually none, a report's rows carry both references of one payment).
     */
    lookup(page) {
      const acq = new Set<string>();
      for (const r of page) if (MATCHED_KINDS.has(r.kind) && r.acquirerRef) acq.add(r.acquirerRef);
      return recordsByRefs(tx, midId, account, [...acq], []);
    },
    /** The page's rows matched with those records (less `taken`: the previous page's), then by amount and date. */
    async decide(page, found, taken) {
      const rows = page.filter((r) => MATCHED_KINDS.has(r.kind));
      if (rows.length === 0) return [];
      const seen = new Set(found.map((r) => r.paymentId));
      const ids = [...new Set(rows.flatMap((r) => (r.merchantRef && !seen.has(r.merchantRef) ? [r.merchantRef] : [])))];
      const byId = ids.length === 0 ? [] : await recordsByRefs(tx, midId, account, [], ids);
      const all = byId.length === 0 ? found : [...found, ...byId];
      const byRef = taken.size === 0 ? all : all.filter((r) => !taken.has(r.key));
      const known = new Set(byRef.flatMap((r) => [r.acquirerRef ?? '', r.paymentId]));
      const loose = rows.filter((r) => !(r.acquirerRef && known.has(r.acquirerRef)) && !(r.merchantRef && known.has(r.merchantRef)));
      let byAmount: StoredRecord[] = [];
      if (loose.length > 0) {
        let lo = Infinity;
        let hi = -Infinity;
        for (const r of loose) { const t = r.bookedAt.getTime(); if (t < lo) lo = t; if (t > hi) hi = t; }
        const amounts = [...new Map(loose.map((r) => [`${r.currency}|${r.amount}`, { currency: r.currency, amount: r.amount }])).values()];
        byAmount = (await recordsByAmounts(tx, midId, account, amounts, new Date(lo - windowMs), new Date(hi + windowMs))).filter((r) => !taken.has(r.key));
      }
      const stored = [...new Map([...byRef, ...byAmount].map((r) => [r.key, r])).values()];
      const merchantOf = new Map(stored.map((r) => [r.key, r.merchantId]));
      const records = await regionsOf(ctx, tx, stored, countries);
      const rowOf = new Map<number, PageRow>(rows.map((r) => [r.line, r]));
      const entries: LedgerEntry[] = [];
      for (const res of matchRows(rows, records, { windowMs })) {
        const row = rowOf.get(res.line)!;
        const differences = [...res.differences];
        let expected: bigint | null = null;
        if (res.record) {
          expected = expectedFee(profile.buyRates, row, { method: res.record.method, region: res.record.region }) ?? null;
          const fee = feeDifference(row, expected ?? undefined);
          if (fee) differences.push(fee);
        }
        const outcome = res.outcome === 'unexpected' ? 'unexpected' : differences.length === 0 ? 'matched' : 'mismatched';
        row.result = { outcome, matchedBy: res.by ?? null, paymentId: res.record?.paymentId ?? null, recordKey: res.record?.key ?? null, differences, expectedFee: expected };
        if (outcome === 'matched') entries.push(...settlementEntries(row, { key: res.record!.key, paymentId: res.record!.paymentId, merchantId: merchantOf.get(res.record!.key)! }, midId));
      }
      return entries;
    },
  };
}

/** The batch's own fee rows: the acquirer's fees not on a transaction, posted as its fees (keyed by the batch's line). */
async function postBookings(tx: Sql, importId: string, midId: string, batchKey: string, now: Date): Promise<void> {
  const fees = await tx.query<{ line: number; net_currency: string; fee: string }>("SELECT line, net_currency, fee::text FROM recon_rows WHERE import_id = $1 AND kind = 'fee' ORDER BY line", [importId]);
  const entries = fees.flatMap((f) => entriesOf([{ kind: 'acquirer_fee', amount: BigInt(f.fee) }], { merchantId: '', acquirer: midId, currency: f.net_currency, ref: `recon:${midId}:${batchKey}:${f.line}`, paymentId: null }));
  for (let i = 0; i < entries.length; i += PAGE) await insertEntries(tx, entries.slice(i, i + PAGE), now);
}
