/**
 * Scheduled reports (issue 30): a merchant user subscribes a report (payments, refunds, callbacks, disputes or
 * fees; a shop; for payments a filter or one of the user's saved views; daily, weekly or monthly; e-mailed as a link
 * or kept for download N days). The report worker (workers/report-worker.ts) on any node produces each period's
 * report once: it claims a due subscription with a lease in the database (store/reports-repo.ts), streams the
 * period's export as the user would download it (the same services, the same scope and role, checked again at each
 * run) into gzip chunks in the database (one chunk of CSV in memory at a time), and finishes it only while its lease
 * holds. Then the e-mail with the link goes through the mail port; expired reports are deleted.
 */
import { gzipSync, gunzipSync } from 'node:zlib';
import type { ServiceContext } from '../context.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { merchantMayDo } from '../../domain/merchant-roles.ts';
import {
  DEFAULT_KEEP_DAYS, MAX_KEEP_DAYS, REPORT_CADENCES, REPORT_DELIVERIES, REPORT_GRACE_MS, REPORT_KINDS, REPORT_PERMISSION,
  nextPeriodEnd, periodStart, type ReportCadence, type ReportDelivery, type ReportKind,
} from '../../domain/reports.ts';
import {
  appendChunk, claimDueSubscription, claimReportMail, countSubscriptions, deleteReport, deleteSubscription, findReport, finishReport, finishReportMail,
  insertReport, insertSubscription, nextChunk, pruneReports, releaseLease, reportsOf, skipPeriod, subscriptionsOf,
  type ClaimedSubscription, type Report, type ReportSubscription,
} from '../../store/reports-repo.ts';
import { findMerchantUser, merchantsOfUser } from '../../store/merchant-users-repo.ts';
import { savedViewsOf } from '../../store/saved-views-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { parseSearch, type SearchQuery } from '../admin/payment-search.ts';
import { portalPaymentCsv } from './payments.ts';
import { portalCallbacksCsv, portalDisputesCsv, portalFeesCsv, portalRefundsCsv } from './exports.ts';
import { auditScope, mustMay, mustOwn, portalActor, type PortalUser } from './scope.ts';

export type { Report, ReportSubscription };

export const MAX_SUBSCRIPTIONS = 20;
/** About this much CSV text goes into one gzip chunk. */
export const CHUNK_CHARS = 512 * 1024;
const LEASE_MS = 10 * 60_000;
const MAIL_ATTEMPTS = 5;
const DAY_MS = 86_400_000;

export interface SubscriptionInput {
  kind: string;
  cadence: string;
  delivery: string;
  keep_days?: number;
  merchant_id?: string;
  saved_view_id?: string;
  /** A payments filter as the payments search takes it (payments only; the period replaces its dates). */
  query?: Record<string, string>;
}

const oneOf = <T extends string>(values: readonly T[], v: string, field: string, errors: FieldError[]): T | undefined => {
  if ((values as readonly string[]).includes(v)) return v as T;
  errors.push({ field, message: `One of: ${values.join(', ')}.` });
  return undefined;
};

/** The filter a payments report keeps: the search's own filters, not its page, cursor or dates. */
function paymentsFilter(query: Record<string, string>): Record<string, string> {
  const keep = Object.entries(query).filter(([k, v]) => typeof v === 'string' && v.trim() !== '' && !['limit', 'cursor', 'created_from', 'created_to', 'merchant_id', 'needs_operator'].includes(k));
  return Object.fromEntries(keep.map(([k, v]) => [k, v.trim()]));
}

export function portalReportSubscriptions(ctx: ServiceContext, user: PortalUser): Promise<ReportSubscription[]> {
  mustMay(user, 'payments.read');
  return subscriptionsOf(ctx.db, user.userId);
}

