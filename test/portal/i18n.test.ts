/**
 * The portal's message catalogs (issue 30 item 5), checked as the payer pages' are (test/web/i18n.test.ts): one file
 * per payer-page language and nothing else; every catalog has exactly the English keys with the same placeholders
 * and no empty text; no key is missing (every key the portal's code names is in English) and none is unused (every
 * English key is named by the portal's code, or is a word of the shared pieces the portal hands its catalog to).
 * The shared pieces' English words are the portal's English, so the console and the portal say the same.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LOCALES, placeholdersOf } from '../../src/web/i18n.ts';
import { MERCHANT_PERMISSIONS, MERCHANT_ROLES } from '../../src/domain/merchant-roles.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const LOCALE_DIR = path.join(ROOT, 'portal/src/locales');
const catalogOf = (language: string) => JSON.parse(readFileSync(path.join(LOCALE_DIR, `${language}.json`), 'utf8')) as Record<string, string>;
const ENGLISH = catalogOf('en');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourcesUnder(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/** Every quoted 'namespace.key' in the portal's code (t('…'), key tables such as the navigation's and the roles'). */
function keysNamedByThePortal(): Set<string> {
  const named = new Set<string>();
  for (const file of sourcesUnder(path.join(ROOT, 'portal/src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/'([a-zA-Z]+\.[a-zA-Z0-9]+)'/g)) named.add(m[1]!);
  }
  return named;
}

/** The shared pieces' words (console/src/locale.ts SHARED_WORDS) with their English text. */
function sharedWords(): Map<string, string> {
  const source = readFileSync(path.join(ROOT, 'console/src/locale.ts'), 'utf8');
  const block = /SHARED_WORDS = \{([\s\S]*?)\} as const/.exec(source)?.[1] ?? '';
  return new Map([...block.matchAll(/'([a-zA-Z]+\.[a-zA-Z]+)': '((?:[^'\\]|\\.)*)'/g)].map((m) => [m[1]!, m[2]!.replace(/\\'/g, '\'')]));
}

describe('portal message catalogs', () => {
  it('one JSON file per payer-page language, and nothing else', () => {
    const files = readdirSync(LOCALE_DIR).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    assert.deepEqual(files, [...LOCALES].sort());
    const portalLanguages = /export const LANGUAGES = \[([^\]]*)\]/.exec(readFileSync(path.join(ROOT, 'portal/src/i18n.ts'), 'utf8'))?.[1]?.match(/'[^']+'/g)?.map((q) => q.slice(1, -1));
    assert.deepEqual(portalLanguages, [...LOCALES], 'the picker offers the payer pages\' languages in their order');
  });

  for (const language of LOCALES) {
    it(`${language}: every English key, no other key, the same placeholders, no empty text`, () => {
      const catalog = catalogOf(language);
      assert.deepEqual(Object.keys(catalog).sort(), Object.keys(ENGLISH).sort());
      for (const [key, text] of Object.entries(ENGLISH)) {
        assert.equal(typeof catalog[key], 'string', `${language} ${key}`);
        assert.notEqual(catalog[key]!.trim(), '', `${language} ${key} is empty`);
        assert.deepEqual(placeholdersOf(catalog[key]!), placeholdersOf(text), `${language} ${key}: placeholders`);
      }
    });
  }

  it('translates: no catalog but English repeats most of the English text', () => {
    for (const language of LOCALES.filter((l) => l !== 'en')) {
      const catalog = catalogOf(language);
      const same = Object.keys(ENGLISH).filter((k) => catalog[k] === ENGLISH[k] && /[a-z]{4,}/.test(ENGLISH[k]!));
      // Product and technical names stay as they are (API, 3-D Secure, Sandbox, Portal…): a handful, never a screen.
      assert.ok(same.length <= 12, `${language} leaves ${same.length} texts in English: ${same.join(', ')}`);
    }
  });

  it('no key missing, none unused: the code names exactly the English keys (with the shared pieces\' words)', () => {
    const named = keysNamedByThePortal();
    const shared = sharedWords();
    assert.ok(shared.size >= 10, 'the shared words are read from console/src/locale.ts');
    const english = new Set(Object.keys(ENGLISH));
    // A quoted namespace.key in the portal's code that looks like a catalog key must be one (a typo is a missing text);
    // the permissions (payments.read) are the API's names, not texts.
    const permissions = new Set<string>(MERCHANT_PERMISSIONS);
    const namespaces = new Set([...english].map((k) => k.split('.')[0]));
    const missing = [...named].filter((k) => namespaces.has(k.split('.')[0]) && !english.has(k) && !permissions.has(k));
    assert.deepEqual(missing, [], 'keys the portal names that no catalog has');
    const unused = [...english].filter((k) => !named.has(k) && !shared.has(k));
    assert.deepEqual(unused, [], 'catalog keys nothing uses');
    for (const [key, text] of shared) assert.equal(ENGLISH[key], text, `${key}: the portal's English is the shared pieces' English`);
    for (const role of MERCHANT_ROLES) assert.ok(english.has(`role.${role}`), `the role ${role} has a name`);
  });
});
