/**
 * What a merchant's integration does, written independently of the gateway's code: the platform's hash
 * formulas straight from the docs, a callback listener, and form parsing of what arrives.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');
/** PHP strtoupper: ASCII letters only. */
const upper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());
const strrev = (s: string) => [...s].reverse().join('');

/** Checkout: sha1(md5(strtoupper(fields . password))). */
export const checkoutHash = (password: string, ...fields: string[]) => sha1(md5(upper(fields.join('') + password)));

/** S2S CARD Formula 1: md5(strtoupper(strrev(email) . password . strrev(first6 . last4))). */
export const f1 = (email: string, password: string, pan: string) => md5(upper(strrev(email) + password + strrev(pan.slice(0, 6) + pan.slice(-4))));
/** S2S CARD Formula 2: md5(strtoupper(strrev(email) . password . trans_id . strrev(first6 . last4))). */
export const f2 = (email: string, password: string, transId: string, first6last4: string) => md5(upper(strrev(email) + password + transId + strrev(first6last4)));

export interface ReceivedCallback {
  headers: IncomingMessage['headers'];
  raw: string;
  fields: Record<string, string>;
}

export interface Listener {
  url: string;
  received: ReceivedCallback[];
  /** Resolves when `count` callbacks have arrived (or rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  /** Resolves with the callbacks that match, once there are `count` of them. */
  waitForMatching(match: (c: ReceivedCallback) => boolean, count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  close(): Promise<void>;
}

/** A merchant's callback endpoint on 127.0.0.1, answering `answer` (default "OK") with 200. */
export async function startListener(answer = 'OK'): Promise<Listener> {
  const received: ReceivedCallback[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, raw, fields: Object.fromEntries(new URLSearchParams(raw)) });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const listener: Listener = {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    async waitFor(count, timeoutMs = 20_000) {
      return (await listener.waitForMatching(() => true, count, timeoutMs)).slice(0, count);
    },
    async waitForMatching(match, count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.filter(match).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} matching callbacks, got ${received.filter(match).length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.filter(match);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return listener;
}

/** An error body as the platform sends it: without the `hint` member sandbox merchants get on a bad hash. */
export const platformBody = (body: Record<string, unknown>): Record<string, unknown> => {
  const { hint: _hint, ...platform } = body;
  return platform;
};
