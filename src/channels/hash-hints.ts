/**
 * Which hash recipes a request is checked against, named from its route and fields, for the `hint` a
 * sandbox merchant's bad hash answer carries (src/domain/hash-recipes.ts). Mirrors the recipes the
 * channels accept: where several are accepted, the hint names each.
 */
import { hashHint, type HashRecipeName } from '../domain/hash-recipes.ts';
import type { Digest } from '../domain/signatures.ts';

const CHECKOUT: Readonly<Record<string, (body: Record<string, unknown>) => HashRecipeName[]>> = {
  '/api/v1/session': () => ['checkoutSession'],
  '/api/v1/session/token': () => ['checkoutSession'],
  '/api/v1/payment/status': (b) => [b.payment_id !== undefined ? 'checkoutStatusByPayment' : 'checkoutStatusByOrder'],
  '/api/v1/payment/capture': () => ['checkoutCaptureRefund'],
  '/api/v1/payment/refund': () => ['checkoutCaptureRefund'],
  '/api/v1/payment/void': () => ['checkoutVoidRetry'],
  '/api/v1/payment/retry': () => ['checkoutVoidRetry'],
  '/api/v1/payment/recurring': () => ['checkoutRecurring'],
  '/api/v1/payment/card/credit': () => ['checkoutCardCredit'],
  '/sandbox/test-clock': () => ['testClock'],
  '/sandbox/test-clock/advance': () => ['testClockAdvance'],
};

const BY_SCHEDULE: HashRecipeName[] = ['f4'];

const S2S_CARD: Readonly<Record<string, (body: Record<string, unknown>) => HashRecipeName[]>> = {
  SALE: (b) => [b.card_number === undefined && b.card_token !== undefined ? 'f1Token' : 'f1'],
  DEBIT: (b) => [b.card_number === undefined && b.card_token !== undefined ? 'f1Token' : 'f1'],
  CREDIT2CARD: () => ['f5'],
  CAPTURE: () => ['f2', 'transIdRecipe'],
  VOID: () => ['f2', 'transIdRecipe'],
  CREDITVOID: () => ['f2', 'transIdRecipe'],
  GET_TRANS_STATUS: () => ['f2', 'transIdRecipe'],
  GET_TRANS_DETAILS: () => ['f2'],
  GET_TRANS_STATUS_BY_ORDER: () => ['f7', 'orderIdRecipe'],
  RETRY: () => ['f1OfPayment'],
  RECURRING_SALE: () => ['f1OfPayment'],
  RECURRING_DEBIT: () => ['f1OfPayment'],
  CREATE_SCHEDULE: () => ['f3'],
  UPDATE_SCHEDULE: () => BY_SCHEDULE,
  DELETE_SCHEDULE: () => BY_SCHEDULE,
  PAUSE: () => BY_SCHEDULE,
  PAUSE_SCHEDULE: () => BY_SCHEDULE,
  RUN: () => BY_SCHEDULE,
  RUN_SCHEDULE: () => BY_SCHEDULE,
  SCHEDULE_INFO: () => BY_SCHEDULE,
  DESCHEDULE: () => BY_SCHEDULE,
};

const S2S_APM: Readonly<Record<string, HashRecipeName[]>> = {
  SALE: ['apmSale'],
  CAPTURE: ['apmByTransId'],
  VOID: ['apmByTransId'],
  GET_TRANS_STATUS: ['apmByTransId'],
  CREDITVOID: ['apmCreditvoid'],
  CREDIT2VIRTUAL: ['apmCredit2Virtual'],
};

export function recipesFor(route: string, body: Record<string, unknown>): HashRecipeName[] {
  const action = typeof body.action === 'string' ? body.action : '';
  if (route === '/post' || route === '/v2/post') return Object.hasOwn(S2S_CARD, action) ? S2S_CARD[action]!(body) : [];
  if (route === '/apm/post') return Object.hasOwn(S2S_APM, action) ? S2S_APM[action]! : [];
  return Object.hasOwn(CHECKOUT, route) ? CHECKOUT[route]!(body) : [];
}

/** The hint for a request, or undefined when the route has no known recipe. */
export function hintFor(route: string, body: Record<string, unknown>, digest: Digest): string | undefined {
  const names = recipesFor(route, body);
  return names.length > 0 ? hashHint(names, digest) : undefined;
}
