/**
 * Releases as interface.md's Versioning section describes them: semver, a changelog whose newest section is the
 * Unreleased queue, then the released versions newest first with their dates, each entry under one of the
 * categories; the version the gateway reports is the newest release. And scripts/release.mjs, which cuts one, run on
 * a copy of the repository's files.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VERSION } from '../../src/version.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CATEGORIES = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security', 'Breaking'];
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

interface Section { title: string; version?: string; date?: string; body: string }

function sections(changelog: string): Section[] {
  return changelog.split(/^(?=## )/m).filter((s) => s.startsWith('## ')).map((s) => {
    const title = s.slice(3, s.indexOf('\n')).trim();
    const m = /^\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(title);
    return { title, ...(m ? { version: m[1], date: m[2] } : {}), body: s.slice(s.indexOf('\n') + 1) };
  });
}

const newerFirst = (a: string, b: string) => {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
};

function release(root: string, ...args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, 'scripts/release.mjs'), ...args, '--root', root], { encoding: 'utf8' });
}

describe('releases', () => {
  const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

  it('numbers the gateway major.minor.patch and reports the newest release as its version', () => {
    assert.match(pkg.version, SEMVER);
    assert.equal(VERSION, pkg.version);
    const newest = sections(changelog).find((s) => s.version);
    if (newest) assert.equal(newest.version, pkg.version, 'package.json carries the newest released version');
  });

  it('keeps the Unreleased queue first, then released versions newest first, each dated, each entry under a category', () => {
    const all = sections(changelog);
    assert.equal(all[0]?.title, '[Unreleased]');
    const released = all.slice(1);
    for (const s of released) assert.ok(s.version && s.date, `a released section is "[x.y.z] - YYYY-MM-DD": ${s.title}`);
    for (let i = 1; i < released.length; i++) assert.ok(newerFirst(released[i - 1]!.version!, released[i]!.version!), `${released[i - 1]!.title} before ${released[i]!.title}`);
    for (const s of all) {
      for (const [, category] of s.body.matchAll(/^### (.+)$/gm)) assert.ok(CATEGORIES.includes(category!.trim()), `${s.title}: category ${category}`);
      // Every entry sits under a category heading.
      const beforeFirstCategory = s.body.split(/^### /m)[0]!;
      assert.ok(!/^- /m.test(beforeFirstCategory), `${s.title}: an entry without a category`);
    }
  });

  it('cuts a release: the queue moves into a dated section, the queue is left empty, package files take the version', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'release-'));
    try {
      for (const f of ['CHANGELOG.md', 'package.json', 'package-lock.json']) cpSync(path.join(ROOT, f), path.join(dir, f));
      const queue = sections(changelog)[0]!.body.trim();
      const next = pkg.version.split('.').map(Number);
      const version = `${next[0]! + 1}.0.0`;
      writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog.replace('## [Unreleased]\n', '## [Unreleased]\n\n### Added\n- A test entry (Checkout).\n'));
      const cut = release(dir, version, '--date', '2026-11-24');
      assert.equal(cut.status, 0, cut.stderr);
      const after = readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8');
      const [unreleased, first] = sections(after);
      assert.equal(unreleased!.title, '[Unreleased]');
      assert.equal(unreleased!.body.trim(), '', 'the queue is empty');
      assert.equal(first!.title, `[${version}] - 2026-11-24`);
      assert.ok(first!.body.includes('- A test entry (Checkout).'));
      if (queue) assert.ok(first!.body.includes(queue.slice(-200)), 'every queued entry moved');
      assert.equal(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version, version);
      const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
      assert.equal(lock.version, version);
      assert.equal(lock.packages[''].version, version);

      // Nothing queued, the same version again, a lower one, not semver, an unknown category: refused, files untouched.
      const refusals: [string[], RegExp][] = [
        [[`${next[0]! + 1}.0.1`], /queue is empty/],
        [[version], /not above/],
        [['1.2'], /major\.minor\.patch/],
      ];
      for (const [args, message] of refusals) {
        const res = release(dir, ...args);
        assert.notEqual(res.status, 0, args.join(' '));
        assert.match(res.stderr, message);
      }
      writeFileSync(path.join(dir, 'CHANGELOG.md'), after.replace('## [Unreleased]\n', '## [Unreleased]\n\n### Improved\n- Something.\n'));
      const odd = release(dir, `${next[0]! + 2}.0.0`);
      assert.notEqual(odd.status, 0);
      assert.match(odd.stderr, /unknown categories in the queue: Improved/);
      assert.equal(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version, version);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
