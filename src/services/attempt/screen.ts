/**
 * Step 2 of an attempt: the screen, the risk engine's place (issue 26). EMPTY TODAY: every attempt is allowed.
 *
 * Contract (what the risk engine may rely on, and what every payment path must keep):
 * - Every attempt calls `screen` exactly once, before ANY acquirer or provider call, on every channel and kind:
 *   card payments (S2S, Checkout, hosted fields), wallet payments, card payouts, merchant-initiated charges of a
 *   chain, scheduled charges (the schedule runner), APM initiations and APM payouts. A cascade to another MID is
 *   the same attempt (not screened again); a challenge's completion or a status inquiry is no new attempt.
 * - It is called before the attempt is routed and before anything of it is written, so a refusal leaves nothing
 *   behind (the schedule runner, whose payment is written by its claim, screens before its connector call).
 * - Its input is the attempt's facts only (no I/O handles): it may read its own stores through `ctx` later.
 * - Its answer is a verdict. Today only `allow`; `deny` (declined before routing, never sent) and `review`
 *   (held for an operator) come with the risk engine, and each path will map them onto its existing decline and
 *   hold-for-operator steps (outcome.ts, integrity.ts).
 */
import type { ServiceContext } from '../context.ts';

export interface ScreenFacts {
  paymentId: string;
  merchantId: string;
  /** The MID the attempt is bound to, when it is chosen before the screen (a scheduled charge); else undefined. */
  midId?: string | null;
  /** How the payment came in: s2s_card, checkout, s2s_apm, the schedule runner ('schedule'). */
  channel: string;
  /** card (a card, a stored card, a wallet's card) or apm (an alternative method). */
  kind: 'card' | 'apm';
  /** The payment's operation (purchase, debit, credit, recurring, recurring_debit). */
  operation: string;
  intent: 'sale' | 'auth' | 'payout';
  amount: bigint;
  currency: string;
  card?: { bin?: string; last4?: string; brand?: string; country?: string; wallet?: string; stored: boolean };
  /** The APM method key (an APM attempt). */
  method?: string;
  payer: { ip?: string; email?: string; country?: string };
  /** A charge of a stored card the payer is not present for (a chain's charge, a scheduled charge). */
  merchantInitiated: boolean;
  /** A payment of a recurring chain (its first one or a later charge). */
  recurring: boolean;
}

export type ScreenVerdict = 'allow';

/** Screens an attempt before any acquirer call (see the contract above). Allows every attempt today. */
export async function screen(ctx: ServiceContext, facts: ScreenFacts): Promise<ScreenVerdict> {
  ctx.attemptHooks?.screened?.(facts);
  return 'allow';
}
