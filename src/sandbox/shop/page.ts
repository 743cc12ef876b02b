/**
 * The sandbox demo shop (`/sandbox/shop`): what a merchant developer sees working before writing a line — the
 * hosted payment page inside the shop's iframe (with the url_target the developer picks, so the Continue button
 * of a target that must leave the frame shows), and the hosted payment fields. Pure render, no I/O.
 */
import { attrs, html } from '../../web/html.ts';
import { ICONS, layout, safeUrl } from '../../web/pages.ts';
import { EN, type Translator } from '../../web/i18n.ts';

export interface ShopPageView {
  merchantName: string;
  merchantKey: string;
  /** The hosted page's redirect_url, shown in the iframe. */
  frameUrl: string;
  target: string;
  /** The hosted-fields session token (the session id of a hosted-fields session). */
  fieldsToken: string;
  amount: string;
}

const TARGETS = ['_self', '_parent', '_top', '_blank'] as const;

export function renderShopPage(vm: ShopPageView, t: Translator = EN): string {
  const main = html`<main class="panel shop" id="main">
  <h1 class="page-title">Demo shop · ${vm.merchantName}</h1>
  <p class="lead">A merchant's page on the sandbox: the hosted payment page in an iframe, and the hosted payment fields. Pay with 4111 1111 1111 1111 (expiry month 01 pays, 02 declines, 05 asks 3-D Secure).</p>
  <section aria-labelledby="shop-frame-title" class="shop-section">
    <h2 class="section-title" id="shop-frame-title">Hosted payment page in an iframe</h2>
    <p class="hint">url_target <strong>${vm.target}</strong>: where the payer goes when the payment ends. A target that must leave the frame shows a Continue button when the frame cannot reach it (another origin).</p>
    <ul class="shop-targets">${TARGETS.map((target) => html`<li><a${attrs({ href: `/sandbox/shop?merchant_key=${encodeURIComponent(vm.merchantKey)}&target=${target}`, 'aria-current': target === vm.target ? 'true' : undefined })}>${target}</a></li>`)}</ul>
    <iframe class="shop-frame" id="shop-frame" title="Hosted payment page" src="${safeUrl(vm.frameUrl)}"></iframe>
  </section>
  <section aria-labelledby="shop-fields-title" class="shop-section">
    <h2 class="section-title" id="shop-fields-title">Hosted payment fields</h2>
    <p class="hint">Each field is a frame of the gateway: the card never reaches the shop's page.</p>
    <form id="shop-fields-form" class="pay-form">
      <div class="field"><label for="shop-name">Name on card</label><div class="control"><input id="shop-name" name="name" type="text" value="Jane Roe" autocomplete="cc-name"></div></div>
      <div class="field"><p class="shop-label" id="shop-card-label">Card number</p><div id="shop-card" class="shop-box" aria-labelledby="shop-card-label"></div></div>
      <div class="row">
        <div class="field"><p class="shop-label" id="shop-expiry-label">Expiry date</p><div id="shop-expiry" class="shop-box" aria-labelledby="shop-expiry-label"></div></div>
        <div class="field"><p class="shop-label" id="shop-cvv-label">Security code</p><div id="shop-cvv" class="shop-box" aria-labelledby="shop-cvv-label"></div></div>
      </div>
      <button type="button" class="btn btn--primary btn--pay" id="shop-pay" disabled>${ICONS.lock()}<span class="btn-label">${t.t('button.pay', { amount: vm.amount })}</span></button>
      <p class="apm-status" id="shop-result" role="status" aria-live="polite"></p>
    </form>
  </section>
</main>`;
  return layout({
    title: `Demo shop · ${vm.merchantName}`,
    page: 'sandbox-shop',
    main,
    t,
    scripts: ['/sdk/hosted-fields.js', '/assets/shop.js'],
    config: { token: vm.fieldsToken },
  });
}
