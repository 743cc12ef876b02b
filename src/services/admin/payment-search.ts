/**
 * The operators' payment search (issue 11): the query's filters checked and turned into a store search, pages
 * newest first behind an opaque cursor. A filter that cannot be understood is refused with a D3 field error
 * rather than ignored: a typo must not list every payment.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { searchPayments, type PaymentSearch, type SearchCursor } from '../../store/payment-search-repo.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { isUuid } from '../../domain/ids.ts';
import { isKnownCurrency, parseAmount } from '../../domain/money.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { STATUSES, s2sStatus, type PaymentStatus } from '../../domain/payment-state.ts';
import { isCalendarDate, isIsoDateTime } from '../../domain/methods/formats.ts';

/** The query string as the route receives it (shapes already checked by its schema). */
export interface SearchQuery {
  merchant_id?: string;
  /** A Checkout name (settled) or its S2S name (SETTLED). */
  status?: string;
  order_id?: string;
  payment_id?: string;
  trans_id?: string;
  email?: string;
  card_first6?: string;
  card_last4?: string;
  amount_from?: string;
  amount_to?: string;
  currency?: string;
  method?: string;
  channel?: string;
  created_from?: string;
  created_to?: string;
  initiator?: string;
  source?: string;
  sequence?: string;
  needs_operator?: 'true' | 'false';
  /** Issue 25, item 26: payments of test keys (sandbox merchants) or of live keys only. */
  mode?: 'test' | 'live';
  limit?: string;
  cursor?: string;
}

/** Status names a search accepts: the Checkout names and the S2S names of the same statuses. */
export const STATUS_NAMES: ReadonlyMap<string, PaymentStatus> = new Map(STATUSES.flatMap((s) => [[s, s], [s2sStatus(s), s]] as const));

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** The cursor is opaque to callers: base64url of the last row's instant and id. */
export function encodeCursor(c: SearchCursor): string {
  return Buffer.from(`${c.createdAt.toISOString()}|${c.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(text: string): SearchCursor | undefined {
  const [at, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (rest.length > 0 || !id || !isUuid(id) || Number.isNaN(createdAt.getTime())) return undefined;
  return { createdAt, id };
}

/** An ISO 8601 date (midnight UTC) or date-time with a zone; calendar dates checked (no 30 February). */
export function parseInstant(text: string): Date | undefined {
  if (!isCalendarDate(text) && !isIsoDateTime(text)) return undefined;
  const at = new Date(isCalendarDate(text) ? `${text}T00:00:00Z` : text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** The store search a query asks for, or the D3 error listing every filter that cannot be understood. */
export function parseSearch(q: SearchQuery): { search: PaymentSearch; limit: number; after?: SearchCursor } {
  const errors: FieldError[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  const search: PaymentSearch = {
    merchantId: q.merchant_id, status: q.status === undefined ? undefined : STATUS_NAMES.get(q.status), orderId: q.order_id, email: q.email, cardFirst6: q.card_first6, cardLast4: q.card_last4,
    method: q.method, channel: q.channel, initiator: q.initiator, source: q.source, sequence: q.sequence,
  };
  if (q.status !== undefined && !search.status) bad('status', MESSAGES.notChoice);
  for (const key of ['payment_id', 'trans_id'] as const) {
    const id = q[key];
    if (id !== undefined && !isUuid(id)) bad(key, MESSAGES.notValid);
  }
  search.paymentId = q.payment_id;
  search.transId = q.trans_id;
  const currency = q.currency?.toUpperCase();
  if (currency !== undefined) {
    if (isKnownCurrency(currency)) search.currency = currency;
    else bad('currency', MESSAGES.notCurrency);
  }
  for (const [key, target] of [['amount_from', 'amountFrom'], ['amount_to', 'amountTo']] as const) {
    const text = q[key];
    if (text === undefined) continue;
    // Amounts are decimals in the currency's exponent, so the currency must be known to read them.
    if (currency === undefined) {
      bad('currency', MESSAGES.blank);
      continue;
    }
    const parsed = parseAmount(text, currency);
    if (parsed.ok) search[target] = parsed.money.minor;
    else if (parsed.reason !== 'currency') bad(key, MESSAGES.notValid);
  }
  for (const [key, target] of [['created_from', 'createdFrom'], ['created_to', 'createdTo']] as const) {
    const text = q[key];
    if (text === undefined) continue;
    const at = parseInstant(text);
    if (at) search[target] = at;
    else bad(key, MESSAGES.notDatetime);
  }
  if (search.amountFrom !== undefined && search.amountTo !== undefined && search.amountFrom > search.amountTo) bad('amount_to', MESSAGES.notValid);
  if (search.createdFrom && search.createdTo && search.createdFrom >= search.createdTo) bad('created_to', MESSAGES.notValid);
  if (q.needs_operator === 'true') search.needsOperator = true;
  if (q.mode === 'test' || q.mode === 'live') search.mode = q.mode;
  else if (q.mode !== undefined) bad('mode', MESSAGES.notChoice);
  const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) bad('limit', MESSAGES.notInRange(1, MAX_PAGE));
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  if (q.cursor !== undefined && !after) bad('cursor', MESSAGES.notValid);
  // Unique fields, in the order found (a currency missing for both amounts is said once).
  const unique = [...new Map(errors.map((e) => [e.field, e])).values()];
  if (unique.length > 0) throw GatewayError.invalid(unique);
  return { search, limit, ...(after ? { after } : {}) };
}

export interface SearchPage {
  payments: Payment[];
  /** The cursor of the next page; null on the last. */
  nextCursor: string | null;
}

export async function searchPage(ctx: ServiceContext, q: SearchQuery): Promise<SearchPage> {
  const { search, limit, after } = parseSearch(q);
  // One row more than the page tells whether another page follows.
  const rows = await searchPayments(lookups(ctx), search, limit + 1, after);
  const payments = rows.slice(0, limit);
  const last = payments[payments.length - 1];
  return { payments, nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}
