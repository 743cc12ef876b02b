#!/usr/bin/env node
// `node scripts/release.mjs <major.minor.patch> [--date YYYY-MM-DD] [--root DIR]`: cuts a release as interface.md's
// Versioning section describes. Every entry of CHANGELOG.md's Unreleased queue moves, as it is, into a new section
// `## [<version>] - <date>` under the queue, which is left empty; package.json (and package-lock.json's root entry)
// take the version. Refuses an empty queue, a version that is not semver or not above the current one, and a queue
// with a category other than Added, Changed, Deprecated, Removed, Fixed, Security, Breaking.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const CATEGORIES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security', 'Breaking'];
const SEMVER = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;
const UNRELEASED = '## [Unreleased]';

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function argsOf(argv) {
  const out = { version: undefined, date: new Date().toISOString().slice(0, 10), root: path.resolve(path.dirname(new URL(import.meta.url).pathname), '..') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--date') out.date = argv[++i];
    else if (argv[i] === '--root') out.root = path.resolve(argv[++i]);
    else out.version = argv[i];
  }
  return out;
}

/** -1, 0 or 1, comparing two semver strings. */
function compare(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

const { version, date, root } = argsOf(process.argv.slice(2));
if (!version || !SEMVER.test(version)) fail(`give the version as major.minor.patch (got ${version ?? 'nothing'})`);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(`--date must be YYYY-MM-DD (got ${date})`);

const changelogPath = path.join(root, 'CHANGELOG.md');
const packagePath = path.join(root, 'package.json');
const lockPath = path.join(root, 'package-lock.json');
const changelog = readFileSync(changelogPath, 'utf8');
const pkg = JSON.parse(readFileSync(packagePath, 'utf8'));
if (compare(version, pkg.version) <= 0 && /^## \[\d/m.test(changelog)) fail(`${version} is not above the released ${pkg.version}`);

const start = changelog.indexOf(`${UNRELEASED}\n`);
if (start < 0) fail(`CHANGELOG.md has no "${UNRELEASED}" section`);
const bodyStart = start + UNRELEASED.length + 1;
const next = changelog.slice(bodyStart).search(/^## \[/m);
const bodyEnd = next < 0 ? changelog.length : bodyStart + next;
const queue = changelog.slice(bodyStart, bodyEnd).trim();
if (!/^- /m.test(queue)) fail('the Unreleased queue is empty: nothing to release');
const unknown = [...queue.matchAll(/^### (.+)$/gm)].map((m) => m[1].trim()).filter((c) => !CATEGORIES.includes(c));
if (unknown.length > 0) fail(`unknown categories in the queue: ${unknown.join(', ')} (allowed: ${CATEGORIES.join(', ')})`);
if (changelog.includes(`## [${version}]`)) fail(`CHANGELOG.md already has a ${version} section`);

const released = `${UNRELEASED}\n\n## [${version}] - ${date}\n\n${queue}\n\n`;
writeFileSync(changelogPath, changelog.slice(0, start) + released + changelog.slice(bodyEnd).replace(/^\n+/, ''));
pkg.version = version;
writeFileSync(packagePath, `${JSON.stringify(pkg, null, 2)}\n`);
if (existsSync(lockPath)) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  lock.version = version;
  if (lock.packages?.['']) lock.packages[''].version = version;
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(`release: ${version} (${date}) cut; the Unreleased queue is empty`);
