/**
 * The callback POST over kept-alive sockets: a merchant's server that closes an idle connection just as the
 * gateway reuses it must not turn into a failed attempt (and a wait for the retry schedule). The server here
 * answers the first request on a connection and drops the connection at the second, as a server whose
 * keep-alive timeout has just passed does; a request on a fresh connection is answered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo, type Socket } from 'node:net';
import { callbackTargetPolicy } from '../../src/domain/callback-targets.ts';
import { CallbackHttpClient } from '../../src/workers/callback-http.ts';

const ANSWER = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nOK';

describe('callback POST on a kept-alive socket the server closed', () => {
  let server: net.Server;
  let url: string;
  let connections = 0;
  const requestsSeen: number[] = [];

  before(async () => {
    server = net.createServer((socket: Socket) => {
      const connection = ++connections;
      let requests = 0;
      socket.on('data', (chunk) => {
        // One chunk per request here: small bodies, one write each.
        if (!chunk.toString('latin1').startsWith('POST ')) return;
        requests++;
        requestsSeen.push(connection);
        if (requests === 1) socket.write(ANSWER);
        else socket.destroy(); // the idle connection's end meets the reused request: nothing is answered
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the request again once on a new connection, and gets its answer', async () => {
    const client = new CallbackHttpClient(callbackTargetPolicy(['127.0.0.1']));
    const post = () => client.post({ url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1', timeoutMs: 5_000, maxResponseBytes: 100 });
    try {
      assert.deepEqual(await post(), { status: 200, body: 'OK' });
      // The kept socket is reused, dropped by the server, and the POST goes again on a second connection.
      assert.deepEqual(await post(), { status: 200, body: 'OK' });
      assert.deepEqual(requestsSeen, [1, 1, 2], 'first connection: answered, then dropped; second connection: answered');
      assert.equal(connections, 2);
    } finally {
      client.close();
    }
  });
});

describe('callback POST that runs out of time', () => {
  let server: net.Server;
  let url: string;
  const sockets: Socket[] = [];

  before(async () => {
    // A server that never answers the first request's connection, and starts the second's answer but never ends it.
    let connections = 0;
    server = net.createServer((socket: Socket) => {
      sockets.push(socket);
      const connection = ++connections;
      socket.on('data', () => {
        if (connection > 1) socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nO');
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  });
  after(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  }));

  it('fails with a TimeoutError whether no answer came or the answer never ended, and frees its sockets', async () => {
    const client = new CallbackHttpClient(callbackTargetPolicy(['127.0.0.1']));
    const post = () => client.post({ url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1', timeoutMs: 150, maxResponseBytes: 100 });
    try {
      for (const _ of ['no answer', 'an answer that never ends']) {
        const started = performance.now();
        await assert.rejects(post(), (err: Error) => err.name === 'TimeoutError' && /no answer within 150 ms/.test(err.message));
        const took = performance.now() - started;
        assert.ok(took >= 140 && took < 5_000, `ran out of time after ${Math.round(took)} ms`);
      }
    } finally {
      client.close();
    }
  });
});
