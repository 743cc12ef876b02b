/**
 * The documentation cannot drift: every worked hash example of docs/hashes.md is recomputed with the
 * gateway's own signature functions (pre-image, inner digest and hash), every recipe has an example, and
 * every relative link of the README and docs/ points at a file that exists.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { exampleBlocks, RECIPES } from './hash-recipes.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('docs/hashes.md worked examples', () => {
  const blocks = exampleBlocks(read('docs/hashes.md'));

  it('has an example for every recipe', () => {
    const shown = new Set(blocks.map((b) => b.recipe));
    assert.deepEqual(Object.keys(RECIPES).filter((r) => !shown.has(r)), []);
    assert.ok(blocks.length >= Object.keys(RECIPES).length);
  });

  it('every example\'s pre-image, digest and hash are what the gateway computes', () => {
    for (const block of blocks) {
      const recipe = RECIPES[block.recipe!];
      assert.ok(recipe, `unknown recipe ${block.recipe}`);
      const computed = recipe(block);
      const label = `${block.recipe} (${JSON.stringify(block)})`;
      assert.equal(block.hash, computed.hash, label);
      if (computed.preimage !== undefined) assert.equal(block.preimage, computed.preimage, label);
      if (computed.inner !== undefined) assert.equal(block[block.digest === 'sha256' ? 'sha256' : 'md5'], computed.inner, label);
    }
  });

  it('includes the platform\'s published S2S CARD test vector', () => {
    assert.ok(blocks.some((b) => b.recipe === 's2s_card.f1' && b.hash === '2702ae0c4f99506dc29b5615ba9ee3c0'));
  });
});

describe('links', () => {
  it('every relative link of README.md, docs/ and sdk/node/README.md resolves', () => {
    const files = ['README.md', 'sdk/node/README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const resolved = path.resolve(path.dirname(path.join(root, file)), target!.split('#')[0]!);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('the README links the documentation', () => {
    assert.ok(read('README.md').includes('](docs/README.md)'), 'README.md links docs/README.md');
  });
});

describe('docs that mirror the gateway\'s tables', () => {
  it('docs/statuses.md lists exactly the state machine\'s transitions', async () => {
    const { STATUSES, nextStatus } = await import('../../src/domain/payment-state.ts');
    const events = ['challenge_required', 'redirect_required', 'authorized', 'sold', 'declined', 'captured', 'reversed', 'refunded_partially', 'refunded_fully', 'voided', 'charged_back', 'retried_sold', 'retried_authorized'] as const;
    const machine = STATUSES.flatMap((from) => events.flatMap((event) => {
      const to = nextStatus(from, event);
      return to ? [`${from} ${event} ${to}`] : [];
    }));
    const documented = [...read('docs/statuses.md').matchAll(/^\| ([a-z0-9]+) \| ([a-z_]+) \| ([a-z0-9]+) \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    assert.deepEqual([...documented].sort(), [...machine].sort());
  });

  it('docs/errors.md lists every error of the catalog with its status, code and text', async () => {
    const { ERRORS } = await import('../../src/domain/errors.ts');
    const doc = read('docs/errors.md');
    const missing = Object.entries(ERRORS).filter(([name, e]) => !doc.includes(`| ${e.http} | \`${e.code}\` | ${e.message} | ${name} |`)).map(([name]) => name);
    assert.deepEqual(missing, [], 'add a row per error to docs/errors.md');
  });
});
