/**
 * One CSV cell of an export: always quoted, and a value a spreadsheet would read as a formula is neutralised
 * with a leading apostrophe. Spreadsheets start a formula at `=`, `+`, `-` or `@`, and some skip a leading tab
 * or carriage return before deciding, so those count too.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return `"${(FORMULA_START.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
}
