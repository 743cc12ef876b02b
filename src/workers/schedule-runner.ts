/**
 * The schedule runner: charges every due payment of every schedule exactly once per (chain, payment number),
 * however many runners run and wherever they crash.
 *
 * 1. Claim (one transaction): lock due chains (`FOR UPDATE SKIP LOCKED`), write for each its charge row (primary
 *    key (subscription, seq): a payment number can be claimed once) held by this claim's token with a lease
 *    (schedule_charges.claimed_by, locked_until), its payment (no operation in flight yet) with its acquirer
 *    attempt, and the chain's next position.
 * 2. Fence: move the claimed payments to 'authorize' with a compare-and-set on the token and on the payment's
 *    operation. Only then is the connector called: a runner whose claim was taken over cannot reach the connector.
 * 3. Charge outside any transaction, then write each answer with its callback (outbox) in one statement,
 *    compare-and-set on the in-flight state.
 *
 * A crash leaves payments in one of two states, which the next pass of any runner resolves once the lease ran
 * out (design principle 4): only claimed (no operation in flight: the connector was never called) -> taken over and charged; in
 * 'authorize' (the connector may have been called) -> the connector is asked what became of it, never asked
 * to charge again.
 */
import type { ServiceContext } from '../services/context.ts';
import type { Sql } from '../services/context.ts';
import { findMerchantById, listMids } from '../services/queries/merchants.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { Payment } from '../domain/model/payment.ts';
import { loadCard, type LoadedCard } from '../services/queries/cards.ts';
import {
  findExpiredCharges, insertClaims, lockDueChains, markAuthorizing, recordOutcomes, takeOverCharge, type Claim, type OutboxRow,
} from '../services/schedules/runner-store.ts';
import type { CardConnector, ConnectorOutcome, MidAccess } from '../connectors/types.ts';
import { inquiryRequest, midAccess } from '../services/connector-access.ts';
import { newId } from '../domain/ids.ts';
import { chargeInstant, claimOf, DAY_LIMIT, NO_MID, noRouteOutcome, outboxRowOf, outcomeOf, scheduleChargeOf, type ChargeRoute, type FinalOutcome, type RouteRefusal } from '../services/schedules/charges.ts';
import { noCandidateError, noteOutcome, releaseHold, routeCard, takeCandidate } from '../services/attempt/route.ts';
import { cardFacts } from '../domain/routing/facts.ts';
import { chainMidFirst, CHAIN_ROUTING } from '../domain/routing/route.ts';
import { ERRORS, GatewayError } from '../domain/errors.ts';
import type { DueChain } from '../services/schedules/runner-store.ts';
import { merchantInitiatedOutcome } from '../services/recurring/card-on-file.ts';
import { authorizeRequest } from '../services/attempt/request.ts';
import { heldForIntegrity, mismatchesOf } from '../services/attempt/integrity.ts';
import { screen, screenRefusal, type ScreenFacts } from '../services/attempt/screen.ts';
import { asThreeDsResult } from '../domain/risk/rules.ts';
import { posted, postingEntries } from '../services/attempt/post.ts';
import { paymentMoneyOf, type LedgerEntry } from '../domain/ledger/postings.ts';
import { wantsMoney } from '../services/callbacks/fields.ts';
import { intentOf } from '../domain/operations.ts';
import { PollingLoop } from './polling.ts';

/** Points where tests simulate a crash: a hook that throws ends the pass there, as a dead process would. */
export interface RunnerHooks {
  /** The claim is committed; no payment of it is fenced yet. */
  afterClaim?(paymentIds: readonly string[]): void | Promise<void>;
  /** The connector answered for this payment; nothing of the answer is written yet. */
  afterCharge?(paymentId: string): void | Promise<void>;
}

export interface ScheduleRunnerOptions {
  /** Pause between passes when the last one found less than a full batch. Default 1 s. */
  pollMs?: number;
  /** Chains claimed per pass. Default 200. */
  batchSize?: number;
  /** How long a claim holds before another runner may take it over. Default 60 s. */
  leaseMs?: number;
  /** Connector calls in flight at once within a pass. Default 16. */
  concurrency?: number;
  /** Passes running side by side in this process. Default 2 (one pass waits on the store half the time). */
  lanes?: number;
  hooks?: RunnerHooks;
}

export interface PassSummary {
  /** Payments claimed by this pass (new ones, and expired claims taken over). */
  claimed: number;
  /** Payments whose outcome this pass wrote. */
  recorded: number;
  /** Payments left in flight (no answer yet): resolved after their lease. */
  left: number;
}

interface MerchantEntry {
  merchant: Merchant;
  mids: Mid[];
  at: number;
}

