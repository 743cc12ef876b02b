/** Route schemas validate with TypeBox (domain/schema-errors.ts) and fail with the D3 answer. */
import type { TSchema } from '@sinclair/typebox';
import { GatewayError } from '../domain/errors.ts';
import { collectErrors, compile } from '../domain/schema-errors.ts';

/** Fastify validator compiler: route schemas validate with TypeBox and fail with GatewayError. */
export function typeboxValidatorCompiler({ schema }: { schema: unknown }) {
  const check = compile(schema as TSchema);
  return (data: unknown) => (check.Check(data) ? { value: data } : { error: GatewayError.invalid(collectErrors(check, data)) });
}
