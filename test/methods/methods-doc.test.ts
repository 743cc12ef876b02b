/** docs/merchants/methods.md is the catalog's coverage list; it must be what scripts/methods-doc.ts prints today. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { METHOD_LIST } from '../../src/domain/methods/catalog.ts';
import { renderMethodsDoc } from '../../src/domain/methods/doc.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const onDisk = readFileSync(`${root}/docs/merchants/methods.md`, 'utf8');
const REGENERATE = 'docs/merchants/methods.md is out of date: run `node --import tsx scripts/methods-doc.ts > docs/merchants/methods.md`';

describe('docs/merchants/methods.md', () => {
  it('is what the script prints from the catalog', () => {
    const script = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/methods-doc.ts'], { cwd: root, encoding: 'utf8' });
    assert.equal(script.status, 0, script.stderr);
    assert.equal(script.stdout, renderMethodsDoc());
    assert.ok(onDisk === script.stdout, REGENERATE);
  });

  it('lists every method with its key, experience and a section of its parameters', () => {
    for (const m of METHOD_LIST) {
      assert.ok(onDisk.includes(`| \`${m.key}\` | ${m.experience} |`), `${m.key} in the coverage table`);
      assert.ok(onDisk.includes(`### \`${m.key}\`: ${m.label}`), `${m.key} section`);
    }
  });
});
