/**
 * The API's error texts in the console's and the portal's languages (console/src/api-words.ts), held against the
 * gateway's own tables: every validation text (domain/errors.ts MESSAGES, with the values that vary) and every
 * answer a console or portal user can meet has its words in the six other languages, with the varying values kept;
 * English stays as the API wrote it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ERRORS, MESSAGES, type ErrorName } from '../../src/domain/errors.ts';
import { apiMessage, apiText, CATALOGUED, type OtherLanguage } from '../../console/src/api-words.ts';
import { inWords } from '../../console/src/errors.ts';

const OTHERS: readonly OtherLanguage[] = ['es', 'pt-BR', 'fr', 'de', 'ar', 'tr'];

/** The errors the console's and the portal's screens can answer (the merchant channels' own are for merchant code). */
const SCREEN_ERRORS: readonly ErrorName[] = [
  'invalidRequest', 'notFound', 'tooManyRequests', 'internal', 'unavailable', 'paymentNotFound', 'voidNotAllowed', 'actionNotSupported',
  'captureNotPending', 'captureTooLarge', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'operationInProgress', 'nothingToResolve',
  'disputeEventNotAllowed', 'configurationChanged', 'riskRulesChanged', 'reconRowResolved', 'riskFeedChanged', 'reviewNotPending',
  'reviewNotResumable', 'adminUnauthorized', 'adminForbidden', 'consoleSignInFailed', 'signInCrossSite', 'portalUnauthorized',
  'portalForbidden', 'portalSettingLocked', 'invitationInvalid', 'mailNotConfigured', 'mailNotSent', 'twoFactorRequired',
  'twoFactorEnrolmentRequired', 'twoFactorCodeInvalid', 'twoFactorNotPending', 'twoFactorMandatory', 'csrfTokenInvalid',
];

/** Every validation text, those with a varying part filled twice (a plural and a singular where the text has both). */
const validationTexts = (): string[] => Object.values(MESSAGES).flatMap((m) =>
  typeof m === 'function' ? [(m as (a: number, b: number) => string)(37, 420), (m as (a: number, b: number) => string)(1, 420)] : [m]);

describe('the API\'s error texts in the screens\' languages', () => {
  it('every validation text the gateway answers has words in every language, its varying values kept', () => {
    for (const text of validationTexts()) {
      for (const language of OTHERS) {
        const shown = apiText(text, language);
        assert.notEqual(shown, text, `${language}: "${text}" has no words`);
        for (const value of text.match(/\d+/g) ?? []) assert.ok(shown.includes(value), `${language}: "${shown}" keeps ${value}`);
      }
    }
  });

  it('every answer a console or portal screen can meet has words in every language, the header or field before it too', () => {
    for (const name of SCREEN_ERRORS) {
      const message = ERRORS[name].message;
      for (const language of OTHERS) {
        const shown = apiMessage(message, language);
        const text = message.includes(': ') ? message.slice(message.indexOf(': ') + 2) : message;
        assert.ok(!shown.includes(text), `${language}: "${message}" (${name}) has no words: "${shown}"`);
        if (message.includes(': ')) assert.ok(!shown.startsWith(message.slice(0, message.indexOf(':'))), `${language}: the name before "${text}" in words: "${shown}"`);
      }
    }
  });

  it('keeps each entry\'s varying parts in every language', () => {
    const names = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const english of CATALOGUED) {
      const sample = english.replace(/\{(\w+)\}/g, (_w, name: string) => `<${name}>`);
      for (const language of OTHERS) {
        const shown = apiText(sample, language);
        for (const name of names(english)) assert.ok(shown.includes(`<${name}>`), `${language}: "${english}" keeps {${name}}: "${shown}"`);
      }
    }
  });

  it('a field path before a text reads as the form names it; the text in the language', () => {
    assert.equal(apiMessage('name: This value should not be blank.', 'es'), 'Nombre: Este valor no debería estar vacío.');
    assert.equal(apiMessage('rules[2].then.shares[1].weight: This value should be between 1 and 100.', 'de'), 'Rule 3, Share 2, Weight: Dieser Wert sollte zwischen 1 und 100 liegen.');
    assert.equal(apiMessage('Authorization: E-mail or password is not valid.', 'fr'), 'Autorisation: L\'e-mail ou le mot de passe n\'est pas valide.');
    assert.equal(apiMessage('password: This value is too short. It should have 12 characters or more.', 'tr'), 'Parola: Bu değer çok kısa. En az 12 karakter olmalıdır.');
  });

  it('English, and a text the catalog does not hold, stay as the API wrote them', () => {
    for (const message of [...validationTexts(), ...SCREEN_ERRORS.map((n) => ERRORS[n].message), 'rules[0].when.card_countries[0]: This value should not be blank.']) {
      assert.equal(apiMessage(message, 'en'), inWords(message));
    }
    assert.equal(apiMessage('A text no catalog holds.', 'es'), 'A text no catalog holds.');
    assert.equal(apiMessage("rules[0].when.card_countries[0]: 'XX' is not a country code.", 'pt-BR'), "Rule 1, Card countries: 'XX' is not a country code.");
    assert.equal(apiText('This value should not be blank.', 'xx'), 'This value should not be blank.');
  });
});
