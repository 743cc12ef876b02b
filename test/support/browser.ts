/**
 * Real-browser tests drive Debian's chromium through playwright-core. When the browser is missing, the
 * tests are skipped with the reason printed, never passed silently.
 */
import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { postgresUnavailable, storeKinds, type StoreKind } from './stores.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const BROWSER_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let reported = false;

/** Undefined when the browser can be started, else why not (printed once as a SKIP line). */
export function browserUnavailable(): string | undefined {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    const reason = `chromium not found at ${CHROMIUM_PATH} (apt-get install chromium); browser tests skipped`;
    if (!reported) {
      reported = true;
      console.warn(`# SKIP ${reason}`);
    }
    return reason;
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: BROWSER_ARGS, timeout: 60_000 });
}

/**
 * The stores a browser test file runs on. A browser test tests the pages: what a payer, a merchant or an operator
 * sees and does on them. What the store does under the same HTTP calls is tested on both stores by the API tests,
 * so each browser file runs once, on PostgreSQL (production's store) when it answers, else on PGlite (said so, as
 * every PostgreSQL test is skipped then). A browser and a gateway per store made the browser files half of the
 * suite's time. `BROWSER_STORES=both` runs them on both stores, as before.
 */
export async function browserStores(): Promise<{ kind: StoreKind; skip: string | false }[]> {
  if (process.env.BROWSER_STORES === 'both') return storeKinds();
  return [{ kind: (await postgresUnavailable()) ? 'pglite' : 'postgres', skip: false }];
}
