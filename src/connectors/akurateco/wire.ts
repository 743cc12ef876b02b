/**
 * The family's S2S transport, shared by the card (akurateco.ts) and APM (apm.ts) transformers: a MID's settings
 * and credentials, the form encoding, a form POST to the API's one URL, a JSON answer. Both transformers import
 * this file and it imports neither, so they do not import each other's helpers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { HttpPort } from '../http.ts';
import type { MidAccess } from '../types.ts';

export const AkuratecoSettings = Type.Object({
  /** The upstream's S2S CARD endpoint, e.g. https://api.upstream.example/post. */
  endpoint: Type.String({ pattern: '^https?://', maxLength: 2048 }),
  /** The upstream's S2S APM endpoint (e.g. https://apm.upstream.example/post); absent: no alternative methods. */
  apmEndpoint: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
  /** A live MID moves real money: the sandbox test cards are refused on it. */
  live: Type.Optional(Type.Boolean()),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 120_000 })),
}, { additionalProperties: false });

export const AkuratecoCredentials = Type.Object({
  client_key: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 255 }),
}, { additionalProperties: false });

/** Compiled once: the settings are checked on every call. */
const SETTINGS_CHECK = TypeCompiler.Compile(AkuratecoSettings);

type Settings = Static<typeof AkuratecoSettings>;
export type Answer = Record<string, unknown>;

export const DEFAULT_TIMEOUT_MS = 30_000;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function settingsOf(mid: MidAccess | undefined): Settings {
  if (!mid || !SETTINGS_CHECK.Check(mid.settings)) throw new Error('akurateco: the MID settings are incomplete');
  return mid.settings as Settings;
}

export function credentialsOf(mid: MidAccess): { clientKey: string; password: string } {
  const c = mid.credentials.expose();
  if (!c.client_key || !c.password) throw new Error('akurateco: the MID credentials are incomplete');
  return { clientKey: c.client_key, password: c.password };
}

/** parameters[...] as the family's form encoding names nested members. */
export function flatten(value: unknown, prefix: string, out: URLSearchParams): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(v, `${prefix}[${k}]`, out);
    return;
  }
  out.append(prefix, String(value));
}

/**
 * Posts one action; a 5xx or an answer that is not JSON throws: it says nothing about the payment (pending). So
 * does a 409 or 422 to a request sent with an idempotency key: the key's first request may be running or may have
 * taken effect, or the key was used with another body; none of it is a decline.
 */
export async function postForm(http: HttpPort, url: string, fields: URLSearchParams, timeoutMs: number, idempotencyKey?: string): Promise<Record<string, unknown>> {
  const res = await http.send({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: fields.toString(),
    timeoutMs,
  });
  if (res.status >= 500 || (idempotencyKey && (res.status === 409 || res.status === 422))) throw new Error(`upstream answered ${res.status}`);
  try {
    return JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    throw new Error(`upstream answered ${res.status} without JSON`);
  }
}
