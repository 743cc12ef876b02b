/**
 * Cursor paging of admin lists ordered newest first: the cursor is the last row's sort key, opaque to clients
 * (base64url JSON of strings). A cursor that does not decode answers a D3 400 on `cursor`.
 */
import { GatewayError, MESSAGES } from '../../domain/errors.ts';

export function encodeCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key of `arity` strings in a cursor, or a D3 400; undefined when there is no cursor. */
export function decodeCursor(cursor: string | undefined, arity: number): string[] | undefined {
  if (cursor === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' && k.length <= 64)) return key as string[];
  throw GatewayError.field('cursor', MESSAGES.notValid);
}

/** The next page's cursor: set when the page is full (there may be more). */
export function nextCursor<T>(rows: readonly T[], limit: number, key: (row: T) => string[]): string | null {
  const last = rows[rows.length - 1];
  return rows.length === limit && last !== undefined ? encodeCursor(key(last)) : null;
}

/** `limit` of a list: 1 to 200, default 50 (query strings are strings; the schema's pattern checked the digits). */
export function pageSize(limit: string | undefined): number {
  const n = limit === undefined ? 50 : Number(limit);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw GatewayError.field('limit', MESSAGES.notInRange(1, 200));
  return n;
}
