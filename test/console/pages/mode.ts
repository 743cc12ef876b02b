/** Page object of the console's test/live switch (issue 25, item 26): the header's "Keys" select. */
import type { Page } from 'playwright-core';

export type KeysShown = 'Test and live' | 'Test only' | 'Live only';

export class ModeSwitch {
  constructor(readonly page: Page) {}

  async choose(shown: KeysShown): Promise<void> {
    await this.page.getByRole('banner').getByLabel('Keys').selectOption({ label: shown });
  }

  async chosen(): Promise<string> {
    return this.page.getByRole('banner').getByLabel('Keys').evaluate((s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
  }
}
