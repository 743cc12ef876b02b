/**
 * Two gateways in a chain: an upstream Portcullis (a sandbox merchant on the sandbox connector) and ours, whose
 * merchant's MID forwards to it with the `akurateco` connector. A proxy between them plays a misbehaving network
 * or acquirer where a test needs one (an answer that never comes, an answer reporting another amount).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/gateway.ts';
import type { StoreKind } from '../support/stores.ts';
import { findPaymentsByOrder, getPayment } from '../../src/store/payments-repo.ts';
import type { Payment } from '../../src/domain/model/payment.ts';

export interface Chain {
  upstream: TestGateway;
  ours: TestGateway;
  midId: string;
  close(): Promise<void>;
}

export interface ChainOptions {
  /** Our merchant's callback URL. */
  notificationUrl?: string;
  /** Run the upstream's workers (its callbacks to us). */
  upstreamWorkers?: boolean;
  ourWorkers?: boolean;
  /** The upstream endpoint our MID uses (a proxy's); default the upstream's /post. */
  endpoint?: (upstream: TestGateway) => string;
  timeoutMs?: number;
  live?: boolean;
  /** Our MID also forwards alternative methods, to the upstream's S2S APM (apmEndpoint). */
  apm?: boolean;
  ours?: Partial<TestGatewayOptions>;
  /** The upstream's own options (an admin token, a clock). */
  upstream?: Partial<TestGatewayOptions>;
}

export async function startChain(kind: StoreKind, opts: ChainOptions = {}): Promise<Chain> {
  const upstream = await startTestGateway(kind, { workers: opts.upstreamWorkers ?? true, ...opts.upstream });
  const midId = crypto.randomUUID();
  const settings: Record<string, unknown> = { endpoint: opts.endpoint ? opts.endpoint(upstream) : `${upstream.baseUrl}/post` };
  if (opts.timeoutMs) settings.timeoutMs = opts.timeoutMs;
  if (opts.live) settings.live = true;
  if (opts.apm) settings.apmEndpoint = `${upstream.baseUrl}/apm/post`;
  const ours = await startTestGateway(kind, {
    workers: opts.ourWorkers ?? true,
    notificationUrl: opts.notificationUrl,
    sandbox: false,
    mids: [{ id: midId, paymentMode: 'SMS/DMS', connector: 'akurateco', settings, credentials: { client_key: upstream.merchant.key, password: upstream.merchant.password } }],
    ...opts.ours,
  });
  return {
    upstream,
    ours,
    midId,
    async close() {
      await ours.close();
      await upstream.close();
    },
  };
}

/** The upstream's payments for one of our payments (its order_id is our payment id). */
export async function upstreamPayments(chain: Chain, ourPaymentId: string): Promise<Payment[]> {
  return findPaymentsByOrder(chain.upstream.store.db, chain.upstream.merchant.id, ourPaymentId, 10);
}

export async function ourPayment(gw: TestGateway, id: string): Promise<Payment> {
  const p = await getPayment(gw.store.db, id);
  if (!p) throw new Error(`no payment ${id}`);
  return p;
}

export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface Proxy {
  url: string;
  /** How many requests of each action passed through. */
  actions: string[];
  /**
   * Resolves once `count` answers are held: the upstream has acted on them. Our side may have given up before
   * (its timeout runs from when it sent, and a busy machine can make the upstream slower than that).
   */
  untilHeld(count?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs `work` with our MID's timeout at `ms`, then gives the MID back its own: a short timeout makes a held answer
 * cheap to wait out, but every other request to the upstream must be free of it (a busy machine can take a second).
 */
export async function withMidTimeout<T>(chain: Chain, ms: number, work: () => Promise<T>): Promise<T> {
  const db = chain.ours.store.db;
  const [{ previous } = { previous: null }] = await db.query<{ previous: unknown }>("SELECT settings->'timeoutMs' AS previous FROM mids WHERE id = $1", [chain.midId]);
  await db.query("UPDATE mids SET settings = jsonb_set(settings, '{timeoutMs}', to_jsonb($1::int)) WHERE id = $2", [ms, chain.midId]);
  chain.ours.gateway.ctx.merchants.invalidate();
  try {
    return await work();
  } finally {
    if (previous === null) await db.query("UPDATE mids SET settings = settings - 'timeoutMs' WHERE id = $1", [chain.midId]);
    else await db.query("UPDATE mids SET settings = jsonb_set(settings, '{timeoutMs}', $1::jsonb) WHERE id = $2", [JSON.stringify(previous), chain.midId]);
    chain.ours.gateway.ctx.merchants.invalidate();
  }
}

/**
 * Forwards form posts to `target`. `hold(action)`: forward, then never answer (the acquirer acted, the answer is
 * lost). `rewrite(action, body)`: change the acquirer's answer on its way back.
 */
export async function startProxy(target: string, opts: { hold?: (action: string) => boolean; rewrite?: (action: string, body: string) => string } = {}): Promise<Proxy> {
  const actions: string[] = [];
  const held = new Set<() => void>();
  let heldWaiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const action = new URLSearchParams(raw.toString('utf8')).get('action') ?? '';
      actions.push(action);
      const headers = { ...req.headers, host: new URL(target).host };
      const out = httpRequest(target, { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          if (opts.hold?.(action)) {
            held.add(() => res.destroy());
            const waiting = heldWaiters;
            heldWaiters = [];
            for (const wake of waiting) wake();
            return;
          }
          const text = Buffer.concat(parts).toString('utf8');
          const body = opts.rewrite ? opts.rewrite(action, text) : text;
          res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' }).end(body);
        });
      });
      out.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/post`,
    actions,
    async untilHeld(count = 1) {
      while (held.size < count) await new Promise<void>((resolve) => heldWaiters.push(resolve));
    },
    close: () => new Promise((resolve) => {
      for (const drop of held) drop();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
