/**
 * Speaking to the merchant portal's API as its screens do (issue 30): the session cookie and the CSRF header; the
 * invitation read from the sandbox outbox as a developer would; TOTP codes computed here, with node:crypto, from
 * RFC 6238 itself (not from the library the gateway uses).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { TestGateway } from '../support/gateway.ts';
import { adminClient } from '../admin/support.ts';

export interface Answer { status: number; headers: Headers; text: string; body: any }

export async function request(baseUrl: string, method: string, path: string, opts: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: 'manual' });
  const text = await res.text();
  let body: any;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: res.status, headers: res.headers, text, body };
}

export const cookieOf = (res: Answer): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

/** RFC 4648 base32 -> bytes. */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238 TOTP (HMAC-SHA-1, 30-second steps, 6 digits) at `at`, with RFC 4226's dynamic truncation. */
export function totp(secretBase32: string, at: Date): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at.getTime() / 1000 / 30)));
  const mac = createHmac('sha1', base32Decode(secretBase32)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, '0');
}

/** A clock the test moves (a TOTP code is accepted once per 30-second step). */
export function testClock(start = Date.now()) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => { now += ms; } };
}

export const PORTAL_PASSWORD = 'a long passphrase of mine';

/** The newest invitation token mailed to `email` (read from the sandbox outbox, as a developer would). */
export async function invitationToken(baseUrl: string, email: string): Promise<string> {
  const res = await request(baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(email)}`);
  assert.equal(res.status, 200, res.text);
  const message = res.body.messages[0];
  assert.ok(message, `no e-mail to ${email}`);
  const token = /#token=([A-Za-z0-9_-]+)/.exec(message.link ?? '')?.[1];
  assert.ok(token, message.link);
  assert.ok(message.body.includes(message.link), 'the e-mail\'s text carries the link');
  return token!;
}

export interface PortalSession { cookie: string; csrf: string; body: any }

export async function portalSignIn(baseUrl: string, email: string, password = PORTAL_PASSWORD, extra: Record<string, string> = {}): Promise<PortalSession> {
  const res = await request(baseUrl, 'POST', '/portal/v1/session', { body: { email, password, ...extra } });
  assert.equal(res.status, 201, res.text);
  return { cookie: cookieOf(res), csrf: res.body.csrf_token, body: res.body };
}

/** A portal user of a merchant (or group), invited by an operator through the admin API, password set through the link. */
export async function invitedUser(t: TestGateway, adminToken: string, opts: { role: string; merchantId?: string; groupId?: string; email?: string }): Promise<{ id: string; email: string }> {
  const email = opts.email ?? `${opts.role}-${Math.random().toString(36).slice(2, 10)}@shop.example`;
  const admin = adminClient(t.baseUrl, adminToken);
  const res = await admin('POST', '/admin/v1/merchant-users', {
    email, role: opts.role, ...(opts.groupId ? { group_id: opts.groupId } : { merchant_id: opts.merchantId ?? t.merchant.id }),
  });
  assert.equal(res.status, 201, res.text);
  const token = await invitationToken(t.baseUrl, email);
  const accepted = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: PORTAL_PASSWORD } });
  assert.equal(accepted.status, 200, accepted.text);
  return { id: res.body.id, email };
}

/** A client of the portal API with one session (the CSRF header on every write). */
export function portalClient(baseUrl: string, s: PortalSession) {
  return (method: string, path: string, body?: unknown) => request(baseUrl, method, path, { cookie: s.cookie, ...(method === 'GET' ? {} : { csrf: s.csrf }), ...(body === undefined ? {} : { body }) });
}
