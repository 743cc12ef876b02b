/**
 * The alternative-method pages, rendered from apm-views.ts models with the hosted pages' layout: no I/O, no
 * clock, every value escaped, no inline script or style (CSP). The waiting pages poll a JSON status endpoint
 * through /assets/apm.js and move on by themselves; without JavaScript a "Check the payment status" link does
 * the same, and every form is a plain POST.
 */
import { attrs, html, raw, type Raw } from './html.ts';
import { field, hiddenFields, ICONS, initials, layout, providerHeader, safeUrl } from './pages.ts';
import type {
  ApmCodePageView, ApmExpiredPageView, ApmFieldView, ApmFieldsPageView, ApmWaitPageView, OrderView, SandboxDevicePageView, SandboxOutboxPageView,
} from './apm-views.ts';

export type * from './apm-views.ts';

export const APM_SCRIPT_URL = '/assets/apm.js';
export const APM_STYLESHEET_URL = '/assets/apm.css';
const EXTRAS = { styles: [APM_STYLESHEET_URL], scripts: [APM_SCRIPT_URL] };

function summary(order: OrderView): Raw {
  return html`<section class="summary" aria-label="Order summary">
    <div class="merchant"><span class="merchant-badge" aria-hidden="true">${initials(order.merchantName)}</span><h1 class="merchant-name">${order.merchantName}</h1></div>
    <p class="amount-label">Pay</p>
    <p class="amount"><span class="amount-value">${order.amount}</span> <span class="amount-currency">${order.currency}</span></p>
    ${order.description ? html`<p class="description">${order.description}</p>` : ''}
    <dl class="order-meta"><div><dt>Order</dt><dd>${order.number}</dd></div></dl>
  </section>`;
}

function sandboxNote(links: readonly { href: string; label: string }[] | undefined, text: string): Raw {
  if (!links || links.length === 0) return raw('');
  return html`<aside class="sandbox" aria-label="Sandbox">${ICONS.flask()}<div><p><strong>Sandbox:</strong> ${text}</p>
    <ul class="apm-sandbox-links">${links.map((l) => html`<li><a href="${safeUrl(l.href)}" target="_blank" rel="noopener">${l.label}</a></li>`)}</ul></div></aside>`;
}

