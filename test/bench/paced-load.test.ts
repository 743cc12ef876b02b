import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { pacedLoad, parseAnswer } from '../../bench/paced-load.ts';

describe('the benchmark\'s paced load generator', () => {
  it('frames answers by Content-Length and by chunks, and waits for the rest of one', () => {
    const sized = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    assert.deepEqual(parseAnswer(sized), { status: 200, length: sized.length, close: false });
    assert.equal(parseAnswer(sized.subarray(0, sized.length - 1)), undefined);
    const chunked = Buffer.from('HTTP/1.1 402 Payment Required\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    assert.deepEqual(parseAnswer(chunked), { status: 402, length: chunked.length, close: true });
    assert.equal(parseAnswer(chunked.subarray(0, chunked.length - 2)), undefined);
    assert.equal(parseAnswer(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le')), undefined);
  });

  it('sends every request of the run, counting answers that are not 2xx and connections that close', async () => {
    let served = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        served += 1;
        assert.equal(body, 'a=1');
        assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
        if (served % 10 === 0) res.setHeader('connection', 'close');
        res.statusCode = served % 4 === 0 ? 500 : 200;
        if (served % 3 === 0) res.write('chunk');
        res.end('done');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const result = await pacedLoad({ url: `http://127.0.0.1:${port}/post`, body: 'a=1', contentType: 'application/x-www-form-urlencoded', rate: 200, seconds: 1, connections: 4 });
      assert.equal(result.sent, 200);
      assert.equal(result.completed, 200);
      assert.equal(served, 200);
      assert.equal(result.errors, 0);
      assert.equal(result.non2xx, 50);
      assert.ok(result.p50 > 0 && result.p50 <= result.p99 && result.p99 <= result.max);
    } finally {
      server.close();
    }
  });
});
