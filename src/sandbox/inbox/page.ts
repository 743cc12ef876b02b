/**
 * The sandbox merchant inbox's page: the callbacks received, newest first, each with what its checks found. A
 * developer's page, in English (like the demo shop). Pure render.
 */
import { html, type Raw } from '../../web/html.ts';
import { layout } from '../../web/pages.ts';
import { APM_STYLESHEET_URL } from '../../web/apm-pages.ts';
import type { Check, InboxEntry } from './inbox.ts';

export interface InboxPageView {
  entries: readonly InboxEntry[];
  /** The payer is back from the payment page (the inbox is the demo session's success and cancel URL). */
  returned?: { result: string; orderId?: string; paymentId?: string };
}

const checkText = (name: string, c: Check): Raw => c.result === 'verified'
  ? html`<span class="badge badge--ok" data-check="${name}" data-result="verified">${name} verified</span>`
  : html`<span class="badge badge--bad" data-check="${name}" data-result="${c.result}">${name} ${c.result === 'mismatch' ? 'does not verify' : 'not checked'}: ${c.reason}</span>`;

function entry(e: InboxEntry): Raw {
  return html`<li class="apm-message inbox-callback" data-seq="${String(e.seq)}" data-payment="${e.paymentId ?? ''}">
    <p class="apm-message-meta"><span class="badge">${e.protocol === 'checkout' ? 'Checkout' : e.protocol === 's2s' ? 'S2S' : 'callback'}</span> <time datetime="${e.receivedAt}">${e.receivedAt.replace('T', ' ').slice(0, 19)}</time>${e.merchant ? html` · ${e.merchant}` : ''}</p>
    <h2 class="apm-message-subject">${e.event ?? 'callback'}${e.status ? html`: ${e.status}` : ''}${e.orderId ? html` · order ${e.orderId}` : ''}</h2>
    <p class="inbox-checks">${checkText('hash', e.hash)} ${checkText('webhook-signature', e.signature)}</p>
    <details><summary>Fields</summary><dl class="details">${Object.entries(e.fields).map(([k, v]) => html`<div><dt class="mono">${k}</dt><dd class="mono small" dir="ltr">${v}</dd></div>`)}</dl></details>
  </li>`;
}

export function renderInboxPage(vm: InboxPageView): string {
  const back = vm.returned;
  const main = html`<main class="panel" id="main">
  <h1 class="page-title">Sandbox merchant inbox</h1>
  ${back ? html`<p class="lead" id="inbox-returned" data-result="${back.result}">The payer is back from the payment page (${back.result}${back.orderId ? html`, order ${back.orderId}` : ''}). The return proves nothing by itself: the callback below, its hash and webhook-signature verified, is what confirms the payment.</p>` : ''}
  <p class="lead">The demo merchant's notification URL and return URLs point here (development only). Each callback is checked as your code must check it: the <span class="mono">hash</span> with the merchant's password, the <span class="mono">webhook-signature</span> with its signing secret. As JSON: <a href="/sandbox/inbox/callbacks">/sandbox/inbox/callbacks</a>.</p>
  <p><a class="btn btn--secondary" href="/sandbox/inbox">Refresh</a></p>
  ${vm.entries.length === 0
    ? html`<p class="lead" id="inbox-empty">No callback yet. Callbacks arrive within seconds of a payment's change.</p>`
    : html`<ol class="apm-outbox" id="inbox">${vm.entries.map(entry)}</ol>`}
</main>`;
  return layout({ title: 'Sandbox merchant inbox', page: 'sandbox-inbox', main, styles: [APM_STYLESHEET_URL] });
}
