/** Page object of the console's Risk screen (issue 26): the review queue and its decisions. */
import type { Locator, Page } from 'playwright-core';

export class RiskPage {
  constructor(private readonly page: Page) {}

  async open(baseUrl: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/risk`);
    await this.page.getByRole('heading', { name: 'Review queue' }).waitFor();
    return this;
  }

  /** The queue's table rows (the header row apart). */
  rows(): Locator {
    return this.page.getByRole('region', { name: 'Payments held for review' }).locator('tbody tr');
  }

  row(orderId: string): Locator {
    return this.rows().filter({ hasText: orderId });
  }

  /** Opens a decision's dialog (a row's, or the bulk one), writes the note and confirms. */
  async decide(scope: Locator | Page, button: string, note: string): Promise<void> {
    await scope.getByRole('button', { name: `${button}…` }).click();
    const dialog = this.page.getByRole('dialog');
    await dialog.getByRole('textbox').fill(note);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  async select(orderId: string): Promise<void> {
    await this.page.getByRole('checkbox', { name: `Select ${orderId}` }).check();
  }
}

/** The rules editor (/admin/risk/rules?scope=...): the order overview, one card per rule, save, backtest the draft. */
export class RiskRulesPage {
  constructor(private readonly page: Page) {}

  async open(baseUrl: string, scope: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/risk/rules?scope=${encodeURIComponent(scope)}`);
    await this.page.getByRole('heading', { name: 'Edit the rules' }).waitFor();
    return this;
  }

  /** The card of rule n (1-based). */
  rule(n: number): Locator {
    return this.page.getByRole('region', { name: new RegExp(`^Rule ${n}(:|$)`) });
  }

  async addRule(): Promise<Locator> {
    const before = await this.page.locator('section.rule').count();
    await this.page.getByRole('button', { name: 'Add a rule' }).click();
    return this.rule(before + 1);
  }

  /** A field of rule n by its label. */
  field(n: number, label: string): Locator {
    return this.rule(n).getByLabel(label, { exact: true });
  }

  /** The problems the API named under a field (its aria-describedby list). */
  async problemsAt(field: Locator): Promise<string> {
    await field.and(this.page.locator('[aria-invalid="true"]')).waitFor();
    const id = await field.getAttribute('aria-describedby');
    return (await this.page.locator(`[id="${id}"]`).textContent()) ?? '';
  }

  async save(): Promise<void> {
    await this.page.getByRole('button', { name: 'Save the rules' }).click();
  }

  async waitSaved(version: number): Promise<void> {
    await this.page.getByRole('status').filter({ hasText: `Saved as version ${version}.` }).waitFor();
  }

  /** The overview's rows of a table ("Platform rules (run first)", "This merchant's rules ..."): order, name, mode. */
  async overview(label: string | RegExp): Promise<string[][]> {
    const rows = this.page.getByRole('region', { name: label }).locator('tbody tr');
    return rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).slice(0, 3).map((td) => td.textContent ?? '')));
  }
}

/** The lists screen (/admin/risk/lists?scope=...): search, the entries, add, remove. */
export class RiskListsPage {
  constructor(private readonly page: Page) {}

  async open(baseUrl: string, scope: string): Promise<this> {
    await this.page.goto(`${baseUrl}/admin/risk/lists?scope=${encodeURIComponent(scope)}`);
    await this.page.getByRole('heading', { name: 'Add an entry' }).waitFor();
    return this;
  }

  rows(): Locator {
    return this.page.getByRole('region', { name: 'List entries, oldest first' }).locator('tbody tr');
  }

  async add(e: { list?: 'Block' | 'Allow'; kind: string; value: string; reason: string }): Promise<void> {
    const form = this.page.getByRole('form', { name: 'Add an entry' });
    await form.getByLabel('List', { exact: true }).selectOption({ label: e.list ?? 'Block' });
    await form.getByLabel('Kind', { exact: true }).selectOption({ label: e.kind });
    await form.getByLabel('Value', { exact: true }).fill(e.value);
    await form.getByLabel('Reason', { exact: true }).fill(e.reason);
    await form.getByRole('button', { name: 'Add to the list' }).click();
  }

  async search(text: string): Promise<void> {
    const form = this.page.getByRole('search', { name: 'Search the lists' });
    await form.getByLabel('Search', { exact: true }).fill(text);
    await form.getByRole('button', { name: 'Search' }).click();
  }

  async remove(value: string): Promise<void> {
    await this.page.getByRole('button', { name: `Remove ${value}…` }).click();
    const dialog = this.page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
}

/** The backtest view (/admin/risk/backtest): the candidate, days, run, the outcome figures. */
export class RiskBacktestPage {
  constructor(private readonly page: Page) {}

  async run(days: number): Promise<void> {
    await this.page.getByLabel('Days back').fill(String(days));
    await this.page.getByRole('button', { name: 'Run the backtest' }).click();
    await this.page.getByRole('heading', { name: /^Backtest of \d+ payments/ }).waitFor();
  }

  /** A figure of the result ("Blocked", "Approved payments lost", ...). */
  async figure(name: string): Promise<string> {
    const facts = this.page.locator('dl[aria-label="Backtest outcomes"]');
    return (await facts.locator('div', { has: this.page.getByText(name, { exact: true }) }).locator('dd').textContent()) ?? '';
  }

  examples(label: string): Locator {
    return this.page.getByRole('region', { name: `${label}: examples` }).locator('tbody tr');
  }
}
