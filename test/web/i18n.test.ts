/**
 * The payer pages' message catalogs and locale choice: every catalog has every key of the English one with the
 * same placeholders (so a translator's file cannot break a page), the negotiation of Accept-Language, and the
 * decline reason -> payer message table.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { CATALOGS, LOCALES, acceptedLanguages, negotiateLocale, placeholdersOf, supportedLocale, translator } from '../../src/web/i18n.ts';
import { DECLINES, declineAdvice, declineMessageKey, type UnifiedCode } from '../../src/domain/declines.ts';
import { FORM_MESSAGE_KEYS } from '../../src/web/checkout-form.ts';
import { CHECKOUT_CLIENT_KEYS } from '../../src/web/pages.ts';
import { APM_CLIENT_KEYS } from '../../src/web/apm-pages.ts';

const LOCALE_DIR = new URL('../../src/web/locales/', import.meta.url);

describe('message catalogs', () => {
  it('one JSON file per supported locale, and nothing else', () => {
    const files = readdirSync(LOCALE_DIR).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, '')).sort();
    assert.deepEqual(files, [...LOCALES].sort());
    for (const l of LOCALES) assert.ok(['en', 'es', 'pt-BR', 'fr', 'de', 'ar', 'tr'].includes(l));
  });

  for (const locale of LOCALES) {
    it(`${locale}: every English key, no other key, the same placeholders, no empty text`, () => {
      const catalog = JSON.parse(readFileSync(new URL(`${locale}.json`, LOCALE_DIR), 'utf8')) as Record<string, string>;
      const english = CATALOGS.en;
      assert.deepEqual(Object.keys(catalog).sort(), Object.keys(english).sort());
      for (const [key, text] of Object.entries(english)) {
        assert.equal(typeof catalog[key], 'string', `${locale} ${key}`);
        assert.notEqual(catalog[key]!.trim(), '', `${locale} ${key} is empty`);
        assert.deepEqual(placeholdersOf(catalog[key]!), placeholdersOf(text), `${locale} ${key}: placeholders`);
      }
    });
  }

  it('every key the pages and scripts use is in the English catalog', () => {
    for (const key of [...Object.values(FORM_MESSAGE_KEYS), ...CHECKOUT_CLIENT_KEYS, ...APM_CLIENT_KEYS]) assert.ok(Object.hasOwn(CATALOGS.en, key), key);
    for (const advice of ['insufficientFunds', 'cardExpired', 'checkDetails', 'tryAnotherCard', 'tryAnotherMethod', 'contactBank', 'authenticationFailed', 'cancelled', 'tryAgain', 'tooManyCodes', 'limitExceeded', 'qrExpired', 'generic']) {
      assert.ok(Object.hasOwn(CATALOGS.en, `decline.${advice}`), advice);
    }
  });
});

describe('locale negotiation', () => {
  it('reads Accept-Language by quality, then order; maps regional variants to the catalog of their language', () => {
    assert.deepEqual(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5'), ['fr-CH', 'fr', 'en', 'de']);
    assert.deepEqual(acceptedLanguages('en;q=0.1, ar'), ['ar', 'en']);
    assert.deepEqual(acceptedLanguages('de;q=0, es'), ['es']);
    assert.equal(supportedLocale('pt'), 'pt-BR');
    assert.equal(supportedLocale('pt_PT'), 'pt-BR');
    assert.equal(supportedLocale('es-MX'), 'es');
    assert.equal(supportedLocale('AR'), 'ar');
    assert.equal(supportedLocale('zh-CN'), undefined);
    assert.equal(supportedLocale('<script>'), undefined);
  });

  it('the payer choice, then the session locale, then the browser, then English', () => {
    assert.equal(negotiateLocale({ choice: 'tr', sessionLocale: 'de', acceptLanguage: 'fr' }), 'tr');
    assert.equal(negotiateLocale({ choice: 'xx', sessionLocale: 'de', acceptLanguage: 'fr' }), 'de');
    assert.equal(negotiateLocale({ acceptLanguage: 'zh, ar;q=0.5' }), 'ar');
    assert.equal(negotiateLocale({ acceptLanguage: 'zh' }), 'en');
    assert.equal(negotiateLocale({}), 'en');
  });
});

describe('Intl formatting', () => {
  it('amounts in the currency format of the locale, exactly (bigint minor units, no float)', () => {
    assert.equal(translator('en').money(123450n, 'EUR'), '€1,234.50');
    assert.equal(translator('de').money(123450n, 'EUR'), '1.234,50\u00a0€');
    assert.equal(translator('en').money(1000n, 'JPY'), '¥1,000');
    assert.equal(translator('en').money(900719925474099312n, 'USD'), '$9,007,199,254,740,993.12', 'beyond 2^53: still exact');
    assert.match(translator('en').money(1_500_000n, 'USDT'), /^1\.500000 USDT$/);
    assert.equal(translator('ar').dir, 'rtl');
    assert.equal(translator('tr').dir, 'ltr');
  });

  it('country names in the locale, sorted in it', () => {
    assert.equal(translator('de').country('DE'), 'Deutschland');
    assert.equal(translator('es').country('US'), 'Estados Unidos');
    const names = translator('fr').countries().map((c) => c.name);
    assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, 'fr')));
  });
});

describe('decline reasons in the payer words', () => {
  it('maps the sandbox reasons and common acquirer texts to advice; unknown reasons get the generic message', () => {
    assert.equal(declineAdvice('Declined by processing'), 'tryAnotherCard');
    assert.equal(declineAdvice('3-D Secure authentication failed'), 'authenticationFailed');
    assert.equal(declineAdvice('Insufficient funds'), 'insufficientFunds');
    assert.equal(declineAdvice('EXPIRED CARD'), 'cardExpired');
    assert.equal(declineAdvice('Do not honor'), 'contactBank');
    assert.equal(declineAdvice('Stolen card'), 'contactBank', 'never tell the payer the card is reported stolen');
    assert.equal(declineAdvice('something new'), 'generic');
    assert.equal(declineAdvice(null), 'generic');
    assert.equal(declineMessageKey('Declined by processing', 'apm'), 'decline.tryAnotherMethod');
    assert.equal(declineMessageKey('Declined by processing'), 'decline.tryAnotherCard');
  });

  it('a real connector\'s unified code decides over its message, for every unified code', () => {
    for (const code of Object.keys(DECLINES) as UnifiedCode[]) {
      assert.equal(declineAdvice(null, code), DECLINES[code].payerAdvice, `the payer advice of the unified code ${code}`);
      assert.ok(Object.hasOwn(CATALOGS.en, `decline.${declineAdvice(null, code)}`), code);
    }
    // The unified message "Declined by the issuer" reads alike for do-not-honour and a stolen card: the code tells.
    assert.equal(declineAdvice('Declined by the issuer', 'lost_or_stolen'), 'contactBank');
    assert.equal(declineAdvice('Invalid CVV', 'invalid_cvv'), 'checkDetails');
    assert.equal(declineMessageKey('Not supported by the acquirer', 'apm', 'not_supported'), 'decline.tryAnotherMethod');
    assert.equal(declineAdvice('Declined by processing', 'no_such_code'), 'tryAnotherCard', 'an unknown code falls back to the reason');
  });
});
