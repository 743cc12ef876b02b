/** The pure transformers of the provider kinds and of the sandbox provider: conversion, signing text, addresses, Pix code. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bech32 } from 'bech32';
import cashaddr from 'cashaddrjs';
import { convertToCrypto, decimalText, providerKind, providerState, servesMethod, signingString } from '../../src/domain/methods/provider-kinds.ts';
import { depositAddress, pixCopyAndPaste } from '../../src/sandbox/apm/provider.ts';

describe('fiat-to-crypto conversion', () => {
  it('converts exactly, rounding down to the coin exponent', () => {
    assert.deepEqual(convertToCrypto(1250n, 'EUR', '1.08', 'USDT'), { minor: 13_500_000n, text: '13.500000' });
    assert.deepEqual(convertToCrypto(100n, 'EUR', '0.000016', 'BTC'), { minor: 1600n, text: '0.00001600' });
    assert.deepEqual(convertToCrypto(1000n, 'JPY', '0.0067', 'USDT'), { minor: 6_700_000n, text: '6.700000' });
    assert.deepEqual(convertToCrypto(1n, 'EUR', '0.0000001', 'USDT'), { minor: 0n, text: '0.000000' });
  });

  it('refuses a rate that is not a positive decimal', () => {
    for (const rate of ['0', '-1', '1e3', 'abc', '', '1.2.3']) assert.equal(convertToCrypto(100n, 'EUR', rate, 'USDT'), undefined, rate);
  });

  it('never asks more than the rate says (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 1, max: 10_000_000 }), (minor, r) => {
      const rate = decimalText(BigInt(r), 4);
      const out = convertToCrypto(minor, 'EUR', rate, 'USDT')!;
      // out.minor / 10^6 <= minor / 100 * r / 10^4 < (out.minor + 1) / 10^6
      const exact = minor * BigInt(r) * 10n ** 6n;
      const scale = 100n * 10n ** 4n;
      assert.ok(out.minor * scale <= exact && exact < (out.minor + 1n) * scale);
    }));
  });
});

describe('signing text of the voucher partner', () => {
  it('covers every other field, sorted by name, Signature and empty values left out', () => {
    assert.equal(signingString({ b: 2, a: 'x', Signature: 'sig', c: true, d: undefined, e: null }), 'a=x&b=2&c=true');
    assert.equal(signingString({ PayType: 0, PartnerId: 'P', Amount: '1.00' }), 'Amount=1.00&PartnerId=P&PayType=0');
  });
});

describe('provider states and kinds', () => {
  it('reads the providers\' words case-insensitively, unknown words as unknown', () => {
    assert.equal(providerState('Approved'), 'executed');
    assert.equal(providerState('DECLINED'), 'rejected');
    assert.equal(providerState('pending'), 'pending');
    assert.equal(providerState('maybe'), undefined);
    assert.equal(providerState(3), undefined);
  });

  it('serves the kind\'s methods unless the MID lists its own', () => {
    const kind = providerKind('pix-payin')!;
    assert.equal(servesMethod(kind, undefined, 'pix-payin'), true);
    assert.equal(servesMethod(kind, ['pix'], 'pix-payin'), false);
    assert.equal(providerKind('__proto__'), undefined);
  });
});

describe('sandbox deposit addresses', () => {
  it('BTC: bech32 segwit v0 when asked, legacy otherwise; BCH: a cash address when asked', () => {
    const btc = depositAddress('ref-1', 'BTC', { bech32: true }).address;
    const decoded = bech32.decode(btc);
    assert.equal(decoded.prefix, 'bc');
    assert.equal(decoded.words[0], 0);
    assert.match(depositAddress('ref-1', 'BTC', {}).address, /^1[1-9A-HJ-NP-Za-km-z]{25,34}$/);
    const bch = depositAddress('ref-1', 'BCH', { bech32: true }).address;
    assert.equal(cashaddr.decode(bch).prefix, 'bitcoincash');
    assert.match(depositAddress('ref-1', 'USDT', { network: 'tron' }).address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assert.match(depositAddress('ref-1', 'USDT', {}).address, /^0x[0-9a-f]{40}$/);
    assert.equal(depositAddress('ref-1', 'BTC', { bech32: true }).address, btc, 'the same payment gets the same address');
  });

  it('Pix copy-and-paste: EMV fields with their lengths', () => {
    const code = pixCopyAndPaste({ key: 'k1', merchantName: 'Shop', amount: '10.00', txid: 'abc-123' });
    assert.ok(code.startsWith('000201'));
    assert.match(code, /0014br\.gov\.bcb\.pix0102k1/);
    assert.match(code, /540510\.00/);
    assert.match(code, /62100506abc123/);
  });
});
