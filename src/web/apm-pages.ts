/**
 * The alternative-method pages, rendered from apm-views.ts models with the hosted pages' layout: no I/O, no
 * clock, every value escaped, no inline script or style (CSP). The waiting pages poll a JSON status endpoint
 * through /assets/apm.js and move on by themselves; without JavaScript a "Check the payment status" link does
 * the same, and every form is a plain POST.
 */
import { attrs, html, raw, type Raw } from './html.ts';
import { decisionForm, field, footerWith, hiddenFields, ICONS, initials, layout, providerHeader, safeUrl, summaryTitle } from './pages.ts';
import { EN, clientMessages, type Translator } from './i18n.ts';
import type {
  ApmCodePageView, ApmExpiredPageView, ApmFieldView, ApmFieldsPageView, ApmWaitPageView, OrderView, SandboxClaimPageView, SandboxDevicePageView, SandboxOutboxPageView,
} from './apm-views.ts';

export type * from './apm-views.ts';

export const APM_SCRIPT_URL = '/assets/apm.js';
export const APM_STYLESHEET_URL = '/assets/apm.css';
const EXTRAS = { styles: [APM_STYLESHEET_URL], scripts: [APM_SCRIPT_URL] };
/** How often a waiting page asks the gateway whether the payment moved on (assets/apm.js). */
export const APM_POLL_MS = 2000;

function summary(order: OrderView, t: Translator): Raw {
  return html`<section class="summary" aria-label="${t.t('summary.order')}">
    <div class="merchant"><span class="merchant-badge" aria-hidden="true">${initials(order.merchantName)}</span><h1 class="merchant-name">${order.merchantName}</h1></div>
    <p class="amount-label">${t.t(order.payout ? 'amount.payoutFrom' : 'amount.pay')}</p>
    <p class="amount"><span class="amount-value">${order.amount}</span></p>
    ${order.description ? html`<p class="description">${order.description}</p>` : ''}
    <dl class="order-meta"><div><dt>${t.t('order.number')}</dt><dd>${order.number}</dd></div></dl>
  </section>`;
}

function sandboxNote(t: Translator, links: readonly { href: string; label: string }[] | undefined, text: string): Raw {
  if (!links || links.length === 0) return raw('');
  return html`<aside class="sandbox" aria-label="${t.t('sandbox.name')}">${ICONS.flask()}<div><p><strong>${t.t('sandbox.label')}</strong> ${text}</p>
    <ul class="apm-sandbox-links">${links.map((l) => html`<li><a href="${safeUrl(l.href)}" target="_blank" rel="noopener">${l.label}</a></li>`)}</ul></div></aside>`;
}

