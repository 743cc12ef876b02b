/**
 * A request's logger is made when it first writes a line that logs (issue 24: pino's child costs a redaction pass
 * on every request); its lines carry the request id as a pino child's do, at the levels the parent logs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, requestLogger } from '../../src/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); done(); } });
  return { lines, stream };
}

describe('request logger', () => {
  it('makes no child while nothing logs; then one, whose lines carry the request id and redact as before', () => {
    const { lines, stream } = capture();
    const parent = createLogger('info', stream);
    let children = 0;
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof child>) => { children += 1; return child(...args); }) as typeof parent.child;
    const log = requestLogger(parent, { reqId: 'r-1' }, {});
    log.debug('not at info');
    log.trace({ card_number: '4111111111111111' }, 'nor this');
    assert.equal(children, 0);
    assert.equal(log.isLevelEnabled('debug'), false);
    assert.equal(log.level, 'info');
    log.info({ card_number: '4111111111111111' }, 'answered');
    log.warn('twice');
    assert.equal(children, 1);
    assert.deepEqual(lines.map((l) => [l.level, l.reqId, l.msg, l.card_number]), [[30, 'r-1', 'answered', '[redacted]'], [40, 'r-1', 'twice', undefined]]);
  });

  it('a route\'s own log level (child options) makes the child at once, at that level', () => {
    const { lines, stream } = capture();
    const log = requestLogger(createLogger('info', stream), { reqId: 'r-2' }, { level: 'debug' });
    log.debug('at debug');
    assert.deepEqual(lines.map((l) => [l.level, l.reqId]), [[20, 'r-2']]);
  });
});
