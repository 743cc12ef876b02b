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
  const out: Record<string, unknown> = {};
  let count = 0;
  for (const [key, value] of new URLSearchParams(body)) {
    if (++count > MAX_PARAMETERS) break;
    if (UNSAFE_KEYS.has(key)) continue;
    const seen = out[key];
    // A repeated key becomes an array, as qs makes it.
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}
