/**
 * The SSRF rule for URLs merchants give (a payment's `callback_url`, a merchant's notification URL set through
 * the admin API): an internal target is refused at request time with a D3 error on the field.
 */
import type { ServiceContext } from './context.ts';
import { GatewayError } from '../domain/errors.ts';
import { callbackUrlProblem } from '../domain/callback-targets.ts';

/** Throws the D3 error naming `field` when `url` is not an acceptable callback target. */
export function checkCallbackUrl(ctx: Pick<ServiceContext, 'callbackTargets'>, field: string, url: unknown): void {
  if (typeof url !== 'string' || url === '') return;
  const problem = callbackUrlProblem(url, ctx.callbackTargets);
  if (problem) throw GatewayError.field(field, problem);
}
