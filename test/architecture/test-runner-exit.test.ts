/**
 * The runner's forced exit loses no results (scripts/test-exit.mjs): a file of 300 quick tests in 10 suites, run
 * through scripts/test-run.mjs three times as `npm test` runs files, reports all 300 each time. Without the
 * preload node:test's forced exit cut the last results in about half of such runs (Node 20), and the full suite's
 * count moved by a few tests from run to run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

const FIXTURE = `import { describe, it } from 'node:test';
for (let s = 0; s < 10; s++) describe('suite ' + s, () => { for (let i = 0; i < 30; i++) it('test ' + s + '.' + i, () => {}); });
`;

test('a file run by the runner reports every one of its tests, run after run', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portcullis-runner-'));
  try {
    const file = path.join(dir, 'many.test.mjs');
    writeFileSync(file, FIXTURE);
    // The runner as scripts/test.mjs starts it, outside this file's own test context.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const counts: string[] = [];
    for (let run = 0; run < 3; run++) {
      const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(root, 'scripts/test-exit.mjs')).href, path.join(root, 'scripts/test-run.mjs'), file], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      counts.push(`${/^ℹ tests (\d+)$/m.exec(r.stdout)?.[1]} / ${/^ℹ pass (\d+)$/m.exec(r.stdout)?.[1]}`);
    }
    assert.deepEqual(counts, ['300 / 300', '300 / 300', '300 / 300']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
