/**
 * CSV cells for exports a person opens in a spreadsheet (issue 30, the portal's payments export): always quoted,
 * and a value a spreadsheet would read as a formula neutralised with a leading apostrophe (a payer's name or an
 * order id can start with `=`, `+`, `-` or `@`; some spreadsheets skip a leading tab or carriage return first).
 * The console's own export follows the same rule (console/src/csv.ts).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return `"${(FORMULA_START.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
}

export const csvRow = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;
