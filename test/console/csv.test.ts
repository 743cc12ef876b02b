/**
 * Issue 25, item 17: the console's CSV export neutralises every cell a spreadsheet would run as a formula,
 * a leading tab or carriage return included (the browser test in console.browser.test.ts downloads the export).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { csvCell } from '../../console/src/csv.ts';

/** What a spreadsheet reads back from a quoted cell: the text between the quotes, doubled quotes undone. */
const unquote = (cell: string) => cell.slice(1, -1).replace(/""/g, '"');

describe('CSV export cells', () => {
  it('prefixes an apostrophe to a value starting with = + - @ tab or carriage return', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      assert.equal(unquote(csvCell(`${start}HYPERLINK("http://x")`)), `'${start}HYPERLINK("http://x")`, JSON.stringify(start));
    }
  });

  it('keeps every other value as it is, quoted, and no cell opens a formula', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.constantFrom(null, undefined), fc.integer()), (v) => {
      const cell = csvCell(v);
      const text = unquote(cell);
      assert.ok(cell.startsWith('"') && cell.endsWith('"'));
      assert.ok(!/^[=+\-@\t\r]/.test(text), JSON.stringify(v));
      const original = v === null || v === undefined ? '' : String(v);
      assert.equal(text, /^[=+\-@\t\r]/.test(original) ? `'${original}` : original);
    }));
  });
});
