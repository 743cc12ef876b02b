/**
 * Step 5 of an attempt: the risk review's hold (issue 26). An attempt the screen holds for an operator (screen.ts
 * `review`) stops here, written with the operation `risk_review` in flight and no acquirer asked: the S2S answer
 * says UNDEFINED / PREPARE, the hosted page says the payment is being reviewed. The operator's approval runs the
 * steps after this one (index.ts continueReviewed); a decline, or the review's deadline, ends it with the risk
 * engine's decline (services/risk/review.ts).
 */
import type { ServiceContext } from '../context.ts';
import { reached, type AttemptState, type PaymentStep } from './types.ts';

/** The step: a held attempt answers where it stands (processing); any other goes on to its request. */
export async function holdStep(_ctx: ServiceContext, state: AttemptState): Promise<PaymentStep | void> {
  if (state.review !== true) return;
  return { kind: 'processing', payment: reached(state, 'recorded').claimed };
}