/** Below the main action: back to the method choice (Checkout) or cancel the payment (S2S). */
function leaveActions(back: { href: string; label: string } | undefined, cancelUrl: string | undefined): Raw {
  return html`${back ? html`<p class="cancel"><a href="${safeUrl(back.href)}" id="apm-back">${back.label}</a></p>` : ''}
  ${cancelUrl ? html`<form method="post" action="${safeUrl(cancelUrl)}" class="apm-cancel" data-once><button type="submit" class="btn btn--secondary" id="apm-cancel">Cancel payment</button></form>` : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// Fields the request lacked

const FIELD_INPUTS: Readonly<Record<ApmFieldView['kind'], Record<string, string>>> = {
  text: { type: 'text', autocomplete: 'off', spellcheck: 'false' },
  email: { type: 'email', autocomplete: 'email', inputmode: 'email', spellcheck: 'false' },
  tel: { type: 'tel', autocomplete: 'tel', inputmode: 'tel' },
  country: { autocomplete: 'country' },
  select: {},
};

function countryList(codes: readonly string[], countries: ApmFieldsPageView['countries']): string {
  const names = codes.map((c) => countries.find((x) => x.code === c)?.name ?? c);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function apmField(f: ApmFieldView, vm: ApmFieldsPageView): Raw {
  const conditional = f.requiredIn !== undefined || f.exemptIn !== undefined;
  const hint = f.hint ?? (f.requiredIn ? `Needed only for ${countryList(f.requiredIn, vm.countries)}.` : f.exemptIn ? `Not needed for ${countryList(f.exemptIn, vm.countries)}.` : undefined);
  const options = f.kind === 'country'
    ? [{ value: '', label: 'Select a country' }, ...vm.countries.map((c) => ({ value: c.code, label: c.name }))]
    : f.kind === 'select' ? [{ value: '', label: `Select ${f.label.toLowerCase()}` }, ...(f.options ?? []).map((o) => ({ value: o, label: o }))] : undefined;
  return field({
    name: f.name,
    label: f.label,
    optional: f.optional,
    value: vm.values[f.name],
    error: vm.errors[f.name],
    hint,
    options,
    wrap: {
      'data-required-in': f.requiredIn?.join(' '),
      'data-exempt-in': f.exemptIn?.join(' '),
      'data-hint-conditional': conditional && !f.hint ? true : undefined,
    },
    input: {
      ...FIELD_INPUTS[f.kind],
      required: conditional || f.optional ? undefined : true,
      maxlength: f.maxLength,
      minlength: f.minLength,
      inputmode: f.numeric ? 'numeric' : FIELD_INPUTS[f.kind].inputmode,
    },
  });
}

function errorList(errors: Record<string, string>, fields: readonly ApmFieldView[]): Raw {
  const entries = fields.filter((f) => errors[f.name]).map((f) => html`<li><a href="#${f.name}">${f.label}: ${errors[f.name]}</a></li>`);
  const formError = errors[''];
  if (entries.length === 0 && formError === undefined) return raw('');
  return html`<div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
    ${ICONS.alert()}<div><h2 class="error-summary-title" id="error-summary-title">${formError ?? 'Check the highlighted details'}</h2>
    <ul class="error-summary-list">${entries}</ul></div></div>`;
}

export function renderApmFieldsPage(vm: ApmFieldsPageView): string {
  const main = html`<main class="panel" id="main">
  ${vm.sandbox ? html`<div class="sandbox" role="note">${ICONS.flask()}<p><strong>Sandbox:</strong> the payer's e-mail decides: success@gmail.com is paid, fail@gmail.com is declined.</p></div>` : ''}
  ${summary(vm.order)}
  <form class="pay-form" id="apm-fields-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    <h2 class="section-title">${vm.methodLabel}</h2>
    <p class="panel-intro">${ICONS.info()}<span>${vm.methodLabel} needs a few details to continue.</span></p>
    ${errorList(vm.errors, vm.fields)}
    ${vm.fields.map((f) => apmField(f, vm))}
    <button type="submit" class="btn btn--primary btn--pay" id="apm-continue"><span class="btn-label">Continue</span></button>
  </form>
  ${leaveActions(vm.back, vm.cancelUrl)}
</main>`;
  return layout({ title: `${vm.methodLabel} · ${vm.order.merchantName}`, page: 'apm-fields', main, config: { focusErrors: Object.keys(vm.errors).length > 0 }, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// Waiting for the payer elsewhere: QR code, payment details, app, link, processing

const WAIT_TITLES: Readonly<Record<ApmWaitPageView['kind'], string>> = {
  qr: 'Scan the QR code to pay',
  details: 'Make the payment with these details',
  app: 'Confirm the payment in your app',
  link: 'Open the link we sent you',
  processing: 'Your payment is being processed',
};

function waitBody(vm: ApmWaitPageView): Raw {
  switch (vm.kind) {
    case 'qr':
      return html`<figure class="apm-qr">
        <img${attrs({ src: vm.qr?.image ?? '', alt: `QR code to pay ${vm.order.amount} ${vm.order.currency} to ${vm.order.merchantName}, order ${vm.order.number}`, width: 240, height: 240, id: 'apm-qr-image' })}>
        <figcaption>Scan it with your banking app (${vm.methodLabel}).</figcaption>
      </figure>
      <dl class="details"><div><dt>Order</dt><dd>${vm.order.number}</dd></div><div><dt>Amount</dt><dd class="strong">${vm.order.amount} ${vm.order.currency}</dd></div>${vm.order.description ? html`<div><dt>Description</dt><dd>${vm.order.description}</dd></div>` : ''}</dl>
      <p class="countdown" id="qr-countdown">${ICONS.clock()}<span>The code is valid until <time id="qr-time" datetime="${vm.qr?.expiresAt ?? ''}">${clockTime(vm.qr?.expiresAt)}</time></span></p>`;
    case 'details':
      return html`<dl class="details" id="apm-details">${(vm.details ?? []).map((d) => html`<div><dt>${d.label}</dt><dd class="mono">${d.value}</dd></div>`)}</dl>
      <p class="lead">Transfer exactly this amount with the payment reference. This page updates itself when the payment arrives.</p>`;
    case 'app':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">We sent a payment request to <strong>${vm.sentTo ?? ''}</strong>. Open your ${vm.methodLabel} app and confirm it; this page updates itself.</p>`;
    case 'link':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">We sent a payment link ${vm.channel === 'sms' ? 'by SMS' : 'by e-mail'} to <strong>${vm.sentTo ?? ''}</strong>. Open it to pay; this page updates itself.</p>`;
    case 'processing':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">We are waiting for the answer. You may close this page; the merchant will be notified of the result.</p>`;
  }
}

/** hh:mm:ss UTC of an ISO instant, for the no-JavaScript reading of a deadline. */
function clockTime(iso: string | undefined): string {
  const t = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(11, 19)} UTC` : '';
}

export function renderApmWaitPage(vm: ApmWaitPageView): string {
  const main = html`<main class="panel" id="main">
  ${summary(vm.order)}
  <section class="apm-wait" aria-labelledby="wait-title">
    <h2 class="section-title" id="wait-title">${WAIT_TITLES[vm.kind]}</h2>
    ${waitBody(vm)}
    <p class="apm-status" id="apm-status" role="status" aria-live="polite">Waiting for the payment…</p>
    <p><a class="btn btn--secondary" id="apm-check" href="${safeUrl(vm.pageUrl)}">Check the payment status</a></p>
  </section>
  ${leaveActions(vm.back, vm.cancelUrl)}
  ${sandboxNote(vm.sandboxLinks, 'act as the payer with the links below.')}
