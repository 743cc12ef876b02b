/**
 * A list's `limit` from its query text (query strings are strings): every admin and portal list answers one outside
 * its range with the D3 400 on `limit`, never a silently different page.
 */
import { GatewayError, MESSAGES } from './errors.ts';

/** The page size asked for, or undefined when none was (the list's default applies); 1 to max, else a 400 on `limit`. */
export function pageSize(limit: string | undefined, max: number): number | undefined {
  if (limit === undefined) return undefined;
  const n = Number(limit);
  if (!Number.isInteger(n) || n < 1 || n > max) throw GatewayError.field('limit', MESSAGES.notInRange(1, max));
  return n;
}

/** The schema's description of such a `limit`. */
export const pageSizeText = (max: number, fallback: number): string => `Page size, 1 to ${max} (default ${fallback}); outside that range: 400 on limit`;
