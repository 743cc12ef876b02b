/**
 * The admin API, typed by the types generated from the gateway's own OpenAPI description (schema.d.ts, built by
 * scripts/build-console.mjs): a path, method, query and body that the API does not have do not compile.
 * The session cookie travels by itself; the CSRF token the sign-in answered goes in a header on every write.
 */
import type { paths } from './schema';
import { inWords } from '../errors';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Path = keyof paths;
type Op<P extends Path, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;
type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
export type Answer<P extends Path, M extends Method> = Op<P, M> extends { responses: infer R }
  ? R extends { 200: infer A } ? Json<A> : R extends { 201: infer A } ? Json<A> : undefined
  : never;
export type BodyOf<P extends Path, M extends Method> = Op<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B
  : Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type QueryOf<P extends Path, M extends Method> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type ParamsOf<P extends Path, M extends Method> = Op<P, M> extends { parameters: { path: infer X } } ? X : never;

export interface CallOptions<P extends Path, M extends Method> {
  params?: ParamsOf<P, M>;
  query?: QueryOf<P, M>;
  body?: BodyOf<P, M>;
  /**
   * A save built on this console's last read of the same URL: sent with that read's ETag in If-Match, so the API
   * refuses it (412) if someone saved the configuration since (routing rules, money terms, settings, wallets, a MID, the merchant).
   */
  conditional?: boolean;
}

/** A D3 error body: `{http_code, error_code, error_message, errors?}`. */
export interface ErrorBody {
  http_code: number;
  error_code: string;
  error_message: string;
  errors?: { error_code: string; error_message: string }[];
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody | undefined) {
    // Field paths in words (issue 31 item 9): "Rule 1, Card countries: ...", not "rules[0].when.card_countries[0]: ...".
    super(body?.errors?.map((e) => inWords(e.error_message)).join(' ') || (body?.error_message && inWords(body.error_message)) || `The gateway answered ${status}.`);
  }
}

let csrfToken: string | undefined;
/** When the console last spoke to the API: the idle timeout counts from there. */
let lastCallAt = Date.now();
export const msSinceLastCall = () => Date.now() - lastCallAt;
export const setCsrfToken = (token: string | undefined) => { csrfToken = token; };

/** Called when an answer says the session is gone (signed out elsewhere, idle timeout). */
let onSignedOut: () => void = () => {};
export const whenSignedOut = (fn: () => void) => { onSignedOut = fn; };

export function buildUrl(path: string, params?: object, query?: object): string {
  const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String((params as Record<string, unknown>)[name])));
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/** The ETag of each URL's last read or save (the API answers one for configuration saved whole). */
const entityTags = new Map<string, string>();

export async function call<P extends Path, M extends Method>(method: M, path: P, opts: CallOptions<P, M> = {}): Promise<Answer<P, M>> {
  lastCallAt = Date.now();
  const url = buildUrl(path, opts.params as object | undefined, opts.query as object | undefined);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'get' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const readTag = opts.conditional ? entityTags.get(url) : undefined;
  if (readTag) headers['if-match'] = readTag;
  const res = await fetch(url, {
    method: method.toUpperCase(), headers, credentials: 'same-origin',
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const tag = res.headers.get('etag');
  if (res.ok && tag) entityTags.set(url, tag);
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    // The session's own read answers 401 when signed out (the console's and the portal's, which shares this client).
    if (res.status === 401 && !path.endsWith('/v1/session')) onSignedOut();
    throw new ApiError(res.status, json as ErrorBody | undefined);
  }
  return json as Answer<P, M>;
}

export type Payment = Answer<'/admin/v1/payments', 'get'>['payments'][number];
export type PaymentDetail = Answer<'/admin/v1/payments/{id}', 'get'>;
export type Merchant = Answer<'/admin/v1/merchants', 'get'>['merchants'][number];
export type Mid = Answer<'/admin/v1/merchants/{id}/mids', 'get'>['mids'][number];
export type Callback = Answer<'/admin/v1/callbacks', 'get'>['callbacks'][number];
export type Session = Answer<'/admin/v1/session', 'get'>;
export type Permission = Session['permissions'][number];
export type Settings = Answer<'/admin/v1/merchants/{id}/settings', 'get'>;
export type PaymentQuery = QueryOf<'/admin/v1/payments', 'get'>;

/**
 * A request whose body or answer is a file, not JSON (a report upload, a SEPA export): the same session, CSRF
 * header and D3 errors as `call`, the answer handed back as the Response.
 */
export async function send(method: Method, url: string, body: BodyInit | undefined, contentType?: string): Promise<Response> {
  lastCallAt = Date.now();
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  if (method !== 'get' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(url, { method: method.toUpperCase(), headers, credentials: 'same-origin', body: body ?? null });
  if (!res.ok) {
    const text = await res.text();
    let json: ErrorBody | undefined;
    try { json = text ? (JSON.parse(text) as ErrorBody) : undefined; } catch { json = undefined; }
    if (res.status === 401) onSignedOut();
    throw new ApiError(res.status, json);
  }
  return res;
}

/** Saves a file the browser holds (an export answered to a POST) under `name`. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
