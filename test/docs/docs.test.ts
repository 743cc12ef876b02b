/**
 * The documentation cannot drift: every worked hash example of docs/merchants/hashes.md is recomputed with the
 * gateway's own signature functions (pre-image, inner digest and hash), every recipe has an example, every
 * relative link of the README and docs/ points at a file that exists (and at a heading of it, when it names one),
 * and the index lists every page.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { exampleBlocks, RECIPES } from './hash-recipes.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('docs/merchants/hashes.md worked examples', () => {
  const blocks = exampleBlocks(read('docs/merchants/hashes.md'));

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

/** Every Markdown page under docs/, as a path from the root. */
const docPages = (readdirSync(path.join(root, 'docs'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.md')).map((f) => `docs/${f.split(path.sep).join('/')}`).sort();

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}_ -]/gu, '').replaceAll(' ', '-')));
}

describe('links', () => {
  it('every relative link of README.md, docs/ and sdk/node/README.md resolves, to a heading when it names one', () => {
    const files = ['README.md', 'sdk/node/README.md', ...docPages];
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [where, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = where ? path.resolve(path.dirname(path.join(root, file)), where) : path.join(root, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(path.relative(root, resolved)).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('the README links the documentation', () => {
    assert.ok(read('README.md').includes('](docs/README.md)'), 'README.md links docs/README.md');
  });

  it('docs/README.md lists every page of docs/, merchants\' and operators\' apart', () => {
    const index = read('docs/README.md');
    const listed = new Set([...index.matchAll(/\]\(([^)#\s]+\.md)\)/g)].map((m) => `docs/${m[1]}`));
    assert.deepEqual(docPages.filter((f) => f !== 'docs/README.md' && !listed.has(f)), [], 'add a line per page to docs/README.md');
    assert.deepEqual(docPages.filter((f) => /^docs\/[^/]+\.md$/.test(f)), ['docs/README.md', 'docs/decisions.md'], 'pages live in docs/merchants/ or docs/operators/');
  });
});

describe('docs that mirror the gateway\'s tables', () => {
  it('docs/merchants/statuses.md lists exactly the state machine\'s transitions', async () => {
    const { STATUSES, nextStatus } = await import('../../src/domain/payment-state.ts');
    const events = ['challenge_required', 'redirect_required', 'authorized', 'sold', 'declined', 'captured', 'reversed', 'refunded_partially', 'refunded_fully', 'voided', 'charged_back', 'retried_sold', 'retried_authorized'] as const;
    const machine = STATUSES.flatMap((from) => events.flatMap((event) => {
      const to = nextStatus(from, event);
      return to ? [`${from} ${event} ${to}`] : [];
    }));
    const documented = [...read('docs/merchants/statuses.md').matchAll(/^\| ([a-z0-9]+) \| ([a-z_]+) \| ([a-z0-9]+) \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    assert.deepEqual([...documented].sort(), [...machine].sort());
  });

  it('docs/merchants/errors.md lists every error of the catalog with its status, code and text', async () => {
    const { ERRORS } = await import('../../src/domain/errors.ts');
    const doc = read('docs/merchants/errors.md');
    const missing = Object.entries(ERRORS).filter(([name, e]) => !doc.includes(`| ${e.http} | \`${e.code}\` | ${e.message} | ${name} |`)).map(([name]) => name);
    assert.deepEqual(missing, [], 'add a row per error to docs/merchants/errors.md');
  });
});