/** Below the main action: back to the method choice (Checkout) or cancel the payment (S2S). */
function leaveActions(t: Translator, back: { href: string; label: string } | undefined, cancelUrl: string | undefined): Raw {
  return html`${back ? html`<p class="cancel"><a href="${safeUrl(back.href)}" id="apm-back">${back.label}</a></p>` : ''}
  ${cancelUrl ? html`<form method="post" action="${safeUrl(cancelUrl)}" class="apm-cancel" data-once><button type="submit" class="btn btn--secondary" id="apm-cancel">${t.t('apm.cancel')}</button></form>` : ''}`;
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

function countryList(t: Translator, codes: readonly string[]): string {
  return new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(codes.map((c) => t.country(c)));
}

function apmField(f: ApmFieldView, vm: ApmFieldsPageView, t: Translator): Raw {
  const conditional = f.requiredIn !== undefined || f.exemptIn !== undefined;
  const hint = f.hint ?? (f.requiredIn ? t.t('apm.neededFor', { countries: countryList(t, f.requiredIn) }) : f.exemptIn ? t.t('apm.notNeededFor', { countries: countryList(t, f.exemptIn) }) : undefined);
  const options = f.kind === 'country'
    ? [{ value: '', label: t.t('billing.selectCountry') }, ...vm.countries.map((c) => ({ value: c.code, label: c.name }))]
    : f.kind === 'select' ? [{ value: '', label: t.t('apm.selectOne') }, ...(f.options ?? []).map((o) => ({ value: o, label: o }))] : undefined;
  return field({
    name: f.name,
    label: f.label,
    optional: f.optional,
    t,
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

function errorList(t: Translator, errors: Record<string, string>, fields: readonly ApmFieldView[]): Raw {
  const entries = fields.filter((f) => errors[f.name]).map((f) => html`<li><a href="#${f.name}">${f.label}: ${errors[f.name]}</a></li>`);
  const formError = errors[''];
  if (entries.length === 0 && formError === undefined) return raw('');
  return html`<div class="error-summary" id="error-summary" role="alert" tabindex="-1" aria-labelledby="error-summary-title">
    ${ICONS.alert()}<div><h2 class="error-summary-title" id="error-summary-title">${formError ?? summaryTitle(t, entries.length)}</h2>
    <ul class="error-summary-list">${entries}</ul></div></div>`;
}

export function renderApmFieldsPage(vm: ApmFieldsPageView, t: Translator = EN): string {
  const main = html`<main class="panel" id="main">
  ${vm.sandbox ? html`<div class="sandbox" role="note">${ICONS.flask()}<p><strong>${t.t('sandbox.label')}</strong> ${t.t('sandbox.apmEmails')}</p></div>` : ''}
  ${summary(vm.order, t)}
  <form class="pay-form" id="apm-fields-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    <h2 class="section-title">${vm.methodLabel}</h2>
    <p class="panel-intro">${ICONS.info()}<span>${t.t('apm.fieldsIntro', { method: vm.methodLabel })}</span></p>
    ${errorList(t, vm.errors, vm.fields)}
    ${vm.fields.map((f) => apmField(f, vm, t))}
    <button type="submit" class="btn btn--primary btn--pay" id="apm-continue"><span class="btn-label">${t.t('apm.continue')}</span></button>
  </form>
  ${leaveActions(t, vm.back, vm.cancelUrl)}
</main>`;
  return layout({ title: `${vm.methodLabel} · ${vm.order.merchantName}`, page: 'apm-fields', main, t, footer: footerWith(t, vm.languagePath), config: { focusErrors: Object.keys(vm.errors).length > 0, messages: clientMessages(t, APM_CLIENT_KEYS) }, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// Waiting for the payer elsewhere: QR code, payment details, app, link, processing

const WAIT_TITLES: Readonly<Record<ApmWaitPageView['kind'], string>> = {
  qr: 'wait.qrTitle',
  details: 'wait.detailsTitle',
  app: 'wait.appTitle',
  link: 'wait.linkTitle',
  processing: 'wait.processingTitle',
};

/** The messages apm.js shows. */
export const APM_CLIENT_KEYS = ['wait.waiting', 'wait.changed', 'wait.qrExpired', 'wait.qrExpiresIn', 'copy.done', 'copy.failed', 'summary.one', 'summary.many', 'button.processing'] as const;

/** A provider's detail label in the page's language when the catalog knows it ("IBAN", "Payment reference"). */
function detailLabel(t: Translator, label: string): string {
  const key = `detail.${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return t.has(key) ? t.t(key) : label;
}

/** A value the payer copies into their bank app: its own copy button (the script enables it). */
function copyable(t: Translator, id: string, label: string, value: string): Raw {
  return html`<span class="copy-value" id="${id}" dir="ltr">${value}</span> <button type="button" class="btn-copy" data-copy="${id}" hidden>${t.t('copy.button')}<span class="visually-hidden"> ${label}</span></button>`;
}

function waitBody(vm: ApmWaitPageView, t: Translator): Raw {
  switch (vm.kind) {
    case 'qr':
      return html`${vm.qr?.deepLink ? html`<p class="apm-deeplink"><a class="btn btn--primary" id="apm-deeplink" href="${safeUrl(vm.qr.deepLink)}">${ICONS.external()}<span>${t.t('wait.openBankApp')}</span></a></p>
      <p class="hint apm-deeplink-hint">${t.t('wait.orScan')}</p>` : ''}
      <figure class="apm-qr">
        <img${attrs({ src: vm.qr?.image ?? '', alt: t.t('wait.qrAlt', { amount: vm.order.amount, merchant: vm.order.merchantName, order: vm.order.number }), width: 240, height: 240, id: 'apm-qr-image' })}>
        <figcaption>${t.t('wait.qrCaption', { method: vm.methodLabel })}</figcaption>
      </figure>
      <dl class="details"><div><dt>${t.t('details.order')}</dt><dd>${vm.order.number}</dd></div><div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.order.amount}</dd></div>${vm.order.description ? html`<div><dt>${t.t('details.description')}</dt><dd>${vm.order.description}</dd></div>` : ''}</dl>
      <p class="countdown" id="qr-countdown">${ICONS.clock()}<span>${t.t('wait.qrValidUntil')} <time id="qr-time" datetime="${vm.qr?.expiresAt ?? ''}">${clockTime(t, vm.qr?.expiresAt)}</time></span></p>`;
    case 'details':
      return html`<dl class="details" id="apm-details">${(vm.details ?? []).map((d, i) => html`<div><dt>${detailLabel(t, d.label)}</dt><dd class="mono">${copyable(t, `detail-${i}`, detailLabel(t, d.label), d.value)}</dd></div>`)}</dl>
      <p class="lead">${t.t('wait.detailsText')}</p>`;
    case 'app':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">${t.t('wait.appText', { to: vm.sentTo ?? '', method: vm.methodLabel })}</p>${vm.providerMessage ? html`<p id="apm-provider-message">${vm.providerMessage}</p>` : ''}`;
    case 'link':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">${t.t(vm.channel === 'sms' ? 'wait.linkSms' : 'wait.linkEmail', { to: vm.sentTo ?? '' })}</p>`;
    case 'processing':
      return html`<div class="spinner" aria-hidden="true"></div><p class="lead">${t.t('wait.processingText')}</p>`;
  }
}

/** hh:mm:ss UTC of an ISO instant (digits read the same in every locale), for the no-JavaScript reading of a deadline. */
function clockTime(_t: Translator, iso: string | undefined): string {
  const at = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(at) ? `${new Date(at).toISOString().slice(11, 19)} UTC` : '';
}

export function renderApmWaitPage(vm: ApmWaitPageView, t: Translator = EN): string {
  const title = t.t(WAIT_TITLES[vm.kind]);
  const main = html`<main class="panel" id="main">
  ${summary(vm.order, t)}
  <section class="apm-wait" aria-labelledby="wait-title">
    <h2 class="section-title" id="wait-title">${title}</h2>
    ${waitBody(vm, t)}
    <p class="apm-status" id="apm-status" role="status" aria-live="polite">${t.t('wait.waiting')}</p>
    <p><a class="btn btn--secondary" id="apm-check" href="${safeUrl(vm.pageUrl)}">${t.t('wait.check')}</a></p>
  </section>
  ${leaveActions(t, vm.back, vm.cancelUrl)}
  ${sandboxNote(t, vm.sandboxLinks, t.t('sandbox.actAsPayer'))}
</main>`;
  return layout({
    title: `${title} · ${vm.order.merchantName}`,
    page: `apm-wait-${vm.kind}`,
    main,
    t,
    footer: footerWith(t, vm.languagePath),
    config: { statusUrl: safeUrl(vm.statusUrl), pageUrl: safeUrl(vm.pageUrl), serverNow: vm.now, expiresAt: vm.qr?.expiresAt ?? null, pollMs: APM_POLL_MS, messages: clientMessages(t, APM_CLIENT_KEYS) },
    ...EXTRAS,
  });
}

// ---------------------------------------------------------------------------------------------------
// One-time code

export function renderApmCodePage(vm: ApmCodePageView, t: Translator = EN): string {
  const main = html`<main class="panel" id="main">
  ${summary(vm.order, t)}
  <form class="pay-form" id="apm-code-form" method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    <h2 class="section-title">${t.t('code.title')}</h2>
    <p class="panel-intro">${ICONS.info()}<span>${t.t('code.sentTo', { to: vm.sentTo })}</span></p>
    ${vm.notice ? html`<p class="apm-notice" role="status">${vm.notice}</p>` : ''}
    ${field({
      name: 'code',
      label: t.t('code.label'),
      error: vm.error,
      input: { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 12, required: true, spellcheck: 'false', autofocus: true, pattern: '[0-9 ]{4,12}', dir: 'ltr' },
    })}
    <button type="submit" class="btn btn--primary btn--pay" id="apm-pay"><span class="btn-label">${t.t('button.pay', { amount: vm.order.amount })}</span></button>
  </form>
  ${vm.resend ? html`<form method="post" action="${safeUrl(vm.resend.actionUrl)}" class="apm-resend" data-once>
    <button type="submit" class="btn btn--link" id="apm-resend"${attrs({ disabled: vm.resend.left <= 0 })}>${t.t('code.resend')}</button>
    <span class="hint">${vm.resend.left > 0 ? t.t('code.resendsLeft', { count: vm.resend.left }) : t.t('code.noResends')}</span>
  </form>` : ''}
  ${leaveActions(t, vm.back, vm.cancelUrl)}
  ${sandboxNote(t, vm.sandboxLinks, t.t('sandbox.readCode'))}
</main>`;
  return layout({ title: `${t.t('code.pageTitle')} · ${vm.order.merchantName}`, page: 'apm-code', main, t, footer: footerWith(t, vm.languagePath), config: { messages: clientMessages(t, APM_CLIENT_KEYS) }, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// QR code expired (Checkout)

export function renderApmExpiredPage(vm: ApmExpiredPageView, t: Translator = EN): string {
  const main = html`<main class="panel panel--narrow panel--center" id="main">
  <div class="status-icon status-icon--error">${ICONS.clock()}</div>
  <h1 class="page-title">${t.t('qrExpired.title')}</h1>
  <p class="lead">${t.t('qrExpired.text', { order: vm.order.number, amount: vm.order.amount })}</p>
  ${vm.retry ? html`<form method="post" action="${safeUrl(vm.retry.actionUrl)}" accept-charset="utf-8" data-once>${hiddenFields({ method: vm.retry.method })}
    <button type="submit" class="btn btn--primary" id="apm-new-code">${t.t('qrExpired.newCode')}</button></form>` : ''}
  <p class="cancel"><a href="${safeUrl(vm.leaveUrl)}" id="apm-leave">${t.t('qrExpired.leave')}</a></p>
</main>`;
  return layout({ title: `${t.t('qrExpired.title')} · ${vm.order.merchantName}`, page: 'apm-expired', main, t, config: { messages: clientMessages(t, APM_CLIENT_KEYS) }, ...EXTRAS });
}

// ---------------------------------------------------------------------------------------------------
// Sandbox provider: the payer's app or bank, and the outbox

export function renderSandboxDevicePage(vm: SandboxDevicePageView, t: Translator = EN): string {
  const main = html`<main class="panel panel--provider" id="main">
  ${providerHeader(vm.appName, t)}
  <h1 class="page-title">${vm.heading}</h1>
  <dl class="details">
    <div><dt>${t.t('details.merchant')}</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.amount}</dd></div>
    ${vm.description ? html`<div><dt>${t.t('details.description')}</dt><dd>${vm.description}</dd></div>` : ''}
    ${(vm.lines ?? []).map((l) => html`<div><dt>${l.label}</dt><dd class="mono small" dir="ltr">${l.value}</dd></div>`)}
  </dl>
  ${decisionForm(vm)}
</main>`;
  return layout({ title: `${vm.appName} · ${vm.merchantName}`, page: 'sandbox-device', main, t, config: { messages: clientMessages(t, APM_CLIENT_KEYS) }, ...EXTRAS });
}

export function renderSandboxClaimPage(vm: SandboxClaimPageView, t: Translator = EN): string {
  const main = html`<main class="panel panel--provider" id="main">
  ${providerHeader(t.t('claim.provider'), t)}
  <h1 class="page-title">${t.t('claim.heading')}</h1>
  <dl class="details">
    <div><dt>${t.t('details.merchant')}</dt><dd>${vm.merchantName}</dd></div>
    ${vm.payeeName ? html`<div><dt>${t.t('claim.to')}</dt><dd>${vm.payeeName}</dd></div>` : ''}
    <div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.amount}</dd></div>
    ${vm.description ? html`<div><dt>${t.t('details.description')}</dt><dd>${vm.description}</dd></div>` : ''}
    ${vm.account ? html`<div><dt>${t.t('claim.account')}</dt><dd class="mono small" id="claim-account">${vm.account}</dd></div>` : ''}
    ${vm.fees ? html`<div><dt>${t.t('claim.fees')}</dt><dd class="mono small" id="claim-fees">${vm.fees}</dd></div>` : ''}
    <div><dt>${t.t('claim.question')}</dt><dd id="claim-question">${vm.question}</dd></div>
  </dl>
  <form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    ${field({ name: 'answer', label: t.t('claim.answer'), error: vm.error, input: { type: 'text', autocomplete: 'off', maxlength: 40, required: true, spellcheck: 'false', autofocus: true } })}
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="approve" id="claim-submit">${t.t('claim.submit')}</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="decline" formnovalidate>${t.t('claim.refuse')}</button>
    </div>
  </form>
</main>`;
  return layout({ title: `${t.t('claim.heading')} · ${vm.merchantName}`, page: 'sandbox-device', main, t, config: { messages: clientMessages(t, APM_CLIENT_KEYS) }, ...EXTRAS });
}

export function renderSandboxOutboxPage(vm: SandboxOutboxPageView, t: Translator = EN): string {
  const list = vm.messages.length === 0
    ? html`<p class="lead" id="outbox-empty">${vm.recipient ? t.t('outbox.none') : t.t('outbox.prompt')}</p>`
    : html`<ol class="apm-outbox" id="outbox">${vm.messages.map((m) => html`<li class="apm-message" data-channel="${m.channel}">
        <p class="apm-message-meta"><span class="badge">${t.t(m.channel === 'email' ? 'outbox.email' : m.channel === 'sms' ? 'outbox.sms' : 'outbox.push')}</span> ${t.t('outbox.to')} <span class="mono">${m.recipient}</span> · <time datetime="${m.date}">${m.date.replace('T', ' ').slice(0, 19)}</time></p>
        <h2 class="apm-message-subject">${m.subject}</h2>
        <p>${m.body}</p>
        ${m.link ? html`<p><a class="apm-message-link" href="${safeUrl(m.link)}">${t.t(m.channel === 'push' ? 'outbox.openApp' : 'outbox.openLink')}</a></p>` : ''}
      </li>`)}</ol>`;
  const main = html`<main class="panel" id="main">
  <h1 class="page-title">${t.t('outbox.title')}</h1>
  <p class="lead">${t.t('outbox.lead')}</p>
  <form method="get" action="/sandbox/outbox" class="apm-outbox-form">
    ${field({ name: 'to', label: t.t('outbox.address'), value: vm.recipient, input: { type: 'text', autocomplete: 'off', spellcheck: 'false', maxlength: 255, required: true } })}
    <button type="submit" class="btn btn--secondary">${t.t('outbox.show')}</button>
  </form>
  ${list}
</main>`;
  return layout({ title: t.t('outbox.title'), page: 'sandbox-outbox', main, t, ...EXTRAS });
}