</main>`;
  return layout({
    title: `${WAIT_TITLES[vm.kind]} · ${vm.order.merchantName}`,
    page: `apm-wait-${vm.kind}`,
    main,
    config: { statusUrl: safeUrl(vm.statusUrl), pageUrl: safeUrl(vm.pageUrl), serverNow: vm.now, expiresAt: vm.qr?.expiresAt ?? null, pollMs: 2000 },
    ...EXTRAS,
  });
}

// ---------------------------------------------------------------------------------------------------
// One-time code

export function renderApmCodePage(vm: ApmCodePageView): string {
  const main = html`<main class="panel" id="main">
  ${summary(vm.order)}
  <form class="pay-form" id="apm-code-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    <h2 class="section-title">Enter the code we sent you</h2>
    <p class="panel-intro">${ICONS.info()}<span>We sent a one-time code to <strong>${vm.sentTo}</strong>.</span></p>
    ${field({
      name: 'code',
      label: 'One-time code',
      error: vm.error,
      input: { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 12, required: true, spellcheck: 'false', autofocus: true, pattern: '[0-9 ]{4,12}' },
    })}
    <button type="submit" class="btn btn--primary btn--pay" id="apm-pay"><span class="btn-label">Pay ${vm.order.amount} ${vm.order.currency}</span></button>
  </form>
  ${leaveActions(vm.back, vm.cancelUrl)}
  ${sandboxNote(vm.sandboxLinks, 'read the code in the outbox.')}
</main>`;
  return layout({ title: `Enter your code · ${vm.order.merchantName}`, page: 'apm-code', main, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// QR code expired (Checkout)

export function renderApmExpiredPage(vm: ApmExpiredPageView): string {
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <div class="status-icon status-icon--error">${ICONS.clock()}</div>
  <h1 class="page-title">The QR code has expired</h1>
  <p class="lead">It was not paid in time, so nothing was charged for order ${vm.order.number} (${vm.order.amount} ${vm.order.currency}).</p>
  ${vm.retry ? html`<form method="post" action="${safeUrl(vm.retry.actionUrl)}" accept-charset="utf-8" data-once>${hiddenFields({ method: vm.retry.method })}
    <button type="submit" class="btn btn--primary" id="apm-new-code">Show a new QR code</button></form>` : ''}
  <p class="cancel"><a href="${safeUrl(vm.leaveUrl)}" id="apm-leave">Return to the merchant</a></p>
</main>`;
  return layout({ title: `QR code expired · ${vm.order.merchantName}`, page: 'apm-expired', main, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// Sandbox provider: the payer's app or bank, and the outbox

export function renderSandboxDevicePage(vm: SandboxDevicePageView): string {
  const main = html`<main class="panel panel--provider" id="main">
  ${providerHeader(vm.appName)}
  <h1 class="page-title">${vm.heading}</h1>
  <dl class="details">
    <div><dt>Merchant</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>Amount</dt><dd class="strong">${vm.amount} ${vm.currency}</dd></div>
    ${vm.description ? html`<div><dt>Description</dt><dd>${vm.description}</dd></div>` : ''}
    ${(vm.lines ?? []).map((l) => html`<div><dt>${l.label}</dt><dd class="mono small">${l.value}</dd></div>`)}
  </dl>
  <form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="approve">${vm.approveLabel}</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="decline">${vm.declineLabel}</button>
    </div>
  </form>
</main>`;
  return layout({ title: `${vm.appName} · ${vm.merchantName}`, page: 'sandbox-device', main, ...EXTRAS });
}

export function renderSandboxOutboxPage(vm: SandboxOutboxPageView): string {
  const list = vm.messages.length === 0
    ? html`<p class="lead" id="outbox-empty">${vm.recipient ? 'No messages for this address yet.' : 'Enter an e-mail address or phone number to read its messages.'}</p>`
    : html`<ol class="apm-outbox" id="outbox">${vm.messages.map((m) => html`<li class="apm-message" data-channel="${m.channel}">
        <p class="apm-message-meta"><span class="badge">${m.channel === 'email' ? 'E-mail' : m.channel === 'sms' ? 'SMS' : 'App notification'}</span> to <span class="mono">${m.recipient}</span> · <time datetime="${m.date}">${m.date.replace('T', ' ').slice(0, 19)}</time></p>
        <h2 class="apm-message-subject">${m.subject}</h2>
        <p>${m.body}</p>
        ${m.link ? html`<p><a class="apm-message-link" href="${safeUrl(m.link)}">${m.channel === 'push' ? 'Open in the app' : 'Open the link'}</a></p>` : ''}
      </li>`)}</ol>`;
  const main = html`<main class="panel" id="main">
  <h1 class="page-title">Sandbox outbox</h1>
  <p class="lead">E-mails, SMS and app notifications the sandbox provider sent. Nothing leaves the gateway.</p>
  <form method="get" action="/sandbox/outbox" class="apm-outbox-form">
    ${field({ name: 'to', label: 'E-mail address or phone number', value: vm.recipient, input: { type: 'text', autocomplete: 'off', spellcheck: 'false', maxlength: 255, required: true } })}
    <button type="submit" class="btn btn--secondary">Show messages</button>
  </form>
  ${list}
</main>`;
  return layout({ title: 'Sandbox outbox', page: 'sandbox-outbox', main, ...EXTRAS });
}
