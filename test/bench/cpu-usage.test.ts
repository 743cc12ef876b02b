import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { connectionPorts, cpuPerRequest, cpuSnapshot, parseProcStat } from '../../bench/cpu-usage.ts';

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

  it('counts the CPU of the server\'s own database backends apart, over the backends alive at both ends', () => {
    const before = { server: 0, postgres: new Map([[10, 0]]), own: new Map([[20, 100_000], [21, 50_000]]), generator: 0 };
    const after = { server: 0, postgres: new Map([[10, 0]]), own: new Map([[20, 600_000], [22, 70_000]]), generator: 0 };
    assert.equal(cpuPerRequest(before, after, 100).ownPostgres, 5_000);
    assert.equal(cpuPerRequest({ ...before, own: undefined }, after, 100).ownPostgres, undefined);
  });

  it('finds the local ports of a process\'s connections to a port (its database connections), on Linux', { skip: process.platform !== 'linux' }, async () => {
    const server = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    try {
      assert.deepEqual(connectionPorts(process.pid, port), [client.localPort]);
      assert.deepEqual(connectionPorts(process.pid, port + 1 === 65536 ? 1 : port + 1), []);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sees this process\'s own CPU and, on Linux, its own stat line', () => {
    const snapshot = cpuSnapshot(process.pid);
    assert.ok(snapshot.generator > 0);
    if (process.platform === 'linux') assert.equal(typeof snapshot.server, 'number');
  });
});
