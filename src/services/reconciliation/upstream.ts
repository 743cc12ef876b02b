/**
 * The platform-family upstream's report (issue 28): the `akurateco` acquirer sends no settlement file, so the
 * gateway asks it what it booked on each of the MID's payments in a date range (GET_TRANS_DETAILS, a few at a
 * time) and writes the answers as a report in the upstream_transactions layout (domain/reconciliation/layouts.ts),
 * streamed into the same import as any file: the same matching, postings, idempotency (the same answers twice
 * change nothing), supersession (the range asked again after the upstream booked more replaces the earlier
 * report) and line-numbered problems (a payment whose lookup failed is one: nothing of an incomplete report is kept).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { UPSTREAM_COLUMNS, UPSTREAM_TYPES } from '../../domain/reconciliation/layouts.ts';
import { csvField } from '../../domain/reconciliation/report.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { UpstreamDetails } from '../../connectors/types.ts';
import { findMidById } from '../../store/merchants-repo.ts';
import { paymentsOfMid } from '../../store/reconciliation-repo.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import { inquiryRequest, midAccess } from '../connector-access.ts';
import { importReport, type ImportResult } from './import.ts';

/** Payments read per statement, and lookups in flight at once (the upstream is one merchant's PSP, not a bulk API). */
const PAGE = 200;
const LOOKUPS_AT_ONCE = 4;
const MAX_RANGE_MS = 31 * 86_400_000;

export interface UpstreamReportInput {
  midId: string;
  from: Date;
  to: Date;
}

const line = (fields: readonly string[]) => `${fields.map(csvField).join(',')}\n`;

/**
 * The report's lines of one payment: its booked transactions that moved money, or the lookup's failure. A
 * transaction's fee is its own when the answer itemises it; else the payment's fee (what the upstream charged on
 * it so far) is the first line's that brought money in (the sale or capture), the others none.
 */
export function upstreamLines(p: Pick<Payment, 'id' | 'currency'>, d: UpstreamDetails): string {
  if (!d.ok) return line([p.id, '', '', '', '', '', p.currency, d.error, '']);
  const booked = d.transactions.filter((t) => t.status === 'success' && UPSTREAM_TYPES[t.type] !== undefined);
  const itemised = booked.some((t) => t.fee !== undefined);
  const carrier = itemised || d.fee === undefined ? undefined : booked.find((t) => UPSTREAM_TYPES[t.type] === 'settled') ?? booked[0];
  return booked
    .map((t) => line([d.orderId ?? p.id, d.reference, t.type, t.status, t.date, t.amount, d.currency || p.currency, '', (itemised ? t.fee : t === carrier ? d.fee : undefined) ?? '']))
    .join('');
}

export async function importUpstreamReport(ctx: ServiceContext, actor: AuditActor, input: UpstreamReportInput): Promise<ImportResult> {
  const mid = isUuid(input.midId) ? await findMidById(ctx.db, input.midId) : undefined;
  if (!mid) throw new GatewayError('notFound');
  const connector = ctx.connectors.get(mid.connector);
  if (!connector?.transactionDetails) throw GatewayError.field('mid_id', `The MID's connector (${mid.connector}) has no transaction lookup: import the acquirer's settlement file instead.`);
  const { from, to } = input;
  if (Number.isNaN(from.getTime())) throw GatewayError.field('from', 'should be an ISO 8601 date.');
  if (Number.isNaN(to.getTime())) throw GatewayError.field('to', 'should be an ISO 8601 date.');
  if (to <= from) throw GatewayError.field('to', 'should be after from.');
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw GatewayError.field('to', 'the range is at most 31 days.');
  const access = midAccess(ctx, mid);
  const lookup = (p: Payment): Promise<UpstreamDetails> =>
    connector.transactionDetails!(inquiryRequest(p), access).catch((err: unknown) => ({ ok: false as const, error: err instanceof Error ? err.message : String(err) }));
  // The answers are written to a scratch file first (constant memory, however many payments), then imported
  // from it: the import's transaction never waits on the upstream (nor, on an embedded store, on itself).
  const dir = await mkdtemp(path.join(tmpdir(), 'portcullis-upstream-'));
  const file = path.join(dir, 'report.csv');
  try {
    const out = createWriteStream(file);
    const write = (text: string) => new Promise<void>((resolve, reject) => out.write(text, (err) => (err ? reject(err) : resolve())));
    try {
      await write(line(UPSTREAM_COLUMNS));
      for (let after = ''; ;) {
        const page = await paymentsOfMid(ctx.db, mid.id, from, to, after, PAGE);
        for (let i = 0; i < page.length; i += LOOKUPS_AT_ONCE) {
          const group = page.slice(i, i + LOOKUPS_AT_ONCE);
          const answers = await Promise.all(group.map(lookup));
          await write(group.map((p, k) => upstreamLines(p, answers[k]!)).join(''));
        }
        if (page.length < PAGE) break;
        after = page.at(-1)!.id;
      }
    } finally {
      await new Promise<void>((resolve) => out.end(resolve));
    }
    const range = `${from.toISOString()}..${to.toISOString()}`;
    return await importReport(ctx, actor, { midId: mid.id, fileName: `${mid.connector} transactions ${range}`, batch: `${mid.connector}:${range}`, body: createReadStream(file) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
