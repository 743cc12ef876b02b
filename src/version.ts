/**
 * The gateway's release version (semver), read once from package.json: the one place a release sets it
 * (scripts/release.mjs). The compiled build finds package.json at the same relative path as the sources do.
 */
import { readFileSync } from 'node:fs';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
