/**
 * The portal in the payer pages' seven languages (issue 30 item 5), in a real browser on one store (browserStores). A browser
 * that asks for French (its Accept-Language) gets the sign-in screen in French with nothing chosen; the owner signs
 * in and sees the home and a payment in French, amounts, numbers and dates as Intl writes them in French (computed
 * here by the same browser's Intl, not copied from the screen), the API's codes (a payment's status, a transaction's
 * type) named in French. Picking العربية turns the page right to left
 * (dir=rtl, lang=ar), the screens Arabic, amounts still with Latin digits; the choice outlives a reload (kept in
 * this browser) and beats the browser's French. axe: no serious or critical violation at 1440 and 390 px; the first
 * store photographs the screens into docs/merchants/portal-screenshots/.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { sale } from '../s2s-card/support.ts';
import { assertNoSeriousAxeViolations, ensureConsoleBuilt } from '../console/support.ts';
import { PORTAL_PASSWORD, invitedUser } from './support.ts';
import { saveScreenshot } from '../support/screenshots.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

const ADMIN_TOKEN = 'portal-languages-admin-token';
const SHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../docs/merchants/portal-screenshots');
const WIDTHS = [{ name: 'desktop', width: 1440, height: 900 }, { name: 'phone', width: 390, height: 844 }] as const;

/** What the browser's own Intl writes for an amount in a locale (the portal's options: the currency's digits, up to 8). */
const intlMoney = (page: Page, locale: string, amount: string, currency: string) =>
  page.evaluate(([l, a, c]) => new Intl.NumberFormat(l, { style: 'currency', currency: c, maximumFractionDigits: 8 }).format(a as unknown as number), [locale, amount, currency] as const);