const MERCHANT_TTL_MS = 5_000;
/** A payment fenced but not sent: it stays in flight, and the re-check finds the connector never charged it. */
const NOT_SENT: ConnectorOutcome = { kind: 'pending', reason: 'Not sent: the pass failed' };
const newClaim = () => `schedule:${newId()}`;

export class ScheduleRunner {
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly hooks: RunnerHooks;
  private readonly merchants = new Map<string, MerchantEntry>();
  private readonly polling: PollingLoop;

  constructor(private readonly ctx: ServiceContext, opts: ScheduleRunnerOptions = {}) {
    this.batchSize = opts.batchSize ?? 200;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.concurrency = Math.max(1, opts.concurrency ?? 16);
    this.hooks = opts.hooks ?? {};
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 1_000,
      lanes: Math.max(1, opts.lanes ?? 2),
      pass: async () => {
        const pass = await this.runOnce();
        if (pass.claimed > 0) this.ctx.logger.debug({ ...pass }, 'schedule runner pass');
        // A full batch suggests more are due: go again at once.
        return pass.claimed >= this.batchSize;
      },
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'schedule runner: pass failed; its claims are taken over after the lease'),
    });
  }

  /** One pass: take over expired claims, then claim and charge one batch of due payments. */
  async runOnce(): Promise<PassSummary> {
    const recovered = await this.recover();
    const fresh = await this.claimDue();
    const charged = await this.charge(fresh.claim, fresh.payments);
    return { claimed: recovered.claimed + fresh.payments.length, recorded: recovered.recorded + charged.recorded, left: recovered.left + charged.left };
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }

  private async merchantOf(sql: Sql, id: string): Promise<MerchantEntry | undefined> {
    const hit = this.merchants.get(id);
    if (hit && Date.now() - hit.at < MERCHANT_TTL_MS) return hit;
    const merchant = await findMerchantById(sql, this.ctx.keyring, id);
    if (!merchant) return undefined;
    const entry = { merchant, mids: await listMids(sql, id), at: Date.now() };
    this.merchants.set(id, entry);
    return entry;
  }

  // --- 1. claim ----------------------------------------------------------------------------------------

  private async claimDue(): Promise<{ claim: string; payments: Payment[] }> {
    const claim = newClaim();
    const now = this.ctx.clock.now();
    const lockedUntil = new Date(now.getTime() + this.leaseMs);
    const payments = await this.ctx.db.transaction(async (tx) => {
      const chains = await lockDueChains(tx, now, this.batchSize);
      const claims: Claim[] = [];
      for (const chain of chains) {
        const { route, refused } = await this.routeCharge(tx, chain);
        claims.push(claimOf(chain, { paymentId: newId(), transactionId: newId() }, claim, route, now, lockedUntil, refused));
      }
      const written = await insertClaims(tx, claims, now);
      // A charge another runner claimed first gives back what this one reserved (in the same transaction).
      for (const c of claims) if (!written.has(c.payment.id)) await releaseHold(tx, c.payment.details.volumeHold);
      return claims.filter((c) => written.has(c.payment.id)).map((c) => c.payment);
    });
    if (payments.length > 0) await this.hooks.afterClaim?.(payments.map((p) => p.id));
    return { claim, payments };
  }

  /**
   * A charge is routed as every card payment is (eligibility with the MIDs' limits and daily caps, the chain's MID
   * first, never the sandbox for a live merchant), its daily-cap share reserved within the claim's transaction.
   * No MID: undefined, and the charge is declined with the routing error.
   */
  private async routeCharge(tx: Sql, chain: DueChain): Promise<{ route?: ChargeRoute; refused?: RouteRefusal }> {
    const entry = await this.merchantOf(tx, chain.subscription.merchantId);
    if (!entry) return { refused: 'noEligibleMid' };
    const { amount, currency } = chain.subscription;
    const facts = cardFacts({ intent: 'sale', amount, currency, recurring: true });
    try {
      const route = await routeCard(this.ctx, entry.merchant, chainMidFirst(entry.mids, chain.origin.midId), facts, CHAIN_ROUTING);
      const taken = await takeCandidate(this.ctx, tx, route, 0, facts.money, (m) => this.ctx.connectors.has(m.connector));
      if (!taken) throw noCandidateError(route);
      route.decision.midId = taken.mid.id;
      return { route: { mid: taken.mid, decision: route.decision, ...(taken.hold ? { hold: taken.hold } : {}) } };
    } catch (err) {
      if (err instanceof GatewayError) return { refused: err.spec === ERRORS.dayMidLimit ? 'dayMidLimit' : 'noEligibleMid' };
      throw err;
    }
  }

  // --- 2 and 3. fence, charge, write -------------------------------------------------------------------

  private async charge(claim: string, claimed: readonly Payment[]): Promise<{ recorded: number; left: number }> {
    if (claimed.length === 0) return { recorded: 0, left: 0 };
    const fenced = await markAuthorizing(this.ctx.db, claimed.map((p) => p.id), claim);
    const ours = claimed.filter((p) => fenced.has(p.id)).map((p) => ({ ...p, pendingOperation: 'authorize' }));
    const cards = new Map<string, Promise<LoadedCard | undefined>>();
    // Once a pass fails it starts no more connector calls: what it fenced is resolved by the re-check.
    let failed = false;
    const answers = await mapBounded(ours, this.concurrency, async (p) => {
      const answer = failed ? NOT_SENT : await this.authorize(p, cards, () => failed);
      try {
        await this.hooks.afterCharge?.(p.id);
      } catch (err) {
        failed = true;
        throw err;
      }
      return { payment: p, answer };
    });
    return this.record(answers);
  }

  private async connectorFor(payment: Payment): Promise<{ connector: CardConnector; mid: MidAccess } | undefined> {
    const mids = (await this.merchantOf(this.ctx.db, payment.merchantId))?.mids ?? [];
    const mid = mids.find((m) => m.id === payment.midId);
    const connector = this.ctx.connectors.get(mid?.connector ?? '');
    return mid && connector ? { connector, mid: midAccess(this.ctx, mid) } : undefined;
  }

  /** Asks the connector to charge; a connector that throws leaves the payment in flight for the re-check. */
  private async authorize(payment: Payment, cards: Map<string, Promise<LoadedCard | undefined>>, passFailed: () => boolean): Promise<ConnectorOutcome> {
    const route = await this.connectorFor(payment);
    if (!route) return noRouteOutcome(payment);
    const vaultId = payment.vaultId ?? '';
    if (!cards.has(vaultId)) cards.set(vaultId, vaultId ? loadCard(this.ctx.db, this.ctx.keyring, vaultId) : Promise.resolve(undefined));
    const card = await cards.get(vaultId);
    if (!card) return { kind: 'declined', reason: 'Card no longer available' };
    if (passFailed()) return NOT_SENT;
    const verdict = await screen(this.ctx, chargeScreenFacts(payment, card, (await this.merchantOf(this.ctx.db, payment.merchantId))?.merchant.sandbox));
    // A charge no payer waits for cannot be held for review: a review declines it as a block does.
    if (verdict.action === 'block' || verdict.action === 'review') return screenRefusal({ ...verdict, action: 'block' })!;
    // The one request builder of every card attempt: the chain's card-on-file use and the acquirer's own reference.
    const request = authorizeRequest(this.ctx, payment, {
      intent: intentOf(payment), card: { pan: card.pan(), expMonth: card.expMonth, expYear: card.expYear, holder: card.holder ?? undefined },
      connector: route.connector.name, midId: route.mid.id,
    });
    try {
      return merchantInitiatedOutcome(await route.connector.authorize(request, route.mid));
    } catch (err) {
      this.ctx.logger.error({ paymentId: payment.id, err: (err as Error).message }, 'schedule charge: connector call failed; left for re-check');
      return { kind: 'pending', reason: 'Connector unavailable' };
    }
  }

  /**
   * Writes the final answers with their callbacks in one statement; pending ones stay in flight, and so do those
   * whose acquirer reports another payment (held for an operator, as a card payment's are: integrity.ts).
   */
  private async record(answers: readonly { payment: Payment; answer: ConnectorOutcome }[]): Promise<{ recorded: number; left: number }> {
    const decided = answers.filter((a): a is { payment: Payment; answer: FinalOutcome } => a.answer.kind === 'approved' || a.answer.kind === 'declined');
    const final = await this.unheld(decided);
    if (final.length === 0) return { recorded: 0, left: answers.length };
    const now = this.ctx.clock.now();
    const writes = [];
    const outbox: OutboxRow[] = [];
    const afters = new Map<string, Payment>();
    const entries: LedgerEntry[] = [];
    for (const { payment, answer } of final) {
      const charge = scheduleChargeOf(payment);
      const at = charge ? chargeInstant(charge, now) : now;
      const { write, after, event } = outcomeOf(payment, answer, at);
      writes.push(write);
      afters.set(payment.id, after);
      const posting = await postingEntries(this.ctx, this.ctx.db, { payment: after, transId: write.transactionId, outcome: answer.kind });
      entries.push(...posting);
      const merchant = (await this.merchantOf(this.ctx.db, payment.merchantId))?.merchant;
      // The optional fee field: a charge is its payment's first money, so its entries are all.
      const row = merchant && outboxRowOf(merchant, after, wantsMoney(merchant.settings.callbackFields) ? { ...event, money: paymentMoneyOf(posting, after.merchantId) } : event, at, newId());
      if (row) outbox.push(row);
    }
    const written = await recordOutcomes(this.ctx.db, writes, outbox, now, entries);
    await this.afterOutcomes(final.filter((a) => written.has(a.payment.id)), afters);
    return { recorded: written.size, left: answers.length - final.length };
  }

  /** The answers that may be applied; the others are held for an operator here (rare: one write each). */
  private async unheld(decided: { payment: Payment; answer: FinalOutcome }[]): Promise<{ payment: Payment; answer: FinalOutcome }[]> {
    const out: { payment: Payment; answer: FinalOutcome }[] = [];
    for (const a of decided) {
      if (mismatchesOf(a.payment, a.answer).length === 0) out.push(a);
      else await heldForIntegrity(this.ctx, a.payment, 'authorize', a.answer);
    }
    return out;
  }

  /**
   * What follows a written outcome: a declined charge gives its daily-cap share back, and the outcome counts
   * towards its MID's success rate. Both after the outcome's write: a crash in between keeps a share reserved
   * (the cap errs on the side of never being exceeded). The post step's entries were written by the batch
   * statement itself (record); here only its probe.
   */
  private async afterOutcomes(written: readonly { payment: Payment; answer: FinalOutcome }[], afters: ReadonlyMap<string, Payment>): Promise<void> {
    for (const { payment, answer } of written) {
      posted(this.ctx, { payment: afters.get(payment.id) ?? payment, transId: String(payment.details.lastTransId), outcome: answer.kind });
      if (answer.kind === 'declined') await releaseHold(this.ctx.db, payment.details.volumeHold);
      const merchant = (await this.merchantOf(this.ctx.db, payment.merchantId))?.merchant;
      if (merchant && answer !== NO_MID && answer !== DAY_LIMIT) {
        await noteOutcome(this.ctx, merchant, { midId: payment.midId, currency: payment.currency, brand: payment.details.brand, approved: answer.kind === 'approved' });
      }
    }
  }

  // --- recovery ----------------------------------------------------------------------------------------

  /** Takes over charges whose lease ran out: charges the never-called, asks the connector about the rest. */
  private async recover(): Promise<PassSummary> {
    const now = this.ctx.clock.now();
    const expired = await findExpiredCharges(this.ctx.db, now, this.batchSize);
    if (expired.length === 0) return { claimed: 0, recorded: 0, left: 0 };
    const claim = newClaim();
    const lockedUntil = new Date(now.getTime() + this.leaseMs);
    const taken = (await Promise.all(expired.map((e) => takeOverCharge(this.ctx.db, e, lockedUntil, claim)))).filter((p): p is Payment => p !== undefined);
    const charged = await this.charge(claim, taken.filter((p) => p.pendingOperation === null));
    const asked = await this.inquire(taken.filter((p) => p.pendingOperation === 'authorize'));
    return { claimed: taken.length, recorded: charged.recorded + asked.recorded, left: charged.left + asked.left };
  }

  /** The connector may have charged these before their runner died: ask it, never charge again. */
  private async inquire(payments: readonly Payment[]): Promise<{ recorded: number; left: number }> {
    const answers = await mapBounded(payments, this.concurrency, async (payment) => {
      const route = await this.connectorFor(payment);
      const answer = await route?.connector.inquire(inquiryRequest(payment), route.mid).catch(() => undefined);
      return { payment, answer: answer ? merchantInitiatedOutcome(answer) : ({ kind: 'pending', reason: 'No answer' } as const) };
    });
    return this.record(answers);
  }
}

/** What the screen reads of a scheduled charge (services/attempt/screen.ts). */
function chargeScreenFacts(p: Payment, card: LoadedCard, sandbox: boolean | undefined): ScreenFacts {
  const pan = card.pan();
  const threeDs = asThreeDsResult(p.details.chainThreeDs);
  return {
    paymentId: p.id, merchantId: p.merchantId, midId: p.midId, channel: 'schedule', kind: 'card', operation: p.operation, intent: intentOf(p),
    amount: p.amount, currency: p.currency, card: { bin: pan.slice(0, 8), last4: pan.slice(-4), stored: true, pan },
    payer: { ip: p.payer.ip, email: p.payer.email, country: p.payer.country }, merchantInitiated: true, recurring: true,
    sandbox, customData: p.customData, ...(threeDs ? { threeDs } : {}),
  };
}

/**
 * Runs fn over items with at most `limit` at once; results keep the items' order. After a failure no item is
 * started, and the first error is thrown only once every item in progress has settled: a failed pass leaves
 * nothing running behind it.
 */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
