/**
 * Reads a zip file's entries (an XLSX in the tests) by its central directory, as a spreadsheet program does:
 * stored or deflated entries only, no zip64. Written here from the format (APPNOTE 4.3), not with the library the
 * gateway writes zips with.
 */
import { inflateRawSync } from 'node:zlib';

export function unzip(zip: Buffer): Map<string, Buffer> {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('no end of central directory: not a zip');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header of ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    entries.set(name, method === 8 ? inflateRawSync(data) : method === 0 ? Buffer.from(data) : (() => { throw new Error(`method ${method}`); })());
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The cells of an XLSX's first sheet, row by row: inline strings as text, numbers as numbers (what the tests read). */
export function sheetRows(xlsx: Buffer): (string | number)[][] {
  const xml = unzip(xlsx).get('xl/worksheets/sheet1.xml')?.toString('utf8');
  if (xml === undefined) throw new Error('no xl/worksheets/sheet1.xml');
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const col = (ref: string) => [...ref.replace(/\d+$/, '')].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) - 1;
  return [...xml.matchAll(/<row r="(\d+)">(.*?)<\/row>/gs)].map((row) => {
    const cells: (string | number)[] = [];
    for (const c of row[2]!.matchAll(/<c r="([A-Z]+\d+)"( t="inlineStr")?>(.*?)<\/c>/gs)) {
      const i = col(c[1]!);
      while (cells.length < i) cells.push('');
      cells[i] = c[2] ? unescape(/<t[^>]*>(.*?)<\/t>/s.exec(c[3]!)?.[1] ?? '') : Number(/<v>(.*?)<\/v>/.exec(c[3]!)?.[1]);
    }
    return cells;
  });
}
