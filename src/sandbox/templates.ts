/**
 * The sandbox's own payer screens, built on the payer pages' layout: the ACS of its card acquirer and the page of
 * its bank or APM provider. Pure render, no I/O.
 */
import { html } from '../web/html.ts';
import { EN, clientMessages, type Translator } from '../web/i18n.ts';
import { ICONS, decisionForm, field, hiddenFields, layout, providerHeader, safeUrl } from '../web/pages.ts';
import type { AcsPageView, ProviderPageView } from '../web/views.ts';

export function renderAcsPage(vm: AcsPageView, t: Translator = EN): string {
  const main = html`<main class="panel panel--bank" id="main">
  <header class="bank-header">
    <span class="bank-logo">${ICONS.shield()}</span>
    <div><p class="bank-title">${t.t('acs.brand')}</p><p class="bank-subtitle">${t.t('acs.subtitle')}</p></div>
  </header>
  <h1 class="page-title">${t.t('acs.title')}</h1>
  <dl class="details">
    <div><dt>${t.t('details.merchant')}</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.amount}</dd></div>
    <div><dt>${t.t('details.card')}</dt><dd class="mono" dir="ltr">${vm.maskedCard}</dd></div>
    ${vm.orderNumber ? html`<div><dt>${t.t('details.order')}</dt><dd>${vm.orderNumber}</dd></div>` : ''}
    <div><dt>${t.t('details.reference')}</dt><dd class="mono" dir="ltr">${vm.reference ?? vm.paymentId}</dd></div>
  </dl>
  <form method="post" action="${safeUrl(vm.actionUrl)}" accept-charset="utf-8" data-once>
    ${hiddenFields(vm.fields)}
    ${field({
      name: 'otp',
      label: t.t('acs.code'),
      hint: vm.hint,
      error: vm.error,
      input: { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 12, required: true, spellcheck: 'false', autofocus: true, dir: 'ltr' },
    })}
    <div class="actions">
      <button type="submit" class="btn btn--primary" name="decision" value="submit">${t.t('acs.submit')}</button>
      <button type="submit" class="btn btn--secondary" name="decision" value="cancel" formnovalidate>${t.t('acs.cancel')}</button>
    </div>
  </form>
</main>`;
  return layout({
    title: `${t.t('acs.pageTitle')} · ${vm.merchantName}`,
    page: 'acs',
    theme: 'theme-bank',
    main,
    t,
    config: { messages: clientMessages(t, ['button.processing']) },
    footer: html`<footer class="trust">${ICONS.shield()}<span>${t.t('acs.footer')}</span></footer>`,
  });
}

export function renderProviderPage(vm: ProviderPageView, t: Translator = EN): string {
  const main = html`<main class="panel panel--provider" id="main">
  ${providerHeader(vm.title, t)}
  <h1 class="page-title">${t.t('provider.title')}</h1>
  <dl class="details">
    <div><dt>${t.t('details.merchant')}</dt><dd>${vm.merchantName}</dd></div>
    <div><dt>${t.t('details.amount')}</dt><dd class="strong">${vm.amount}</dd></div>
    ${vm.description ? html`<div><dt>${t.t('details.description')}</dt><dd>${vm.description}</dd></div>` : ''}
  </dl>
  ${decisionForm(vm, hiddenFields(vm.fields))}
</main>`;
  return layout({ title: `${vm.title} · ${vm.merchantName}`, page: 'provider', main, t, config: { messages: clientMessages(t, ['button.processing']) } });
}
