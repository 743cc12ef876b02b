/**
 * The meaning of an operation (SALE, CAPTURE, CREDIT2CARD, ...) is read from one table, src/domain/operations.ts:
 * nowhere else compares an operation to a value (issue 24: "grep for `operation ===` outside the operations table
 * finds nothing"). A failure lists each comparison as file:line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const TABLE = 'src/domain/operations.ts';
/** `operation ===` anywhere, and `operation !==` against a literal (a session's own operation may be checked against the endpoint's). */
const COMPARISON = /operation\s*===|operation\s*!==\s*['"`]|['"`]\s*[!=]==\s*[\w.]*\boperation\b/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

test('no operation is compared to a value outside the operations table', () => {
  const found = sources(path.join(root, 'src'))
    .map((file) => path.relative(root, file))
    .filter((file) => file !== TABLE)
    .flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (COMPARISON.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  assert.deepEqual(found, [], `compare through src/domain/operations.ts instead:\n${found.join('\n')}`);
});