/** A new subscription of the user's: the role must permit the kind's export; the shop and the view must be the user's. */
export async function portalSubscribeReport(ctx: ServiceContext, user: PortalUser, input: SubscriptionInput): Promise<ReportSubscription> {
  const errors: FieldError[] = [];
  const kind = oneOf<ReportKind>(REPORT_KINDS, input.kind, 'kind', errors);
  const cadence = oneOf<ReportCadence>(REPORT_CADENCES, input.cadence, 'cadence', errors);
  const delivery = oneOf<ReportDelivery>(REPORT_DELIVERIES, input.delivery, 'delivery', errors);
  const keepDays = input.keep_days ?? DEFAULT_KEEP_DAYS;
  if (!Number.isInteger(keepDays) || keepDays < 1 || keepDays > MAX_KEEP_DAYS) errors.push({ field: 'keep_days', message: `A whole number of days from 1 to ${MAX_KEEP_DAYS}.` });
  if (delivery === 'email' && !ctx.mail) errors.push({ field: 'delivery', message: 'This gateway sends no e-mail: choose download.' });
  if (errors.length > 0) throw GatewayError.invalid(errors);
  mustMay(user, REPORT_PERMISSION[kind!]);
  if (input.merchant_id !== undefined) mustOwn(user, input.merchant_id);
  let query: Record<string, string> = {};
  let savedViewId: string | null = null;
  if (input.saved_view_id !== undefined || input.query !== undefined) {
    if (kind !== 'payments') throw GatewayError.field(input.saved_view_id !== undefined ? 'saved_view_id' : 'query', 'Only a payments report takes a filter or a saved view.');
    if (input.saved_view_id !== undefined) {
      const view = (await savedViewsOf(ctx.db, user.userId)).find((v) => v.id === input.saved_view_id);
      if (!view) throw GatewayError.field('saved_view_id', 'Not one of your saved views.');
      if (view.query.merchant_id !== undefined && input.merchant_id === undefined) mustOwn(user, view.query.merchant_id);
      query = { ...paymentsFilter(view.query), ...(view.query.merchant_id !== undefined && input.merchant_id === undefined ? { merchant_id: view.query.merchant_id } : {}) };
      savedViewId = view.id;
    } else {
      query = paymentsFilter(input.query!);
      try {
        parseSearch(query as SearchQuery);
      } catch (err) {
        if (err instanceof GatewayError && err.fields.length > 0) throw GatewayError.invalid(err.fields.map((f: FieldError) => ({ ...f, field: `query.${f.field}` })));
        throw err;
      }
    }
  }
  const merchantId = input.merchant_id ?? query.merchant_id ?? null;
  delete query.merchant_id;
  const now = ctx.clock.now();
  // The subscription and its audit entry in one transaction: no change without its record. The user's row is locked
  // before the count, so subscriptions made at once cannot pass the limit together.
  return ctx.db.transaction(async (tx) => {
    await findMerchantUser(tx, user.userId, true);
    if ((await countSubscriptions(tx, user.userId)) >= MAX_SUBSCRIPTIONS) throw GatewayError.field('kind', `You have ${MAX_SUBSCRIPTIONS} scheduled reports, the most there may be: delete one first.`);
    const saved = await insertSubscription(tx, {
      id: newId(), userId: user.userId, kind: kind!, merchantId, query, savedViewId, cadence: cadence!, delivery: delivery!, keepDays,
      nextPeriodTo: nextPeriodEnd(cadence!, now), createdAt: now,
    });
    await appendAudit(tx, {
      actor: portalActor(user), action: 'report_subscription.create', objectType: 'report_subscription', objectId: saved.id,
      after: { kind, cadence, delivery, keep_days: keepDays, merchant_id: merchantId, saved_view_id: savedViewId, query }, ...auditScope(user, merchantId ?? undefined),
    }, now);
    return saved;
  });
}

/** Deletes one of the user's subscriptions and the reports kept for it; another's is not found. */
export async function portalUnsubscribeReport(ctx: ServiceContext, user: PortalUser, id: string): Promise<void> {
  mustMay(user, 'payments.read');
  if (!isUuid(id)) throw new GatewayError('notFound');
  await ctx.db.transaction(async (tx) => {
    if (!(await deleteSubscription(tx, user.userId, id))) throw new GatewayError('notFound');
    await appendAudit(tx, { actor: portalActor(user), action: 'report_subscription.delete', objectType: 'report_subscription', objectId: id, ...auditScope(user) }, ctx.clock.now());
  });
}

/** The user's reports ready for download, newest first (expired ones are gone). */
export function portalReports(ctx: ServiceContext, user: PortalUser): Promise<Report[]> {
  mustMay(user, 'payments.read');
  return reportsOf(ctx.db, user.userId, ctx.clock.now());
}

