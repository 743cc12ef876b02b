/** Route schemas validate with TypeBox (domain/schema-errors.ts) and fail with the D3 answer. */
import type { TSchema } from '@sinclair/typebox';
import { GatewayError } from '../domain/errors.ts';
import { collectErrors, compile } from '../domain/schema-errors.ts';

/**
 * Fastify validator compiler: route schemas validate with TypeBox and fail with GatewayError. A query string's
 * values are all text, so the querystring's integer and number fields are read as numbers first (`?limit=50`),
 * as Fastify's own validator would; anything not a plain decimal stays text and fails the check by name.
 */
export function typeboxValidatorCompiler({ schema, httpPart }: { schema: unknown; httpPart?: string }) {
  // Compiled on the route's first request (most routes of a server built in a test, or a node sent one channel,
  // are never called): building the server then costs no TypeBox compilation. compile() caches per schema object.
  let check: ReturnType<typeof compile> | undefined;
  const numeric = httpPart === 'querystring' ? numericFields(schema as TSchema) : [];
  return (data: unknown) => {
    check ??= compile(schema as TSchema);
    const value = numeric.length > 0 ? withNumbers(data, numeric) : data;
    return check.Check(value) ? { value } : { error: GatewayError.invalid(collectErrors(check, value)) };
  };
}

const DECIMAL = /^-?\d{1,15}(\.\d{1,15})?$/;

function numericFields(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).filter(([, p]) => p.type === 'integer' || p.type === 'number').map(([key]) => key);
}

function withNumbers(data: unknown, fields: readonly string[]): unknown {
  if (data === null || typeof data !== 'object') return data;
  const out: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const key of fields) {
    const v = out[key];
    if (typeof v === 'string' && DECIMAL.test(v)) out[key] = Number(v);
  }
  return out;
}
