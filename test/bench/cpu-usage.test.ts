import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpuPerRequest, cpuSnapshot, parseProcStat } from '../../bench/cpu-usage.ts';

describe('the benchmark\'s CPU figures', () => {
  it('reads the command and user plus system time of a /proc stat line, whatever the name holds', () => {
    const line = '4242 (postgres: bench (x) idle) S 1 4242 4242 0 -1 4194560 1203 0 0 0 150 25 0 0 20 0 1 0 1000 1000 100 18446744073709551615';
    assert.deepEqual(parseProcStat(line), { comm: 'postgres: bench (x) idle', cpuMicros: 175 * 10_000 });
    assert.equal(parseProcStat('garbage'), undefined);
  });

  it('divides each process\'s CPU by the requests, counting PostgreSQL processes that started during the load', () => {
    const before = { server: 1_000_000, postgres: new Map([[10, 500_000], [11, 200_000]]), generator: 300_000 };
    const after = { server: 3_000_000, postgres: new Map([[10, 1_500_000], [12, 400_000]]), generator: 500_000 };
    assert.deepEqual(cpuPerRequest(before, after, 1_000), { server: 2_000, postgres: 1_400, generator: 200 });
    assert.deepEqual(cpuPerRequest({ ...before, server: undefined }, { ...after, postgres: new Map() }, 100), { generator: 2_000 });
  });

  it('sees this process\'s own CPU and, on Linux, its own stat line', () => {
    const snapshot = cpuSnapshot(process.pid);
    assert.ok(snapshot.generator > 0);
    if (process.platform === 'linux') assert.equal(typeof snapshot.server, 'number');
  });
});