/**
 * One of the user's reports as its CSV text, chunk by chunk. Another user's, an expired one, or one holding a shop
 * the user no longer sees is not found; a role that no longer permits the kind is refused.
 */
export async function portalReportDownload(ctx: ServiceContext, user: PortalUser, id: string): Promise<{ report: Report; text: AsyncGenerator<Buffer> }> {
  const report = isUuid(id) ? await findReport(ctx.db, id) : undefined;
  if (!report || report.userId !== user.userId || report.status !== 'ready' || report.expiresAt <= ctx.clock.now()) throw new GatewayError('notFound');
  mustMay(user, REPORT_PERMISSION[report.kind]);
  for (const m of report.merchantIds) mustOwn(user, m);
  const db = ctx.db;
  return {
    report,
    text: (async function* chunks() {
      let seq = -1;
      for (;;) {
        const chunk = await nextChunk(db, report.id, seq);
        if (!chunk) return;
        seq = chunk.seq;
        yield gunzipSync(chunk.data);
      }
    })(),
  };
}

// --- the worker's passes ----------------------------------------------------------------------------------------

/** The CSV of a kind for the user and a window, as the portal's export routes stream it. */
async function exportOf(ctx: ServiceContext, user: PortalUser, s: ReportSubscription, from: Date, to: Date): Promise<AsyncGenerator<string>> {
  const window = { ...(s.merchantId ? { merchant_id: s.merchantId } : {}), created_from: from.toISOString(), created_to: to.toISOString() };
  switch (s.kind) {
    case 'payments': return portalPaymentCsv(ctx, user, { ...s.query, ...window });
    case 'refunds': return portalRefundsCsv(ctx, user, window);
    case 'disputes': return portalDisputesCsv(ctx, user, window);
    case 'callbacks': return portalCallbacksCsv(ctx, user, window);
    case 'fees': return portalFeesCsv(ctx, user, window);
  }
}

/** The subscription's user as a portal request would act (the role and the group's members now); undefined: disabled or gone. */
async function actingUser(ctx: ServiceContext, userId: string): Promise<PortalUser | undefined> {
  const u = await findMerchantUser(ctx.db, userId);
  if (!u || u.disabled) return undefined;
  return { userId: u.id, email: u.email, name: u.name, role: u.role, merchantId: u.merchantId, groupId: u.groupId, merchantIds: await merchantsOfUser(ctx.db, u) };
}

export interface ProducedReport { reportId: string; subscriptionId: string; lines: number; bytes: number }

/** Writes the claimed subscription's due period; undefined when it was skipped or the lease was lost. */
async function produce(ctx: ServiceContext, s: ClaimedSubscription, chunkChars: number): Promise<ProducedReport | undefined> {
  const to = s.nextPeriodTo;
  const from = periodStart(s.cadence, to);
  const next = nextPeriodEnd(s.cadence, to);
  const user = await actingUser(ctx, s.userId);
  if (!user || !merchantMayDo(user.role, REPORT_PERMISSION[s.kind]) || (s.merchantId !== null && !user.merchantIds.includes(s.merchantId))) {
    ctx.logger.info({ subscriptionId: s.id, periodTo: to.toISOString() }, 'scheduled report skipped: its user may no longer read it');
    await skipPeriod(ctx.db, s.id, s.leaseToken, next);
    return undefined;
  }
  const now = ctx.clock.now();
  const reportId = newId();
  const merchantIds = s.merchantId !== null ? [s.merchantId] : [...user.merchantIds];
  await insertReport(ctx.db, { id: reportId, subscriptionId: s.id, userId: s.userId, kind: s.kind, cadence: s.cadence, merchantIds, periodFrom: from, periodTo: to, createdAt: now, expiresAt: new Date(now.getTime() + s.keepDays * DAY_MS) });
  let seq = 0;
  let bytes = 0;
  let lines = 0;
  let buffered: string[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    const text = buffered.join('');
    buffered = [];
    size = 0;
    bytes += Buffer.byteLength(text);
    await appendChunk(ctx.db, reportId, seq++, gzipSync(text));
  };
  try {
    for await (const part of await exportOf(ctx, user, s, from, to)) {
      for (let i = part.indexOf('\n'); i !== -1; i = part.indexOf('\n', i + 1)) lines++;
      buffered.push(part);
      size += part.length;
      if (size >= chunkChars) await flush();
    }
    await flush();
    const finished = await ctx.db.transaction((tx) => finishReport(tx, { reportId, subscriptionId: s.id, leaseToken: s.leaseToken, nextPeriodTo: next, lines: Math.max(0, lines - 1), bytes, mail: s.delivery === 'email' }));
    if (!finished) {
      ctx.logger.warn({ subscriptionId: s.id }, 'scheduled report dropped: another node took its lease over');
      await deleteReport(ctx.db, reportId);
      return undefined;
    }
    return { reportId, subscriptionId: s.id, lines: Math.max(0, lines - 1), bytes };
  } catch (err) {
    await deleteReport(ctx.db, reportId).catch(() => undefined);
    throw err;
  }
}

