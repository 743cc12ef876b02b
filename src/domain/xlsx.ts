/**
 * XLSX of an export (issue 30, reports), pure: the SpreadsheetML parts of a one-sheet workbook (ECMA-376), the
 * sheet written row by row with inline strings (no shared-string table to hold in memory, so a sheet of any length
 * streams), and a reader of CSV text fed in chunks of any size (RFC 4180: quoted cells, doubled quotes, line breaks
 * inside quotes) that turns each export's CSV into its rows. A cell is text unless its column is an amount or a
 * count the export wrote as a plain number, which is written as a number; text is never a formula in XLSX, so the
 * CSV's formula neutralisation (a leading apostrophe) is taken off again, and characters XML 1.0 cannot carry are
 * dropped. The zip around the parts is the service's (services/xlsx.ts).
 */

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The columns of the exports written as numbers (amounts, counts). */
export const NUMERIC_COLUMNS: ReadonlySet<string> = new Set(['amount', 'captured_amount', 'refunded_amount', 'transaction_amount', 'fee', 'attempts']);

const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
// XML 1.0's characters: tab, line feed, carriage return, and U+0020 on (lone surrogates and U+FFFE/F excluded).
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const escapeXml = (s: string) => s.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The column letters of a 0-based index: 0 A, 25 Z, 26 AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** The CSV's formula neutralisation undone: `'=1+2` was `=1+2` (an XLSX text cell never runs). */
const unneutralised = (s: string) => (/^'[=+\-@\t\r]/.test(s) ? s.slice(1) : s);

/** One row's XML: row `r` (1-based); numeric columns as numbers when the cell is a plain number. */
export function rowXml(r: number, cells: readonly string[], numeric: readonly boolean[] = []): string {
  const out = cells.map((cell, i) => {
    const ref = `${columnName(i)}${r}`;
    if (numeric[i] && PLAIN_NUMBER.test(cell)) return `<c r="${ref}"><v>${cell}</v></c>`;
    if (cell === '') return '';
    return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(unneutralised(cell))}</t></is></c>`;
  });
  return `<row r="${r}">${out.join('')}</row>`;
}

export const SHEET_START = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>';
export const SHEET_END = '</sheetData></worksheet>';

/** The workbook's other parts, by path in the zip: one sheet named `sheetName`. */
export function workbookParts(sheetName: string): Record<string, string> {
  const head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  return {
    '[Content_Types].xml': `${head}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
      + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      + '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    '_rels/.rels': `${head}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
      + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml': `${head}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`
      + `<sheets><sheet name="${escapeXml(sheetName.slice(0, 31))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `${head}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
      + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  };
}

/**
 * Reads CSV fed in chunks: push() answers the rows completed by the chunk (a row's end is a line break outside
 * quotes; `\r\n` and `\n` alike), end() the last row if the text did not end with a line break.
 */
export class CsvRows {
  private cells: string[] = [];
  private cell = '';
  private quoted = false;
  /** The last character was the closing quote of a quoted cell, or a quote inside one that may be doubled. */
  private quoteSeen = false;
  private started = false;

  push(text: string): string[][] {
    const rows: string[][] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (this.quoted) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (c === '"') { this.cell += '"'; continue; }
          this.quoted = false; // the quote closed the cell: read c as outside quotes
        } else if (c === '"') { this.quoteSeen = true; continue; } else { this.cell += c; continue; }
      }
      if (c === '"') { this.quoted = true; this.started = true; } else if (c === ',') { this.cells.push(this.cell); this.cell = ''; this.started = true; } else if (c === '\n') {
        this.cells.push(this.cell);
        rows.push(this.cells);
        this.cells = [];
        this.cell = '';
        this.started = false;
      } else if (c !== '\r') { this.cell += c; this.started = true; }
    }
    return rows;
  }

  end(): string[][] {
    if (this.quoteSeen) { this.quoteSeen = false; this.quoted = false; }
    if (!this.started && this.cells.length === 0 && this.cell === '') return [];
    this.cells.push(this.cell);
    const row = this.cells;
    this.cells = [];
    this.cell = '';
    this.started = false;
    return [row];
  }
}
