/**
 * Real-browser tests drive Debian's chromium through playwright-core. When the browser is missing, the
 * tests are skipped with the reason printed, never passed silently.
 */
import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
