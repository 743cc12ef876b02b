/**
 * Our page for one native 3-D Secure 2 step (connectors/types.ts NativeThreeDs2Step): the 3DS Method in a hidden
 * frame, or the ACS's challenge in a visible one, then the result posted back to the payment's return URL
 * (threeDSCompInd, or transStatus) for the connector to send on. threeds2.js drives it; without JavaScript the
 * payer posts the step and the result with the buttons.
 */
import { attrs, html } from './html.ts';
import { EN, type Translator } from './i18n.ts';
import { CONTENT_SECURITY_POLICY, layout, safeUrl } from './pages.ts';
import type { NativeThreeDs2Step } from '../connectors/types.ts';

export interface ThreeDs2PageView {
  step: NativeThreeDs2Step;
  merchantName: string;
  amount: string;
  /** The merchant's order number and the payment's short reference (domain/ids.ts shortReference). */
  orderNumber?: string;
  reference?: string;
  /** Where the result goes (the payment's return URL). */
  resultUrl: string;
}

/** How long the 3DS Method may take before the page reports it did not complete (EMV: 10 seconds). */
const METHOD_TIMEOUT_MS = 10_000;

/** The page's policy: the hosted pages' one, with the ACS's origin allowed in a frame. */
export function threeDs2Csp(step: NativeThreeDs2Step): string {
  let origin: string | undefined;
  try {
    origin = step.url ? new URL(step.url).origin : undefined;
  } catch {
    origin = undefined;
  }
  return origin && /^https?:/.test(origin) ? `${CONTENT_SECURITY_POLICY}; frame-src ${origin}` : CONTENT_SECURITY_POLICY;
}

export function renderThreeDs2Page(vm: ThreeDs2PageView, t: Translator = EN): string {
  const { step } = vm;
  const method = step.kind === 'method';
  const resultField = method ? 'threeDSCompInd' : 'transStatus';
  const toAcs = step.url
    ? html`<form id="threeds2-step" method="post" action="${safeUrl(step.url)}" target="threeds2-frame" accept-charset="utf-8">
    <input${attrs({ type: 'hidden', name: step.field, value: step.value })}>
    <noscript><button type="submit" class="btn btn--secondary">${t.t('redirect.continue')}</button></noscript>
  </form>
  <iframe${attrs({ name: 'threeds2-frame', id: 'threeds2-frame', title: t.t('acs.pageTitle'), class: 'threeds2-frame', hidden: method, width: '100%', height: '600' })}></iframe>`
    : '';
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <h1 class="page-title">${t.t('acs.pageTitle')}</h1>
  <dl class="details">
    <div><dt>${t.t('details.merchant')}</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.amount}</dd></div>
    ${vm.orderNumber ? html`<div><dt>${t.t('details.order')}</dt><dd>${vm.orderNumber}</dd></div>` : ''}
    ${vm.reference ? html`<div><dt>${t.t('details.reference')}</dt><dd class="mono" dir="ltr">${vm.reference}</dd></div>` : ''}
  </dl>
  ${toAcs}
  <form id="threeds2-result" method="post" action="${safeUrl(vm.resultUrl)}" accept-charset="utf-8">
    <input${attrs({ type: 'hidden', id: 'threeds2-value', name: resultField, value: method && !step.url ? 'U' : '' })}>
    <button type="submit" class="btn btn--primary" id="threeds2-continue">${t.t('redirect.continue')}</button>
  </form>
</main>`;
  return layout({
    title: t.t('acs.pageTitle'),
    page: 'threeds2',
    main,
    t,
    scripts: ['/assets/threeds2.js'],
    config: { kind: step.kind, hasStep: step.url !== '', timeoutMs: METHOD_TIMEOUT_MS },
  });
}
