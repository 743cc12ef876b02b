/**
 * CSV cells for exports a person opens in a spreadsheet (issue 30, the portal's payments export): always quoted,
 * and a value a spreadsheet would read as a formula neutralised with a leading apostrophe (a payer's name or an
 * order id can start with `=`, `+`, `-` or `@`; some spreadsheets skip a leading tab or carriage return first).
 * The console's own export follows the same rule (console/src/csv.ts).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A signed decimal the export formatted itself (a fee given back is negative): a spreadsheet reads it as a number,
 * never a formula, so it is written without the apostrophe; anything else in it is neutralised as any cell.
 */
export class CsvNumber {
  constructor(readonly text: string) {}
  toString(): string { return this.text; }
}
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

export function csvCell(v: unknown): string {
  if (v instanceof CsvNumber && PLAIN_NUMBER.test(v.text)) return `"${v.text}"`;
  const s = v === null || v === undefined ? '' : String(v);
  return `"${(FORMULA_START.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
}

export const csvRow = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * One CSV line (RFC 4180 quoting: "a ""quoted"" field", separators inside quotes) into its fields; undefined when
 * a quote is left open (a field spanning lines is not a settlement report's, a dispute file's or a risk list's).
 */
export function splitCsvLine(line: string, separator = ','): string[] | undefined {
  if (!line.includes('"')) return line.split(separator);
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"') {
        if (line[i + 1] === '"') { field += '"'; i++; } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) { out.push(field); field = ''; }
    else field += c;
  }
  if (quoted) return undefined;
  out.push(field);
  return out;
}
