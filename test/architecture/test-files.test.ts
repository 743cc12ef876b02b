/**
 * No test file awaits at its top level after it registered a describe or a test: node:test ends a file once its
 * queue runs empty, so what a file registers after such an await (the per-store describes after storeKinds())
 * is dropped without a word whenever the tests before it finish first, which depends on the machine's load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

test('no top-level await after the first describe or test of a file', () => {
  const late: string[] = [];
  for (const file of [...testFiles(path.join(root, 'test')), ...testFiles(path.join(root, 'sdk/node/test'))]) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const first = lines.findIndex((l) => /^(describe|it|test|suite)\(/.test(l));
    if (first < 0) continue;
    lines.forEach((l, i) => {
      if (i > first && /^[^\s/*].*\bawait\b/.test(l)) late.push(`${path.relative(root, file)}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.deepEqual(late, [], 'await these before the first describe');
});
