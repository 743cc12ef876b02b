/**
 * The platform's test engine as data (decisions D8, wire-reference section 6): card 4111111111111111 with
 * the outcome chosen by the expiry month; 12/2039 redirects and then declines; 4601541833776519 pays out.
 */
import { PAYOUT_CARD, SUCCESS_CARD } from '../../domain/test-cards.ts';

export type Scenario =
  | 'success'
  | 'decline'
  | 'capture_fails'
  | '3ds_success'
  | '3ds_decline'
  | 'redirect_success'
  | 'redirect_decline';

/** Expiry month -> scenario for the success card. */
const BY_MONTH: Readonly<Record<string, Scenario>> = {
  '01': 'success',
  '02': 'decline',
  '03': 'capture_fails',
  '05': '3ds_success',
  '06': '3ds_decline',
  '12': 'redirect_success',
};

/** Exceptions keyed by month/year, checked before the month table. */
const BY_EXPIRY: Readonly<Record<string, Scenario>> = {
  '12/2039': 'redirect_decline',
};

export const DECLINE_REASON = 'Declined by processing';

/** The sandbox outcome for a card. Unknown test cards and months decline, as the test engine does. */
export function scenarioFor(pan: string, expMonth: string, expYear: string, intent: 'sale' | 'auth' | 'payout'): Scenario {
  if (intent === 'payout') return pan === PAYOUT_CARD || pan === SUCCESS_CARD ? 'success' : 'decline';
  if (pan === PAYOUT_CARD) return 'success';
  if (pan !== SUCCESS_CARD) return 'decline';
  return BY_EXPIRY[`${expMonth}/${expYear}`] ?? BY_MONTH[expMonth] ?? 'decline';
}
