/**
 * An export as XLSX (issue 30, reports): the export's CSV text, read row by row as it streams (domain/xlsx.ts
 * CsvRows), written as one sheet of inline strings and numbers, zipped as it goes by yazl (a small, maintained zip
 * writer: each entry deflated while it streams, the sizes in a data descriptor after it). Nothing holds more than
 * the chunk being read: a sheet of a million rows streams in the memory of one page, as the CSV does.
 */
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import yazl from 'yazl';
import { CsvRows, NUMERIC_COLUMNS, SHEET_END, SHEET_START, rowXml, workbookParts } from '../domain/xlsx.ts';

export { XLSX_CONTENT_TYPE } from '../domain/xlsx.ts';

/** The sheet's XML from CSV text chunks: the header row as text, then each row with the export's numbers as numbers. */
export async function* sheetXml(csv: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  yield SHEET_START;
  const reader = new CsvRows();
  const decoder = new StringDecoder('utf8');
  let r = 0;
  let numeric: boolean[] = [];
  const rows = (list: string[][]) => list.map((cells) => {
    r++;
    if (r === 1) {
      numeric = cells.map((h) => NUMERIC_COLUMNS.has(h));
      return rowXml(r, cells);
    }
    return rowXml(r, cells, numeric);
  }).join('');
  for await (const part of csv) {
    const text = rows(reader.push(typeof part === 'string' ? part : decoder.write(Buffer.from(part))));
    if (text) yield text;
  }
  const last = rows([...reader.push(decoder.end()), ...reader.end()]);
  if (last) yield last;
  yield SHEET_END;
}

/** The export's CSV as a one-sheet workbook named `sheetName`, streamed. */
export function csvToXlsx(csv: AsyncIterable<string | Uint8Array>, sheetName: string): Readable {
  const zip = new yazl.ZipFile();
  const mtime = new Date(Date.UTC(2000, 0, 1));
  for (const [name, text] of Object.entries(workbookParts(sheetName))) zip.addBuffer(Buffer.from(text, 'utf8'), name, { mtime });
  const sheet = Readable.from(sheetXml(csv));
  zip.addReadStream(sheet, 'xl/worksheets/sheet1.xml', { mtime });
  zip.end();
  const out = zip.outputStream as unknown as Readable;
  // A failed read (the database gone mid-export) ends the download with an error, not a truncated file that looks whole.
  sheet.on('error', (err) => out.destroy(err));
  return out;
}
