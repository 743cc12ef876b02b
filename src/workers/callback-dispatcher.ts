/**
 * Delivers the callback outbox (decisions D7). Any number of dispatchers, on any number of nodes, may run
 * against one store: each claims due callbacks under a lease, POSTs them, and settles them while the lease is
 * still its own. Delivery is at least once (a dispatcher whose lease expired mid-POST may overlap with the
 * next one), so every POST carries the stable event id in `X-Callback-Id` for the receiver to drop repeats.
 */
import type { Clock } from '../domain/clock.ts';
import type { Database, Sql } from '../services/context.ts';
import { nextAttemptDelay, responseOutcome, type AttemptOutcome } from '../domain/callback-policy.ts';
import {
  claimDue,
  deferCallback,
  markFailed,
  recordAttempt,
  releaseCallback,
  recordUrlTimeout,
  scheduleRetry,
  settleDelivered,
  urlBlockedUntil,
  type ClaimedCallback,
} from '../services/callbacks/outbox.ts';
import { PollingLoop } from './polling.ts';
import { PUBLIC_TARGETS_ONLY, type CallbackTargetPolicy } from '../domain/callback-targets.ts';
import { CallbackHttpClient, type Resolver } from './callback-http.ts';
import { webhookHeaders } from '../domain/webhook-signature.ts';
import type { Secret } from '../domain/secret.ts';

/** The part of a pino logger the dispatcher uses. */
export interface DispatcherLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface CallbackDispatcherOptions {
  db: Database;
  clock: Clock;
  logger: DispatcherLogger;
  /** Whole request, body included. Default 10 s. */
  timeoutMs?: number;
  /** Callbacks claimed per batch. Default 50. */
  batchSize?: number;
  /** Pause between polls when the last batch was not full. Default 1 s. */
  pollMs?: number;
  /**
   * POSTs in flight at once within a batch. Default 25: the dispatcher shares its node's event loop with the
   * requests, and at a node's full speed (SALEs with callbacks, 2-core machine) 10 in flight delivered 63-65 % of the
   * callbacks during the load (the rest 1.2-1.9 s after it), 25 delivered 81-96 % (the rest within 0.7 s).
   */
  concurrency?: number;
  /** How long a claim holds. Default: long enough for a whole batch of timeouts, plus a minute. */
  leaseMs?: number;
  /** Tests only: POST through this fetch instead of the guarded client (no SSRF check). */
  fetchImpl?: typeof fetch;
  /** Internal hosts the operator allows as callback targets (CALLBACK_ALLOWED_PRIVATE_HOSTS). */
  targets?: CallbackTargetPolicy;
  /** DNS for callback hosts (tests play DNS). */
  resolver?: Resolver;
  /** The merchant's webhook signing keys; absent: no Standard Webhooks headers. */
  signingKeys?: { keysFor(merchantId: string): Promise<Secret<Buffer[]>> };
}

export interface BatchSummary {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
  /** Put back untried because their URL got blocked during the batch. */
  deferred: number;
  /** Settled by another dispatcher after this one's lease expired. */
  leaseLost: number;
  /** Given back untried because the dispatcher is stopping (the node shuts down). */
  released: number;
  /** Store errors; the lease expires and another run retries them. */
  errors: number;
}

type Settlement = 'delivered' | 'retried' | 'failed' | 'deferred' | 'leaseLost' | 'released' | 'errors';

/**
 * One claimed batch as it is worked: each URL's block read once (the claim left blocked URLs out; a URL this batch's
 * timeouts block is marked here at once), and the deliveries whose settlement is still being written: a worker
 * goes on to its next POST while a delivery's settlement waits for its grouped statement.
 */
interface Batch {
  blocks: Map<string, Promise<Date | undefined>>;
  settling: Promise<Settlement>[];
}
const NO_SETTLEMENTS: Record<Settlement, number> = {
  delivered: 0,
  retried: 0,
  failed: 0,
  deferred: 0,
  leaseLost: 0,
  released: 0,
  errors: 0,
};

