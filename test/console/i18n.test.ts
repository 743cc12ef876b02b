/**
 * Issue 31 item 11: the console's catalogs. Every key in all seven languages, none empty, each translation with the
 * same {placeholders} as the English text, the screens' texts translated (not English copied), and every key the
 * console's source asks t() for exists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGS, LANGUAGES, fill } from '../../console/src/i18n.ts';
import { SCREENS_EN } from '../../console/src/i18n-screens.ts';
import { AREAS_EN } from '../../console/src/i18n-areas.ts';
import { SHARED_WORDS } from '../../console/src/locale.ts';

const EN = CATALOGS.en;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('every key is in all seven catalogs, none empty, with the English text\'s placeholders', () => {
  assert.deepEqual([...LANGUAGES], ['en', 'es', 'pt-BR', 'fr', 'de', 'ar', 'tr']);
  const keys = Object.keys(EN).sort();
  assert.ok(keys.length > 150, `${keys.length} keys`);
  for (const language of LANGUAGES) {
    const catalog = CATALOGS[language] as Record<string, string>;
    assert.deepEqual(Object.keys(catalog).sort(), keys, `${language}: the same keys as English`);
    for (const key of keys) {
      const text = catalog[key]!;
      assert.equal(typeof text, 'string', `${language} ${key}`);
      assert.ok(text.trim().length > 0, `${language} ${key}: empty`);
      assert.deepEqual(placeholders(text), placeholders(EN[key as keyof typeof EN]), `${language} ${key}: placeholders of "${text}"`);
    }
  }
});

test('the screens\' texts are translated, not English copied (names such as MID or URL aside)', () => {
  const screenKeys = [...Object.keys(SCREENS_EN), ...Object.keys(AREAS_EN)];
  for (const language of LANGUAGES.filter((l) => l !== 'en')) {
    const catalog = CATALOGS[language] as Record<string, string>;
    const same = screenKeys.filter((k) => catalog[k] === EN[k as keyof typeof EN]);
    // Names (MID, URL, BIN, IBAN, CSV...) read the same in every language: at most 3 % of the screens' texts.
    assert.ok(same.length <= Math.max(8, Math.ceil(screenKeys.length * 0.03)), `${language}: ${same.length} screen texts equal to English: ${same.join(', ')}`);
  }
});

test('every key the console\'s source asks t() for is in the catalog', () => {
  const root = path.resolve(import.meta.dirname, '../../console/src');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
  const asked = new Set<string>();
  for (const file of files) for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/\bt\('([a-zA-Z0-9_.]+)'\)/g)) asked.add(m[1]!);
  assert.ok(asked.size > 100, `${asked.size} keys asked`);
  for (const key of asked) assert.ok(key in EN, `t('${key}') has no text`);
});

test('the shared pieces\' words (loading, cancel, the charts) are in the catalogs, in English as they say them', () => {
  for (const [key, text] of Object.entries(SHARED_WORDS)) assert.equal((EN as Record<string, string>)[key], text, key);
});

test('fill puts values into placeholders and leaves unknown ones', () => {
  assert.equal(fill(CATALOGS.de['home.lastDays'], { n: 7 }), 'Letzte 7 Tage');
  assert.equal(fill('{a} and {b}', { a: 1 }), '1 and {b}');
});
