/**
 * Test and live keys in the store's reads (issue 25, item 26): a key's mode is its merchant's (a test key is a
 * sandbox merchant's), a MID's is its merchant's. The conditions are literal SQL: the mode is a closed choice,
 * never the caller's text; merchants are few, so the sub-select is a short list however large the table read.
 */
import type { Sql } from './database.ts';

export type KeyMode = 'test' | 'live';

const SANDBOX: Readonly<Record<KeyMode, string>> = { test: 'm.sandbox', live: 'NOT m.sandbox' };

/** SQL: the merchant id in `column` is one of `mode`'s merchants; `true` without a mode. */
export function merchantOfMode(column: string, mode: KeyMode | undefined): string {
  return mode === undefined ? 'true' : `${column} IN (SELECT m.id FROM merchants m WHERE ${SANDBOX[mode]})`;
}

/** SQL: the MID id in `column` is a MID of one of `mode`'s merchants; `true` without a mode. */
export function midOfMode(column: string, mode: KeyMode | undefined): string {
  return mode === undefined ? 'true' : `${column} IN (SELECT x.id FROM mids x JOIN merchants m ON m.id = x.merchant_id WHERE ${SANDBOX[mode]})`;
}

/** A merchant's mode (and its MIDs' and keys'): test for a sandbox merchant, else live. */
export const modeOfSandbox = (sandbox: boolean): KeyMode => (sandbox ? 'test' : 'live');

/** Every merchant's mode, by id (for figures labelled by mode). */
export async function merchantModes(sql: Sql): Promise<Map<string, KeyMode>> {
  const rows = await sql.query<{ id: string; sandbox: boolean }>('SELECT id, sandbox FROM merchants');
  return new Map(rows.map((r) => [r.id, modeOfSandbox(r.sandbox)]));
}