/** Produces every due report this pass can claim (at most `max`); each period once across nodes. */
export async function produceDueReports(ctx: ServiceContext, opts: { max?: number; chunkChars?: number } = {}): Promise<ProducedReport[]> {
  const produced: ProducedReport[] = [];
  for (let i = 0; i < (opts.max ?? 50); i++) {
    const now = ctx.clock.now();
    const claimed = await claimDueSubscription(ctx.db, { now, dueBefore: new Date(now.getTime() - REPORT_GRACE_MS), leaseUntil: new Date(now.getTime() + LEASE_MS), leaseToken: newId() });
    if (!claimed) break;
    try {
      const made = await produce(ctx, claimed, opts.chunkChars ?? CHUNK_CHARS);
      if (made) produced.push(made);
    } catch (err) {
      ctx.logger.error({ err: (err as Error).message, subscriptionId: claimed.id }, 'scheduled report failed; it is due again at the next pass');
      await releaseLease(ctx.db, claimed.id, claimed.leaseToken);
      break;
    }
  }
  return produced;
}

const PERIOD_WORD: Record<ReportCadence, string> = { daily: 'daily', weekly: 'weekly', monthly: 'monthly' };

/** The e-mail of a ready report: what it is, its period, and the link to the portal's Reports screen. */
export function reportMail(baseUrl: string, r: Pick<Report, 'id' | 'kind' | 'cadence' | 'periodFrom' | 'periodTo' | 'lines' | 'expiresAt'>): { subject: string; text: string; link: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const last = new Date(r.periodTo.getTime() - DAY_MS);
  const period = r.cadence === 'daily' ? day(r.periodFrom) : `${day(r.periodFrom)} to ${day(last)}`;
  const link = `${baseUrl.replace(/\/$/, '')}/portal/reports?report=${r.id}`;
  return {
    subject: `Your ${PERIOD_WORD[r.cadence]} ${r.kind} report, ${period}`,
    text: `Your ${PERIOD_WORD[r.cadence]} ${r.kind} report for ${period} (UTC) is ready: ${r.lines} line${r.lines === 1 ? '' : 's'} of CSV.\n\n`
      + `Download it, signed in to the portal, until ${day(r.expiresAt)}:\n${link}\n`,
    link,
  };
}

/** Sends the due e-mails (each claimed first; a failed one is tried again at later passes, 5 times in all). */
export async function mailDueReports(ctx: ServiceContext, max = 50): Promise<number> {
  if (!ctx.mail) return 0;
  let sent = 0;
  for (let i = 0; i < max; i++) {
    const now = ctx.clock.now();
    const claim = await claimReportMail(ctx.db, now, new Date(now.getTime() + LEASE_MS));
    if (!claim) break;
    try {
      await ctx.mail.send({ to: claim.email, ...reportMail(ctx.baseUrl, claim.report) });
      await finishReportMail(ctx.db, claim.report.id, true, MAIL_ATTEMPTS);
      sent++;
    } catch (err) {
      ctx.logger.warn({ err: (err as Error).message, reportId: claim.report.id }, 'the report e-mail was not sent');
      await finishReportMail(ctx.db, claim.report.id, false, MAIL_ATTEMPTS);
      break;
    }
  }
  return sent;
}

/** Deletes expired reports (and half-written ones a stopped node left a day ago). */
export function pruneExpiredReports(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  return pruneReports(ctx.db, now, new Date(now.getTime() - DAY_MS));
}