/** A UTC day as the portal writes it in a locale (the home's range and charts). */
const intlDay = (page: Page, locale: string, day: string) =>
  page.evaluate(([l, d]) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`)), [locale, day] as const);

const spaces = (text: string) => text.replace(/\s+/g, ' ');

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  const noBrowser = browserUnavailable();
  describe(`the portal's languages in the browser (${kind})`, { skip: skip || noBrowser, timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let page: Page;
    let email = '';
    let paymentId = '';

    async function check(screen: string, width: string): Promise<void> {
      await assertNoSeriousAxeViolations(page, `${screen} at ${width}`);
      if (index === 0) await saveScreenshot(page, path.join(SHOTS, `${screen}-${width}.png`), { fullPage: true });
    }

    const documentLanguage = () => page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);

    before(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
      const paid = await sale(t, { order_id: `LANG-${kind}`, order_amount: '1234.50', order_currency: 'EUR' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      paymentId = paid.body.trans_id;
      email = (await invitedUser(t, ADMIN_TOKEN, { role: 'owner' })).email;
      browser = await launchBrowser();
      // A French-speaking browser: it sends Accept-Language: fr-FR and navigator.languages says so.
      const context = await browser.newContext({ viewport: WIDTHS[0], timezoneId: 'Europe/Paris', locale: 'fr-FR' });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('speaks the browser\'s language before anything is chosen: French sign-in, home and payment, amounts and days by Intl', async () => {
      const today = await dayAwayFromMidnight(60_000); // the home's range ends on the day its page was loaded
      await page.goto(`${t.baseUrl}/portal/`);
      await page.getByRole('heading', { name: 'Portail marchand' }).waitFor();
      assert.deepEqual(await documentLanguage(), ['fr', 'ltr']);
      assert.equal(await page.getByLabel('Langue').inputValue(), 'fr');
      await check('sign-in-fr', 'desktop');
      await page.getByLabel('Adresse e-mail').fill(email);
      // The API's refusal (D3, in English on the wire) in French on the page.
      await page.getByLabel('Mot de passe').fill(`${PORTAL_PASSWORD}-wrong`);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await page.getByRole('alert').getByText('Autorisation: L\'e-mail ou le mot de passe n\'est pas valide.', { exact: true }).waitFor();
      await page.getByLabel('Mot de passe').fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await page.getByRole('button', { name: 'Se déconnecter' }).waitFor();

      await page.getByRole('heading', { name: 'Accueil' }).waitFor();
      const figures = page.getByRole('region', { name: 'Chiffres des paiements' });
      await figures.getByText('Paiements par jour').waitFor();
      const volume = await intlMoney(page, 'fr-FR', '1234.50', 'EUR');
      assert.match(volume, /^1\s234,50\s€$/, 'French groups thousands with a space and writes the euro after');
      const tiles = spaces((await figures.locator('dl.tiles').textContent())!);
      assert.ok(tiles.includes(`Volume accepté, EUR${spaces(volume)}`), tiles);
      assert.match(tiles, /Taux d'acceptation\s*100,0\s%/);
      const day = await intlDay(page, 'fr-FR', today);
      assert.ok(spaces((await figures.locator('p.sub').first().textContent())!).includes(`au ${spaces(day)}`), 'the range in French days');
      const money = page.getByRole('region', { name: 'Solde et versements' });
      assert.ok(spaces((await money.getByRole('row').filter({ hasText: 'EUR' }).textContent())!).includes(spaces(volume)));

      await page.goto(`${t.baseUrl}/portal/payments/${paymentId}`);
      const heading = page.getByRole('heading', { name: `Paiement LANG-${kind}` });
      await heading.waitFor();
      assert.match((await heading.textContent())!, /réglé$/, 'the payment\'s status (settled) in French');
      await page.getByRole('region', { name: 'Transactions' }).getByRole('row').filter({ hasText: 'vente' }).filter({ hasText: 'réussi' }).waitFor();
      const amounts = page.getByRole('region', { name: 'Montants' });
      assert.ok(spaces((await amounts.textContent())!).includes(`Montant${spaces(volume)}`), 'the amount in French');
      // Times: the browser's own French medium date and time of the payment's creation, in its time zone.
      const created = page.locator('section[aria-labelledby="amounts"] time').first();
      const iso = (await created.getAttribute('datetime'))!;
      const expected = await page.evaluate((at) => new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(at)), iso);
      assert.equal(spaces((await created.textContent())!), spaces(expected));
      await page.getByRole('heading', { name: 'Historique' }).waitFor();
      await check('payment-fr', 'desktop');
    });

    it('turns right to left in Arabic, keeps the choice over a reload and the browser\'s French (axe at 1440 and 390 px)', async () => {
      await page.goto(`${t.baseUrl}/portal/`);
      await page.getByLabel('Langue').selectOption({ label: 'العربية' });
      await page.getByRole('heading', { name: 'الرئيسية' }).waitFor();
      assert.deepEqual(await documentLanguage(), ['ar', 'rtl']);
      await page.reload();
      await page.getByRole('heading', { name: 'الرئيسية' }).waitFor();
      assert.deepEqual(await documentLanguage(), ['ar', 'rtl'], 'the choice is kept in this browser');
      assert.equal(await page.title(), 'بوابة التجار Portcullis');
      const volume = await intlMoney(page, 'ar-u-nu-latn', '1234.50', 'EUR');
      assert.ok(volume.includes('1,234.50') && !/[٠-٩]/.test(volume), `Arabic with Latin digits: ${volume}`);
      for (const width of WIDTHS) {
        await page.setViewportSize(width);
        await page.goto(`${t.baseUrl}/portal/`);
        const figures = page.getByRole('region', { name: 'أرقام المدفوعات' });
        await figures.getByText('المدفوعات يوميًا').waitFor();
        const tiles = spaces((await figures.locator('dl.tiles').textContent())!);
        assert.ok(tiles.includes(spaces(volume)), tiles);
        await page.getByRole('button', { name: 'تسجيل الخروج' }).waitFor();
        await check('home-ar', width.name);
        await page.goto(`${t.baseUrl}/portal/payments`);
        await page.getByRole('link', { name: `LANG-${kind}` }).waitFor();
        await page.getByRole('region', { name: 'المدفوعات التي وُجدت' }).getByText(volume).waitFor();
        await check('payments-ar', width.name);
      }
      // Back to English from the picker, as a user would.
      await page.setViewportSize(WIDTHS[0]);
      await page.getByLabel('اللغة').selectOption({ label: 'English' });
      await page.getByRole('heading', { name: 'Payments' }).waitFor();
      assert.deepEqual(await documentLanguage(), ['en', 'ltr']);
    });
  });
}
