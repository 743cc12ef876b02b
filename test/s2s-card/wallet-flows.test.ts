/**
 * The five wallet flow rules end to end, over S2S CARD on both stores (issue 16): a Google Pay and an Apple Pay
 * token each in the virtual flow (no decryption key: the token goes to the connector as it is, no card stored) and
 * in the decrypted flow (the card vaulted, the cryptogram and ECI forwarded, captured in DMS, charged again on its
 * recurring chain); the card_stored flow of rule 4 on a connector that takes tokens but not decrypted cards; what
 * the merchant reads back (payment_method, checkout_payment_method, brand) in status answers and callbacks.
 * The sandbox connector is watched (a spy around its authorize) to see what each flow sends it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { CARD, EMAIL, f1, followUp, orderId, reversedIdHash, startListener, type Listener } from './support.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { WALLET_DECLINES } from '../../src/domain/wallets/token-result.ts';
import type { AuthorizeRequest, CardConnector, ConnectorOutcome, FollowUpOutcome } from '../../src/connectors/types.ts';
import { TOKEN_CARD, configureWallets, walletKit, walletSale, type WalletKit } from './wallet-support.ts';

const FIELDS = ['brand', 'payment_method', 'checkout_payment_method', 'card', '3ds'];

/** An acquirer that takes wallet tokens but not decrypted wallet cards (rule 4); every MID on it declines retryably when told to. */
class TokensOnlyConnector implements CardConnector {
  readonly name = 'tokens-only';
  readonly walletTokens = true;
  readonly decryptedWalletCards = false;
  readonly seen: AuthorizeRequest[] = [];
  async authorize(req: AuthorizeRequest, mid?: { settings: Readonly<Record<string, unknown>> }): Promise<ConnectorOutcome> {
    this.seen.push(req);
    if (mid?.settings.decline === true) return { kind: 'declined', reason: 'Declined by the issuer', error: { code: 'do_not_honor' } };
    return { kind: 'approved', reference: `tok_${this.seen.length}` };
  }
  async complete(): Promise<ConnectorOutcome> { return { kind: 'declined', reason: 'no challenge here' }; }
  async capture(): Promise<FollowUpOutcome> { return { kind: 'approved', reference: 'cap' }; }
  async refund(): Promise<FollowUpOutcome> { return { kind: 'approved', reference: 'ref' }; }
  async reverse(): Promise<FollowUpOutcome> { return { kind: 'approved', reference: 'rev' }; }
  async void(): Promise<FollowUpOutcome> { return { kind: 'approved', reference: 'void' }; }
  async inquire(): Promise<ConnectorOutcome | undefined> { return undefined; }
}

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S wallet flows (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let kit: WalletKit;
    let operator: string;
    let decrypting: TestMerchant;
    let virtual: TestMerchant;
    let listener: Listener;
    const seen: AuthorizeRequest[] = [];
    const tokensOnly = new TokensOnlyConnector();

    const status = (m: TestMerchant, transId: string) =>
      gw.postForm('/post', { action: 'GET_TRANS_STATUS', client_key: m.key, trans_id: transId, hash: reversedIdHash(transId, m.password) });
    const lastSeen = () => seen[seen.length - 1]!;

    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { adminToken: `admin-wallet-flows-${kind}`, workers: true, mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }] });
      const sandbox = gw.gateway.ctx.connectors.get('sandbox-card')!;
      const authorize = sandbox.authorize.bind(sandbox);
      sandbox.authorize = async (req, mid) => {
        seen.push(structuredClone(req));
        return authorize(req, mid);
      };
      (gw.gateway.ctx.connectors as Map<string, CardConnector>).set(tokensOnly.name, tokensOnly);
      kit = await walletKit(gw);
      operator = await tokenFor(gw, 'operator');
      decrypting = gw.merchant;
      virtual = await gw.addMerchant({ notificationUrl: listener.url, mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }] });
      await configureWallets(gw, operator, decrypting.id, kit, true);
      await configureWallets(gw, operator, virtual.id, kit, false);
      for (const m of [decrypting, virtual]) {
        const res = await adminCall(gw.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, operator, { callback_fields: FIELDS, status_fields: FIELDS });
        assert.equal(res.status, 200, res.text);
      }
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    for (const wallet of ['googlepay', 'applepay'] as const) {
      const token = () => (wallet === 'googlepay' ? Promise.resolve(kit.googleToken()) : kit.appleToken());

      it(`${wallet}, virtual flow: the token goes to the connector as it is, no card is stored, brand payment_document_virtual`, async () => {
        const sent = await token();
        const res = await walletSale(gw, virtual, wallet, sent);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.result, 'SUCCESS', res.text);
        assert.equal(res.body.status, 'SETTLED');
        assert.equal(lastSeen().wallet?.token, sent, 'the token as the merchant sent it');
        assert.equal(lastSeen().card.pan, '', 'no card: only the acquirer can open the token');
        const payment = await getPayment(gw.store.db, res.body.trans_id);
        assert.deepEqual(payment?.details.wallet, { name: wallet, flow: 'virtual' });
        assert.equal(payment?.vaultId, null);
        assert.equal(payment?.details.cardMask, undefined);
        const answer = await status(virtual, res.body.trans_id);
        assert.equal(answer.body.status, 'SETTLED', answer.text);
        assert.equal(answer.body.payment_method, wallet);
        assert.equal(answer.body.checkout_payment_method, wallet);
        assert.equal(answer.body.brand, 'payment_document_virtual');
        assert.equal(answer.body.card, undefined);
        const callback = await waitForCallback(listener, res.body.trans_id);
        assert.equal(callback.fields.payment_method, wallet);
        assert.equal(callback.fields.checkout_payment_method, wallet);
        assert.equal(callback.fields.brand, 'payment_document_virtual');
      });

      it(`${wallet}, decrypted flow: the card is vaulted, its cryptogram and ECI go to the connector, brand payment_document_card`, async () => {
        const res = await walletSale(gw, decrypting, wallet, await token());
        assert.equal(res.body.result, 'SUCCESS', res.text);
        const request = lastSeen();
        assert.equal(request.card.pan, CARD);
        assert.equal(request.wallet?.cryptogram, TOKEN_CARD.cryptogram);
        assert.equal(request.wallet?.eci, TOKEN_CARD.eci);
        assert.equal(request.wallet?.token, undefined, 'the decrypted card, not the token');
        const answer = await status(decrypting, res.body.trans_id);
        assert.equal(answer.body.payment_method, wallet);
        assert.equal(answer.body.checkout_payment_method, wallet);
        assert.equal(answer.body.brand, 'payment_document_card');
        assert.equal(answer.body.card, '411111****1111');
        assert.equal(answer.body.eci, TOKEN_CARD.eci, 'the ECI the token carried is the one the sandbox reports');
        const payment = await getPayment(gw.store.db, res.body.trans_id);
        assert.equal(payment?.details.wallet?.flow, 'decrypted');
        assert.ok(payment?.vaultId);
      });

      it(`${wallet}, decrypted flow: held with auth=Y, captured, and charged again on the stored card (recurring)`, async () => {
        const held = await walletSale(gw, decrypting, wallet, await token(), { auth: 'Y', recurring_init: 'Y' });
        assert.equal(held.body.result, 'SUCCESS', held.text);
        assert.equal(held.body.status, 'PENDING');
        assert.ok(held.body.recurring_token, held.text);
        const captured = await followUp(gw, 'CAPTURE', held.body.trans_id, {}, decrypting);
        assert.equal(captured.body.result, 'SUCCESS', captured.text);
        assert.equal(captured.body.status, 'SETTLED');
        const again = await gw.postForm('/post', {
          action: 'RECURRING_SALE', client_key: decrypting.key, order_id: orderId('REC'), order_amount: '3.10', order_description: 'Next month',
          recurring_first_trans_id: held.body.trans_id, recurring_token: held.body.recurring_token, hash: f1(EMAIL, decrypting.password, CARD),
        });
        assert.equal(again.body.result, 'SUCCESS', again.text);
        assert.equal(again.body.amount, '3.10');
        assert.equal(lastSeen().wallet, undefined, 'a charge on the stored card is a card payment');
        assert.equal(lastSeen().card.pan, CARD);
      });

      it(`${wallet}, virtual flow: a hold and a recurring chain are declined with their reasons (no card to keep)`, async () => {
        const hold = await walletSale(gw, virtual, wallet, await token(), { auth: 'Y' });
        assert.equal(hold.status, 200, hold.text);
        assert.equal(hold.body.result, 'DECLINED', hold.text);
        assert.equal(hold.body.decline_reason, WALLET_DECLINES.virtual_hold_unavailable);
        const chain = await walletSale(gw, virtual, wallet, await token(), { recurring_init: 'Y' });
        assert.equal(chain.body.decline_reason, WALLET_DECLINES.virtual_recurring_unavailable);
      });
    }

    it('virtual flow: a settled payment is refunded by the acquirer\'s reference (no card needed)', async () => {
      const res = await walletSale(gw, virtual, 'googlepay', kit.googleToken());
      assert.equal(res.body.result, 'SUCCESS', res.text);
      const refund = await gw.postForm('/post', { action: 'CREDITVOID', client_key: virtual.key, trans_id: res.body.trans_id, hash: reversedIdHash(res.body.trans_id, virtual.password) });
      assert.equal(refund.body.result, 'ACCEPTED', refund.text);
      const answer = await status(virtual, res.body.trans_id);
      assert.equal(answer.body.status, 'REFUND', answer.text);
    });

    it('virtual flow: a token sent twice is declined the second time (remembered by its hash)', async () => {
      const sent = kit.googleToken();
      assert.equal((await walletSale(gw, virtual, 'googlepay', sent)).body.result, 'SUCCESS');
      const again = await walletSale(gw, virtual, 'googlepay', sent);
      assert.equal(again.body.result, 'DECLINED', again.text);
      assert.equal(again.body.decline_reason, WALLET_DECLINES.token_replayed);
    });

    it('card_stored flow (rule 4): a connector taking tokens but not decrypted cards gets the token, the card is stored, no cascading', async () => {
      const m = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS', connector: 'tokens-only' }, { paymentMode: 'SMS/DMS', connector: 'tokens-only' }] });
      await configureWallets(gw, operator, m.id, kit, true);
      const sent = kit.googleToken();
      const res = await walletSale(gw, m, 'googlepay', sent);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      const request = tokensOnly.seen[tokensOnly.seen.length - 1]!;
      assert.equal(request.wallet?.token, sent);
      assert.equal(request.wallet?.cryptogram, TOKEN_CARD.cryptogram, 'what was decrypted goes with it');
      const payment = await getPayment(gw.store.db, res.body.trans_id);
      assert.equal(payment?.details.wallet?.flow, 'card_stored');
      assert.equal(payment?.details.cardMask, '411111****1111', 'the card is stored and shown masked');
      assert.ok(payment?.vaultId);
      // Both MIDs decline retryably: a decrypted payment would cascade to the second, this one stays on its first.
      const declining = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS', connector: 'tokens-only', settings: { decline: true } }, { paymentMode: 'SMS/DMS', connector: 'tokens-only', settings: { decline: true } }] });
      await configureWallets(gw, operator, declining.id, kit, true);
      const before = tokensOnly.seen.length;
      const declined = await walletSale(gw, declining, 'googlepay', kit.googleToken());
      assert.equal(declined.body.result, 'DECLINED', declined.text);
      assert.equal(tokensOnly.seen.length - before, 1, 'one attempt: no cascading');
    });

    it('a refused token asks no connector and does not cascade, whatever the merchant\'s MIDs', async () => {
      const m = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS' }, { paymentMode: 'SMS/DMS' }] });
      await configureWallets(gw, operator, m.id, kit, true);
      const before = seen.length;
      const res = await walletSale(gw, m, 'googlepay', kit.googleToken({ tamper: 'ciphertext' }));
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal(seen.length, before, 'no connector call');
      const payment = await getPayment(gw.store.db, res.body.trans_id);
      assert.ok(payment, 'the refused payment is recorded');
      assert.deepEqual(await gw.store.db.query('SELECT id FROM payment_attempts WHERE payment_id = $1', [payment.id]), [], 'no attempt recorded: nothing was tried');
    });

    it('a merchant whose MIDs take no wallet payment at all is declined with the reason', async () => {
      const m = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco' }] });
      await configureWallets(gw, operator, m.id, kit, false);
      const res = await walletSale(gw, m, 'googlepay', kit.googleToken());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal(res.body.decline_reason, WALLET_DECLINES.no_wallet_connector);
    });
  });
}

/** The callback of one payment, once the dispatcher delivered it. */
async function waitForCallback(listener: Listener, transId: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = listener.received.find((r) => r.fields.trans_id === transId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no callback for ${transId}`);
}
