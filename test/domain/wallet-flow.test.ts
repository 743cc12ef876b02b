/**
 * The wallet flow rules of interface.md (domain/wallets/wallet-flow.ts) over every combination of the merchant's
 * decryption key and what its MIDs' connectors take: each rule stated on its own, the table must agree.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseWalletFlow, flowLimit, type WalletCapabilities } from '../../src/domain/wallets/wallet-flow.ts';

const capabilities = fc.array(fc.record({ walletTokens: fc.boolean(), decryptedWalletCards: fc.boolean() }), { maxLength: 5 });
const any = (cs: WalletCapabilities[], k: keyof WalletCapabilities) => cs.some((c) => c[k]);

describe('wallet flow rules', () => {
  it('rule 2: with the key and a connector taking decrypted cards, always decrypted (card stored, routing and cascading)', () => {
    fc.assert(fc.property(capabilities, (cs) => {
      const choice = chooseWalletFlow(true, cs);
      if (!any(cs, 'decryptedWalletCards')) return;
      assert.deepEqual(choice.ok && [choice.flow, choice.storesCard, choice.smartRouting], ['decrypted', true, true]);
    }));
  });

  it('rule 4: with the key, connectors taking tokens but no decrypted card: card stored, no routing or cascading', () => {
    fc.assert(fc.property(capabilities, (cs) => {
      if (any(cs, 'decryptedWalletCards') || !any(cs, 'walletTokens')) return;
      const choice = chooseWalletFlow(true, cs);
      assert.deepEqual(choice.ok && [choice.flow, choice.storesCard, choice.smartRouting, choice.needs], ['card_stored', true, false, 'walletTokens']);
    }));
  });

  it('rules 1 and 3: without the key the payment is virtual (no card stored) wherever a connector takes tokens', () => {
    fc.assert(fc.property(capabilities, (cs) => {
      const choice = chooseWalletFlow(false, cs);
      if (any(cs, 'walletTokens')) assert.deepEqual(choice.ok && [choice.flow, choice.storesCard, choice.smartRouting], ['virtual', false, false]);
      else assert.deepEqual(choice, { ok: false, reason: 'no_wallet_connector' });
    }));
  });

  it('a flow is only chosen when some MID\'s connector has the capability it needs', () => {
    fc.assert(fc.property(fc.boolean(), capabilities, (key, cs) => {
      const choice = chooseWalletFlow(key, cs);
      if (choice.ok) assert.ok(any(cs, choice.needs));
      else assert.ok(!any(cs, 'walletTokens') && !(key && any(cs, 'decryptedWalletCards')));
    }));
  });

  it('only the virtual flow limits DMS and recurring, each with its reason', () => {
    fc.assert(fc.property(fc.constantFrom('decrypted', 'card_stored', 'virtual') as fc.Arbitrary<'decrypted' | 'card_stored' | 'virtual'>, fc.boolean(), fc.boolean(), fc.boolean(), (flow, hold, recurring, cardToken) => {
      const limit = flowLimit(flow, { hold, recurring, cardToken });
      if (flow !== 'virtual' || (!hold && !recurring && !cardToken)) assert.equal(limit, undefined);
      else assert.equal(limit, hold ? 'virtual_hold_unavailable' : 'virtual_recurring_unavailable');
    }));
  });
});
