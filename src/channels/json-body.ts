/**
 * JSON request bodies, parsed with limits: a hostile body (thousands of nested arrays, a million keys) is
 * refused with a D3 answer before anything walks it (a recursive stringify or validation of a deep body would
 * overflow the stack: a 500). One linear scan counts depth and object members outside strings; then
 * secure-json-parse parses, refusing `__proto__` and `constructor.prototype` keys as Fastify's own parser does.
 */
import sjson from 'secure-json-parse';
import { GatewayError, MESSAGES } from '../domain/errors.ts';

export const JSON_LIMITS = {
  /** Deepest nesting of objects and arrays; the deepest schema (order.items[].x) needs 4. */
  maxDepth: 32,
  /** Object members in the whole body, as forms are bounded to 1,000 parameters. */
  maxKeys: 1000,
} as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;

/** Undefined when the text stays within the limits, else what it exceeds. Malformed JSON is left to JSON.parse. */
export function jsonLimitExceeded(text: string, limits = JSON_LIMITS): 'depth' | 'keys' | undefined {
  let depth = 0;
  let keys = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limits.maxDepth) return 'depth';
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
    else if (c === COLON && ++keys > limits.maxKeys) return 'keys';
  }
  return undefined;
}

const TOO_DEEP = `The request body is nested too deeply (at most ${JSON_LIMITS.maxDepth} levels).`;
const TOO_MANY_KEYS = `The request body has too many fields (at most ${JSON_LIMITS.maxKeys}).`;

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw GatewayError.field('request', MESSAGES.blank);
  const exceeded = jsonLimitExceeded(text);
  if (exceeded) throw GatewayError.field('request', exceeded === 'depth' ? TOO_DEEP : TOO_MANY_KEYS);
  try {
    return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw GatewayError.field('request', 'This value should be valid JSON.');
  }
}