interface AttemptResult {
  attemptedAt: Date;
  httpStatus: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  durationMs: number;
}

const CONTENT_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
/** Enough to read `OK`; a longer answer is not `OK` anyway, and an endless one must not fill memory. */
const MAX_RESPONSE_BYTES = 4096;

export class CallbackDispatcher {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly logger: DispatcherLogger;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly http: CallbackHttpClient;
  private readonly signingKeys: CallbackDispatcherOptions['signingKeys'];
  private readonly polling: PollingLoop;

  constructor(opts: CallbackDispatcherOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.batchSize = opts.batchSize ?? 50;
    this.concurrency = Math.max(1, opts.concurrency ?? 25);
    this.leaseMs = opts.leaseMs ?? this.timeoutMs * Math.ceil(this.batchSize / this.concurrency) + 60_000;
    this.fetchImpl = opts.fetchImpl;
    this.signingKeys = opts.signingKeys;
    this.http = new CallbackHttpClient(opts.targets ?? PUBLIC_TARGETS_ONLY, opts.resolver);
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 1_000,
      // Woken by each write request (nudge): at most one extra claim per 20 ms however many requests arrive.
      minPauseMs: 20,
      // A full batch suggests a backlog: go again at once.
      pass: async () => (await this.runOnce()).claimed >= this.batchSize,
      onError: (err) => this.logger.error({ err: describeError(err) }, 'callback dispatcher: claiming failed'),
    });
  }

  /** Claims one batch of due callbacks and tries each once. Store errors of the claim itself are thrown. */
  async runOnce(): Promise<BatchSummary> {
    const claimed = await claimDue(this.db, { now: this.clock.now(), limit: this.batchSize, lockMs: this.leaseMs });
    const batch: Batch = { blocks: new Map(), settling: [] };
    const settlements = await mapBounded(claimed, this.concurrency, (cb) => this.deliverSafely(cb, batch));
    const settledLater = await Promise.all(batch.settling);
    const summary: BatchSummary = { claimed: claimed.length, ...NO_SETTLEMENTS };
    for (const s of [...settlements, ...settledLater]) if (s !== 'settling') summary[s] += 1;
    return summary;
  }

  /** Polls until stop(); never throws out of the loop. */
  start(): void {
    this.polling.start();
  }

  /** New callbacks may be due: claim them now rather than at the next poll (no-op while a pass runs or when stopped). */
  nudge(): void {
    this.polling.wake();
  }

  /** Ends the loop after the batch in flight has settled. */
  async stop(): Promise<void> {
    await this.polling.stop();
    this.http.close();
  }

  private async deliverSafely(cb: ClaimedCallback, batch: Batch): Promise<Settlement | 'settling'> {
    try {
      return await this.deliver(cb, batch);
    } catch (err) {
      return this.storeError(cb, err);
    }
  }

  private storeError(cb: ClaimedCallback, err: unknown): Settlement {
    this.logger.error({ ...logContext(cb), err: describeError(err) }, 'callback: store error, lease left to expire');
    return 'errors';
  }

  /** When the callback's URL is blocked, read once per batch and URL. */
  private blockedUntil(cb: ClaimedCallback, batch: Batch): Promise<Date | undefined> {
    let until = batch.blocks.get(cb.url);
    if (!until) {
      until = urlBlockedUntil(this.db, cb.url, this.clock.now());
      batch.blocks.set(cb.url, until);
    }
    return until;
  }

  private async deliver(cb: ClaimedCallback, batch: Batch): Promise<Settlement | 'settling'> {
    // A stopping node finishes the POSTs it started but starts no more: the rest go back to the queue now,
    // not after their lease, so another node delivers them at once.
    if (this.polling.stopping) return (await releaseCallback(this.db, leaseOf(cb))) ? 'released' : 'leaseLost';
    // The URL may have been blocked by timeouts earlier in this very batch.
    const blockedUntil = await this.blockedUntil(cb, batch);
    if (blockedUntil) {
      const reason = 'url blocked after timeouts';
      const held = await deferCallback(this.db, { ...leaseOf(cb), until: blockedUntil, reason });
      this.logger.warn({ ...logContext(cb), blockedUntil }, 'callback: url blocked, deferred');
      return held ? 'deferred' : 'leaseLost';
    }
    const attempt = await this.post(cb);
    if (attempt.outcome !== 'delivered') return this.settle(cb, attempt, batch);
    batch.settling.push(this.settleDelivered(cb, attempt).catch((err: unknown) => this.storeError(cb, err)));
    return 'settling';
  }

  private async post(cb: ClaimedCallback): Promise<AttemptResult> {
    const attemptedAt = this.clock.now();
    const started = performance.now();
    const result = (r: Omit<AttemptResult, 'attemptedAt' | 'durationMs'>): AttemptResult => ({
      ...r,
      attemptedAt,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      const res = await this.send(cb, { 'content-type': CONTENT_TYPE, 'x-callback-id': cb.id, ...(await this.signatureHeaders(cb)) });
      const outcome = responseOutcome(cb.protocol, res.status, res.body);
      const error = outcome === 'delivered' ? null : failureText(outcome, res.status);
      return result({ httpStatus: res.status, outcome, error });
    } catch (err) {
      const timedOut = isTimeout(err);
      const error = timedOut ? `no answer within ${this.timeoutMs} ms` : describeError(err);
      return result({ httpStatus: null, outcome: timedOut ? 'timeout' : 'network_error', error });
    }
  }

  /** Standard Webhooks headers over the exact body sent, timestamped at this attempt. */
  private async signatureHeaders(cb: ClaimedCallback): Promise<Record<string, string>> {
    if (!this.signingKeys) return {};
    const keys = await this.signingKeys.keysFor(cb.merchantId);
    return webhookHeaders(keys.expose(), cb.id, Math.floor(this.clock.now().getTime() / 1000), cb.body);
  }

  /** One POST; checkout ignores the answer's body, S2S needs it to say OK. */
  private async send(cb: ClaimedCallback, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const maxResponseBytes = cb.protocol === 's2s' ? MAX_RESPONSE_BYTES : 0;
    if (!this.fetchImpl) return this.http.post({ url: cb.url, headers, body: cb.body, timeoutMs: this.timeoutMs, maxResponseBytes });
    const signal = AbortSignal.timeout(this.timeoutMs);
    const res = await this.fetchImpl(cb.url, { method: 'POST', headers, body: cb.body, redirect: 'manual', signal });
    return { status: res.status, body: maxResponseBytes > 0 ? await readCapped(res, maxResponseBytes) : await discard(res) };
  }

  /** A delivery's attempt log, URL health and settlement: one statement, shared with the deliveries settled at the same time. */
  private async settleDelivered(cb: ClaimedCallback, attempt: AttemptResult): Promise<Settlement> {
    const now = this.clock.now();
    const held = await settleDelivered(this.db, { ...leaseOf(cb), url: cb.url, attempt: { callbackId: cb.id, ...attempt }, now });
    const settlement: Settlement = held ? 'delivered' : 'leaseLost';
    this.logSettlement(cb, attempt, settlement, { kind: 'delivered' });
    return settlement;
  }

  /** A failed attempt's log, URL health (a timeout counts towards the URL's block) and next state, in one transaction. */
  private async settle(cb: ClaimedCallback, attempt: AttemptResult, batch: Batch): Promise<Settlement> {
    const now = this.clock.now();
    const next = nextState(cb, attempt, now);
    if (next.kind === 'delivered') return this.settleDelivered(cb, attempt);
    const { held, blocked } = await this.db.transaction(async (tx) => {
      await recordAttempt(tx, { callbackId: cb.id, ...attempt });
      const blocked = await updateUrlHealth(tx, cb.url, attempt.outcome, now);
      return { held: await applyNextState(tx, cb, next, attempt.error ?? ''), blocked };
    });
    if (blocked) {
      // The batch's later callbacks of the URL are deferred, not sent.
      batch.blocks.set(cb.url, Promise.resolve(blocked));
      this.logger.warn({ host: hostOf(cb.url) }, 'callback url blocked after repeated timeouts');
    }
    const settlement: Settlement = held ? next.kind : 'leaseLost';
    this.logSettlement(cb, attempt, settlement, next);
    return settlement;
  }

  private logSettlement(cb: ClaimedCallback, a: AttemptResult, settlement: Settlement, next: NextState): void {
    const attempt = cb.attempts + 1;
    const entry = { ...logContext(cb), attempt, status: a.httpStatus, outcome: a.outcome, durationMs: a.durationMs };
    if (settlement === 'delivered') this.logger.info(entry, 'callback delivered');
    else if (settlement === 'failed') this.logger.error(entry, 'callback failed after the last retry');
    else if (settlement === 'retried' && next.kind === 'retried') {
      this.logger.warn({ ...entry, nextAttemptAt: next.at }, 'callback attempt failed, retry scheduled');
    } else this.logger.warn(entry, 'callback settled elsewhere: lease expired during the attempt');
  }
}

