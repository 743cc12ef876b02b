/**
 * Our native 3-D Secure 2 page as rendered HTML: every value escaped, only the page's own script, the ACS's address
 * made safe, and a frame policy naming only the ACS's own origin.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderThreeDs2Page, threeDs2Csp } from '../../src/web/threeds2-page.ts';
import { ASSETS } from '../../src/web/assets.ts';

const EVIL = `"><script>alert(1)</script><b onmouseover=alert(2)>'\``;

describe('native 3-D Secure 2 page', () => {
  it('escapes every value and loads only its own script', () => {
    const page = renderThreeDs2Page({ step: { kind: 'challenge', url: `https://acs.example/c?x=${EVIL}`, field: 'creq', value: EVIL }, merchantName: EVIL, amount: EVIL, resultUrl: '/connectors/return/p1' });
    assert.ok(!page.includes('<script>alert'));
    assert.ok(!page.includes('<b '));
    const scripts = [...page.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    for (const s of scripts) assert.match(s, /src="\/assets\/(checkout|threeds2)\.js"|type="application\/json"/);
    assert.ok(ASSETS['threeds2.js'], 'the script is served');
    assert.match(page, /<form id="threeds2-step" method="post" action="https:\/\/acs\.example\/c\?x=[^"]*" target="threeds2-frame"/);
    assert.match(page, /name="transStatus" value=""/);
  });

  it('never frames or posts to a javascript: address; the policy names the ACS origin only', () => {
    const page = renderThreeDs2Page({ step: { kind: 'challenge', url: 'javascript:alert(1)', field: 'creq', value: 'x' }, merchantName: 'Shop', amount: '1', resultUrl: '/connectors/return/p1' });
    assert.ok(!page.includes('action="javascript:'));
    assert.equal(threeDs2Csp({ kind: 'challenge', url: 'javascript:alert(1)', field: 'creq', value: 'x' }).includes('frame-src'), false);
    assert.match(threeDs2Csp({ kind: 'method', url: 'https://acs.example:8443/method?a=b', field: 'threeDSMethodData', value: 'x' }), /; frame-src https:\/\/acs\.example:8443$/);
  });

  it('a method step without a method URL reports U and frames nothing', () => {
    const page = renderThreeDs2Page({ step: { kind: 'method', url: '', field: 'threeDSMethodData', value: 'x' }, merchantName: 'Shop', amount: '1', resultUrl: '/connectors/return/p1' });
    assert.ok(!page.includes('<iframe'));
    assert.match(page, /name="threeDSCompInd" value="U"/);
  });
});
