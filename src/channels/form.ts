/**
 * Form bodies (application/x-www-form-urlencoded, and multipart fields re-encoded as such). Bracket keys
 * (`parameters[a]=b`) become nested objects through qs; a flat form, the common S2S case, takes a fast path.
 * Limits keep hostile bodies cheap; keys that could reach Object.prototype are dropped.
 */
import qs from 'qs';

const MAX_PARAMETERS = 1000;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function parseForm(body: string): Record<string, unknown> {
  if (/\[|%5b/i.test(body)) return qs.parse(body, { depth: 5, arrayLimit: 100, parameterLimit: MAX_PARAMETERS, allowPrototypes: false });
  try {
    return parseFlat(body);
  } catch {
    // A %-sequence decodeURIComponent refuses (not hexadecimal, or not UTF-8): URLSearchParams keeps or replaces it.
    return parseWith(new URLSearchParams(body));
  }
}

/**
 * A flat form as URLSearchParams reads it (one leading '?' dropped, pairs split at '&', empty ones skipped, name and value split at the
 * first '=', '+' a space, %-sequences decoded as UTF-8), several times cheaper on the S2S fields (issue 24); throws
 * on a %-sequence it cannot decode exactly as URLSearchParams would, and parseWith reads that body instead.
 */
function parseFlat(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let count = 0;
  // The URLSearchParams constructor drops one leading '?'.
  for (let at = body.startsWith('?') ? 1 : 0; at < body.length;) {
    let end = body.indexOf('&', at);
    if (end < 0) end = body.length;
    if (end > at) {
      if (++count > MAX_PARAMETERS) break;
      const eq = body.indexOf('=', at);
      const split = eq >= 0 && eq < end;
      add(out, decodePart(body.slice(at, split ? eq : end)), split ? decodePart(body.slice(eq + 1, end)) : '');
    }
    at = end + 1;
  }
  return out;
}

function decodePart(part: string): string {
  const spaced = part.includes('+') ? part.replace(/\+/g, ' ') : part;
  return spaced.includes('%') ? decodeURIComponent(spaced) : spaced;
}

function parseWith(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const [key, value] of params) {
    if (++count > MAX_PARAMETERS) break;
    add(out, key, value);
  }
  return out;
}

function add(out: Record<string, unknown>, key: string, value: string): void {
  if (UNSAFE_KEYS.has(key)) return;
  const seen = out[key];
  // A repeated key becomes an array, as qs makes it.
  out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
}