type NextState = { kind: 'delivered' } | { kind: 'failed' } | { kind: 'retried'; at: Date };

/** Delivered, or the next retry from the schedule, or failed when the schedule is used up. */
function nextState(cb: ClaimedCallback, attempt: AttemptResult, now: Date): NextState {
  if (attempt.outcome === 'delivered') return { kind: 'delivered' };
  const retryIn = nextAttemptDelay(cb.attempts + 1);
  return retryIn === undefined ? { kind: 'failed' } : { kind: 'retried', at: new Date(now.getTime() + retryIn) };
}

/** Lease-fenced: false when another dispatcher holds the callback now. */
function applyNextState(tx: Sql, cb: ClaimedCallback, next: Exclude<NextState, { kind: 'delivered' }>, error: string): Promise<boolean> {
  if (next.kind === 'failed') return markFailed(tx, { ...leaseOf(cb), error });
  return scheduleRetry(tx, { ...leaseOf(cb), nextAttemptAt: next.at, error });
}

/**
 * A timeout counts towards the block rule; other failures leave it (a delivery resets it: settleDelivered). The
 * block's end when this timeout blocked the URL.
 */
async function updateUrlHealth(tx: Sql, url: string, outcome: AttemptOutcome, now: Date): Promise<Date | undefined> {
  if (outcome !== 'timeout') return undefined;
  const health = await recordUrlTimeout(tx, url, now);
  return health.justBlocked ? (health.blockedUntil ?? undefined) : undefined;
}

