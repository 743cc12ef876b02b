/**
 * Page objects of the console's comfort and correctness fixes (issue 31 items 8, 9, 11): the header's theme and
 * language pickers, the keyboard shortcuts, a merchant's Wallets and Routing tabs, a user's role.
 */
import type { Dialog, Locator, Page } from 'playwright-core';

export class Shell {
  constructor(readonly page: Page) {}
  theme(): Locator { return this.page.locator('.prefs:not(.mode-switch) select').first(); }
  language(): Locator { return this.page.locator('.prefs:not(.mode-switch) select').nth(1); }
  async chooseTheme(value: 'system' | 'light' | 'dark'): Promise<void> { await this.theme().selectOption(value); }
  async chooseLanguage(value: string): Promise<void> { await this.language().selectOption(value); }
  documentTheme(): Promise<string | undefined> { return this.page.evaluate(() => document.documentElement.dataset.theme); }
  documentLanguage(): Promise<{ lang: string; dir: string }> { return this.page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir })); }
  nav(): Locator { return this.page.locator('nav#nav'); }
  /** A key pressed with nothing focused that takes text. */
  async press(...keys: string[]): Promise<void> {
    await this.page.locator('main h1').first().click();
    for (const key of keys) await this.page.keyboard.press(key);
  }
  shortcutsDialog(): Locator { return this.page.locator('dialog.shortcuts'); }
}

export class WalletsTab {
  constructor(readonly page: Page) {}
  async open(baseUrl: string, merchantId: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/merchants/${merchantId}/wallets`);
    await this.form('apple').waitFor();
    return this;
  }
  form(which: 'apple' | 'google'): Locator { return this.page.locator(`form[aria-labelledby="${which}"]`); }
  state(which: 'apple' | 'google'): Locator { return this.form(which).getByTestId('wallet-state'); }
  enabled(which: 'apple' | 'google'): Locator { return this.form(which).getByLabel('Enabled'); }
}

export class RoutingTab {
  constructor(readonly page: Page) {}
  async open(baseUrl: string, merchantId: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/merchants/${merchantId}/routing`);
    await this.page.getByRole('heading', { name: 'Routing rules' }).waitFor();
    return this;
  }
  rule(n: number): Locator { return this.page.getByRole('region', { name: new RegExp(`^Rule ${n}`) }); }
  async addRule(): Promise<void> { await this.page.getByRole('button', { name: 'Add a rule' }).click(); }
  async save(): Promise<void> { await this.page.getByRole('button', { name: 'Save routing' }).click(); }
  status(): Locator { return this.page.locator('form[aria-labelledby="rules"] [role=status]'); }
  errors(): Locator { return this.page.locator('form[aria-labelledby="rules"] [role=alert]'); }
}

export class UsersScreen {
  constructor(readonly page: Page) {}
  async open(baseUrl: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/users`);
    await this.page.getByRole('heading', { name: 'Users and tokens' }).first().waitFor();
    return this;
  }
  role(email: string): Locator { return this.page.getByLabel(`Role of ${email}`, { exact: true }); }
  confirmDialog(email: string): Locator { return this.page.getByRole('dialog', { name: `Change the role of ${email}?` }); }
}

/** A merchant's General settings form (its Settings tab). */
export class MerchantGeneralForm {
  constructor(readonly page: Page) {}
  async open(baseUrl: string, merchantId: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/merchants/${merchantId}`);
    await this.form().waitFor();
    return this;
  }
  form(): Locator { return this.page.locator('form[aria-labelledby="general"]'); }
  name(): Locator { return this.form().getByLabel('Name', { exact: true }); }
  async save(): Promise<void> {
    await this.form().getByRole('button', { name: 'Save' }).click();
    await this.form().getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  }
}

/** Leaving a screen by the console's menu, as an operator does; the unsaved-changes confirm answered as told. */
export class Leaving {
  constructor(readonly page: Page) {}
  /** Follows a menu link; answers the confirm's text ('' when nothing asked), dismissed (stay) or accepted (leave). */
  async follow(link: string, answer: 'stay' | 'leave' = 'stay'): Promise<string> {
    let asked = '';
    const handler = (d: Dialog) => { asked = d.message(); void (answer === 'stay' ? d.dismiss() : d.accept()); };
    this.page.on('dialog', handler);
    try {
      await this.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click();
    } finally {
      this.page.off('dialog', handler);
    }
    return asked;
  }
}
