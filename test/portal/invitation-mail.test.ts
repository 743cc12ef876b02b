/**
 * A portal invitation's e-mail leaves after its transaction commits: a mail server that refuses it loses no
 * invitation (the user waits, the operator sends a new link, that one works), and an invitation whose transaction
 * rolls back (an unknown business, two invitations of one address at once) sends nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import type { MailMessage, MailPort } from '../../src/services/context.ts';
import { PORTAL_PASSWORD, invitationToken, portalSignIn, request } from './support.ts';

const ADMIN = 'portal-invitation-mail-admin-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: invitation e-mail after the commit (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    let outbox: MailPort;
    let refusing = false;
    const sent: MailMessage[] = [];

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      admin = adminClient(t.baseUrl, ADMIN);
      outbox = t.gateway.ctx.mail!;
      // The gateway's mail port, watched: every message handed to it recorded; refusing, it throws as a server would.
      t.gateway.ctx.mail = {
        async send(message) {
          sent.push(message);
          if (refusing) throw new Error('550 mailbox unavailable');
          await outbox.send(message);
        },
      };
    });
    after(async () => t?.close());

    const to = (email: string) => sent.filter((m) => m.to === email);

    it('a refused e-mail keeps the invited user: a new link goes out and works', async () => {
      const email = `refused-${kind}@shop.example`;
      refusing = true;
      const res = await admin('POST', '/admin/v1/merchant-users', { email, role: 'viewer', merchant_id: t.merchant.id });
      refusing = false;
      assert.equal(res.status, 502, res.text);
      assert.match(res.body.error_message, /e-mail server refused the invitation/);
      assert.equal(to(email).length, 1, 'the e-mail was handed to the server once');

      const team = await admin('GET', `/admin/v1/merchant-users?merchant_id=${t.merchant.id}`);
      const user = team.body.users.find((u: { email: string }) => u.email === email);
      assert.ok(user, 'the invited user was kept');
      assert.equal(user.has_password, false);

      const again = await admin('POST', `/admin/v1/merchant-users/${user.id}/invitation`);
      assert.equal(again.status, 200, again.text);
      assert.equal(to(email).length, 2);
      const token = await invitationToken(t.baseUrl, email);
      const accepted = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: PORTAL_PASSWORD } });
      assert.equal(accepted.status, 200, accepted.text);
      await portalSignIn(t.baseUrl, email);
    });

    it('an invitation rolled back sends nothing: an unknown business, and the loser of two at once', async () => {
      const nowhere = `nowhere-${kind}@shop.example`;
      const missing = await admin('POST', '/admin/v1/merchant-users', { email: nowhere, role: 'viewer', merchant_id: '00000000-0000-7000-8000-000000000000' });
      assert.equal(missing.status, 404, missing.text);
      assert.equal(to(nowhere).length, 0);

      const twice = `twice-${kind}@shop.example`;
      const answers = await Promise.all([1, 2].map(() => admin('POST', '/admin/v1/merchant-users', { email: twice, role: 'viewer', merchant_id: t.merchant.id })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 400], answers.map((a) => a.text).join('\n'));
      assert.equal(to(twice).length, 1, 'one e-mail, for the invitation that committed');
      const token = await invitationToken(t.baseUrl, twice);
      const accepted = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: PORTAL_PASSWORD } });
      assert.equal(accepted.status, 200, 'the e-mail sent is the committed invitation\'s');
    });
  });
}