const leaseOf = (cb: ClaimedCallback) => ({ id: cb.id, leaseToken: cb.leaseToken });

/** What may be logged about a callback: never its body (card masks, hashes) nor its full URL. */
function logContext(cb: ClaimedCallback): { callbackId: string; merchantId: string; host: string } {
  return { callbackId: cb.id, merchantId: cb.merchantId, host: hostOf(cb.url) };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}

function failureText(outcome: AttemptOutcome, status: number): string {
  if (outcome === 'redirect') return `HTTP ${status}: redirects are not followed`;
  if (outcome === 'not_ok_body') return `HTTP ${status} without body OK`;
  return `HTTP ${status}`;
}

function isTimeout(err: unknown): boolean {
  const cause = (err as { cause?: { name?: string } } | undefined)?.cause;
  return err instanceof Error && (err.name === 'TimeoutError' || cause?.name === 'TimeoutError');
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause as { code?: string; message?: string } | undefined;
  const detail = cause?.code ?? cause?.message;
  return detail ? `${err.message} (${detail})` : err.message;
}

/** Reads at most maxBytes of the answer; a longer one is cut off, which no `OK` check accepts. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return '(answer too long)';
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

async function discard(res: Response): Promise<string> {
  await res.body?.cancel().catch(() => undefined);
  return '';
}

/** Runs fn over items with at most `limit` running at once; results keep the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
