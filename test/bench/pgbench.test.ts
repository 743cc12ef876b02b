import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePgbenchTps, pgbenchScript } from '../../bench/pgbench.ts';

describe('pgbench beside the benchmark', () => {
  it('reads the rate without connection time, or the only rate printed', () => {
    const output = [
      'number of transactions actually processed: 64755',
      'latency average = 3.706 ms',
      'initial connection time = 9.521 ms',
      'tps = 4317.042913 (without initial connection time)',
    ].join('\n');
    assert.equal(parsePgbenchTps(output), 4317.042913);
    assert.equal(parsePgbenchTps('tps = 812.5 (including connections establishing)\n'), 812.5);
    assert.equal(parsePgbenchTps('pgbench: error: connection to server failed'), undefined);
  });

  it('writes a row and settles the same row, each autocommitted, tolerating a repeated id', () => {
    const script = pgbenchScript('t1');
    const statements = script.split('\n').filter((line) => line && !line.startsWith('\\'));
    assert.deepEqual(statements.map((s) => s.split(' ')[0]), ['INSERT', 'UPDATE']);
    assert.match(statements[0]!, /ON CONFLICT DO NOTHING;$/);
    assert.match(statements[1]!, /WHERE id = :id AND status = 'prepare';$/);
    assert.doesNotMatch(script, /BEGIN|COMMIT/);
  });
});
