/**
 * docs/merchants/request-signatures.md's worked example, recomputed with the gateway's own functions (the key from
 * the secret, the signed string, the HMAC and the header), and checked by the gateway's own verification.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { secretKey } from '../../src/domain/webhook-signature.ts';
import { matchingSignature, parseSignatureHeader, requestSignature, requestSignatureHeader, signedPayload } from '../../src/domain/request-signature.ts';
import { requestSignatureHeader as sdkHeader } from '../../sdk/node/src/index.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const doc = readFileSync(path.join(root, 'docs/merchants/request-signatures.md'), 'utf8');

describe('docs/merchants/request-signatures.md worked example', () => {
  const block = /### Worked example[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1];
  const field = (name: string) => {
    const value = new RegExp(`^${name.replace(/[()]/g, '\\$&')}:\\s+(.+)$`, 'm').exec(block ?? '')?.[1];
    assert.ok(value, `${name} in the example`);
    return value;
  };

  it('its key, signed string, v1 and header are what the gateway computes', () => {
    const secret = field('secret');
    const t = Number(field('t'));
    const body = field('body');
    const key = secretKey(secret);
    assert.equal(field('key (hex)'), key.toString('hex'));
    assert.equal(field('signed'), signedPayload(t, body).toString('utf8'));
    assert.equal(field('v1'), requestSignature(key, t, body));
    assert.equal(field('header'), `Portcullis-Signature: ${requestSignatureHeader(key, t, body)}`);
    assert.equal(sdkHeader(secret, body, t), requestSignatureHeader(key, t, body), 'the SDK signs as the docs say');
    const parsed = parseSignatureHeader(field('header').slice('Portcullis-Signature: '.length));
    assert.ok(parsed);
    assert.equal(matchingSignature([key], parsed, body), field('v1'));
    assert.equal(matchingSignature([key], parsed, body.replace('amount=1.00', 'amount=9.00')), undefined);
  });
});
