/**
 * What every streamed CSV export shares (issue 30, reports; the portal's and the admin API's): the creation window
 * read from the query (ISO 8601 instants, from inclusive, to exclusive; a bad one a D3 field error), and the CSV
 * written page by page after its header, one keyset page in memory at a time (every cell quoted and formulas
 * neutralised: domain/csv.ts).
 */
import { GatewayError, MESSAGES, type FieldError } from '../domain/errors.ts';
import { csvRow } from '../domain/csv.ts';
import { parseInstant } from './admin/payment-search.ts';
import type { Cursor, ExportWindow } from '../store/portal-exports-repo.ts';

export interface WindowQuery { created_from?: string; created_to?: string }

/** The window over `merchantIds` the query names; a date that is not one, or an empty window, is a 400. */
export function exportWindow(merchantIds: readonly string[], q: WindowQuery): ExportWindow {
  const errors: FieldError[] = [];
  const at = (key: 'created_from' | 'created_to') => {
    const text = q[key];
    if (text === undefined) return undefined;
    const parsed = parseInstant(text);
    if (!parsed) errors.push({ field: key, message: MESSAGES.notDatetime });
    return parsed;
  };
  const createdFrom = at('created_from');
  const createdTo = at('created_to');
  if (createdFrom && createdTo && createdFrom >= createdTo) errors.push({ field: 'created_to', message: MESSAGES.notValid });
  if (errors.length > 0) throw GatewayError.invalid(errors);
  return { merchantIds, ...(createdFrom ? { createdFrom } : {}), ...(createdTo ? { createdTo } : {}) };
}

/** The header, then each keyset page's lines as one string; the next page is read after the last line's key. */
export async function* csvOf<T extends { created_at: string; id: string }>(header: readonly string[], read: (limit: number, after?: Cursor) => Promise<T[]>, row: (line: T) => string, pageSize: number): AsyncGenerator<string> {
  yield csvRow(header);
  let after: Cursor | undefined;
  for (;;) {
    const lines = await read(pageSize, after);
    if (lines.length > 0) yield lines.map(row).join('');
    if (lines.length < pageSize) return;
    const last = lines[lines.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
  }
}
