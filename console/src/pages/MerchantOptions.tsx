/**
 * Two more of a merchant's settings (PATCH /admin/v1/merchants/{id}/settings): payer retries on the hosted page,
 * and the connector options the alternative-method providers read (mobile money, voucher partner, mail payout,
 * token-call key). The API validates; its D3 errors show next to the field they name.
 */
import { useState } from 'react';
import { call, type Settings } from '../api/client';
import { bodyEnumOf } from '../queryParams';
import { useCan } from '../session';
import { ErrorNote, Field, FieldErrors, errorsByField, useSubmit } from '../ui';
import { PemInput } from './Wallets';
import { useUnsavedPrompt } from '../comfort';
import { fill, useT } from '../i18n';

const ROUTE = 'PATCH /admin/v1/merchants/{id}/settings';
type Patch = NonNullable<Parameters<typeof call<'/admin/v1/merchants/{id}/settings', 'patch'>>[2]>['body'];

function SaveRow({ busy, saved, label }: { busy: boolean; saved: boolean; label: string }) {
  const t = useT();
  return <div className="actions"><button type="submit" className="primary" disabled={busy}>{label}</button>{saved && <span role="status">{t('merchant.saved')}</span>}</div>;
}

/** One settings form: its patch, busy, error and saved states, and the field errors for what it shows. */
function useSettingsForm(merchantId: string, patch: () => Patch, done: () => void) {
  const [saved, setSaved] = useState(false);
  const form = useSubmit(async () => {
    setSaved(false);
    await call('patch', '/admin/v1/merchants/{id}/settings', { params: { id: merchantId }, body: patch(), conditional: true });
    setSaved(true);
    done();
  });
  return { ...form, saved };
}

export function PayerRetries({ merchantId, settings, done }: { merchantId: string; settings: Settings; done: () => void }) {
  const t = useT();
  const writable = useCan()('merchants.write');
  const current = settings.payer_retries;
  const [mode, setMode] = useState<'retry' | 'off'>(current === false ? 'off' : 'retry');
  const [attempts, setAttempts] = useState(String(current === false ? 3 : current.max_attempts));
  const [receipt, setReceipt] = useState(settings.receipt_email);
  const { busy, error, submit, saved } = useSettingsForm(merchantId, () => ({ payer_retries: mode === 'off' ? false : { max_attempts: Number(attempts) }, receipt_email: receipt }) as Patch, done);
  // Issue 31 item 9: leaving with changes not saved asks first.
  useUnsavedPrompt(mode !== (current === false ? 'off' : 'retry') || (mode === 'retry' && current !== false && attempts !== String(current.max_attempts)) || receipt !== settings.receipt_email);
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="retries" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="retries">{t('merchant.retries')}</h2>
        <p className="sub">{t('merchant.retriesExplain')}</p>
        <fieldset disabled={!writable}>
          <fieldset className="chips operations">
            <legend>{t('merchant.afterDecline')}</legend>
            <label className="check"><input type="radio" name="retries" checked={mode === 'retry'} onChange={() => setMode('retry')} /> {t('merchant.retryStay')}</label>
            <label className="check"><input type="radio" name="retries" checked={mode === 'off'} onChange={() => setMode('off')} /> {t('merchant.retryOff')}</label>
          </fieldset>
          {mode === 'retry' && (
            <div className="grid">
              <Field label={t('merchant.attempts')} hint={t('merchant.attemptsHint')} path="payer_retries">{(id, aria) => (
                <input id={id} {...aria} type="number" inputMode="numeric" value={attempts} onChange={(e) => setAttempts(e.target.value)} />)}
              </Field>
            </div>
          )}
          <label className="check"><input type="checkbox" checked={receipt} onChange={(e) => setReceipt(e.target.checked)} /> {t('merchant.receipt')}</label>
        </fieldset>
        {error && <ErrorNote error={error} />}
        {writable && <SaveRow busy={busy} saved={saved} label={t('merchant.saveRetries')} />}
      </form>
    </FieldErrors.Provider>
  );
}

type Options = Settings['connector_options'];
const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k} = ${v}`).join('\n');
const fromLines = (text: string) => Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')).trim().toUpperCase(), l.slice(l.indexOf('=') + 1).trim()]));

/** A switch for one option: off sends null (the option removed). */
function OptionSwitch({ label, on, set }: { label: string; on: boolean; set: (on: boolean) => void }) {
  return <label className="check"><input type="checkbox" checked={on} onChange={(e) => set(e.target.checked)} /> {label}</label>;
}

export function ConnectorOptions({ merchantId, options, done }: { merchantId: string; options: Options; done: () => void }) {
  const t = useT();
  const writable = useCan()('merchants.write');
  const [mobile, setMobile] = useState({ on: options.mobile_money !== null, fee_bearer: options.mobile_money?.fee_bearer ?? bodyEnumOf(ROUTE, 'connector_options.mobile_money.fee_bearer')[0] ?? '' });
  const [voucher, setVoucher] = useState({ on: options.voucher_partner !== null, partner_ids: lines(options.voucher_partner?.partner_ids ?? {}), language: options.voucher_partner?.language ?? 'en', domain: options.voucher_partner?.domain ?? '' });
  const [mail, setMail] = useState({ on: options.mail_payout !== null, account_uuid: options.mail_payout?.account_uuid ?? '', fee_calculation_method: options.mail_payout?.fee_calculation_method ?? 'account_level' });
  const [token, setToken] = useState({ on: options.token_call !== null, private_key: '' });
  const patch = () => ({
    connector_options: {
      mobile_money: mobile.on ? { fee_bearer: mobile.fee_bearer } : null,
      voucher_partner: voucher.on ? { partner_ids: fromLines(voucher.partner_ids), language: voucher.language, domain: voucher.domain || null } : null,
      mail_payout: mail.on ? { account_uuid: mail.account_uuid, fee_calculation_method: mail.fee_calculation_method } : null,
      // The key is write-only: sent when a new one is given, removed when switched off, else left as stored.
      ...(!token.on ? { token_call: null } : token.private_key ? { token_call: { private_key: token.private_key } } : {}),
    },
  }) as Patch;
  const { busy, error, submit, saved } = useSettingsForm(merchantId, patch, () => { setToken((k) => ({ ...k, private_key: '' })); done(); });
  const at = 'connector_options';
  return (
    <FieldErrors.Provider value={errorsByField(error)}>
      <form className="card" aria-labelledby="options" onSubmit={(e) => void submit(e)} noValidate>
        <h2 id="options">{t('merchant.options')}</h2>
        <p className="sub">{t('merchant.optionsExplain')}</p>
        <fieldset disabled={!writable}>
          <fieldset className="switch-group">
            <legend>{t('merchant.mobileMoney')}</legend>
            <OptionSwitch label={t('merchant.mobileOn')} on={mobile.on} set={(on) => setMobile({ ...mobile, on })} />
            {mobile.on && <div className="grid"><Field label={t('merchant.feeBearer')} path={`${at}.mobile_money.fee_bearer`}>{(id) => (
              <select id={id} value={mobile.fee_bearer} onChange={(e) => setMobile({ ...mobile, fee_bearer: e.target.value as never })}>
                {bodyEnumOf(ROUTE, `${at}.mobile_money.fee_bearer`).map((o) => <option key={o}>{o}</option>)}
              </select>)}</Field></div>}
          </fieldset>
          <fieldset className="switch-group">
            <legend>{t('merchant.voucher')}</legend>
            <OptionSwitch label={t('merchant.voucherOn')} on={voucher.on} set={(on) => setVoucher({ ...voucher, on })} />
            {voucher.on && <div className="grid">
              <Field label={t('merchant.partnerIds')} hint={t('merchant.partnerIdsHint')} path={`${at}.voucher_partner.partner_ids`}>{(id, aria) => (
                <textarea id={id} {...aria} rows={3} value={voucher.partner_ids} onChange={(e) => setVoucher({ ...voucher, partner_ids: e.target.value })} />)}</Field>
              <Field label={t('merchant.language')} hint={t('merchant.languageHint')} path={`${at}.voucher_partner.language`}>{(id, aria) => (
                <input id={id} {...aria} value={voucher.language} onChange={(e) => setVoucher({ ...voucher, language: e.target.value })} />)}</Field>
              <Field label={t('merchant.domain')} hint={t('merchant.optional')} path={`${at}.voucher_partner.domain`}>{(id, aria) => (
                <input id={id} {...aria} value={voucher.domain} onChange={(e) => setVoucher({ ...voucher, domain: e.target.value })} />)}</Field>
            </div>}
          </fieldset>
          <fieldset className="switch-group">
            <legend>{t('merchant.mailPayout')}</legend>
            <OptionSwitch label={t('merchant.mailOn')} on={mail.on} set={(on) => setMail({ ...mail, on })} />
            {mail.on && <div className="grid">
              <Field label={t('merchant.accountUuid')} path={`${at}.mail_payout.account_uuid`}>{(id, aria) => (
                <input id={id} {...aria} value={mail.account_uuid} onChange={(e) => setMail({ ...mail, account_uuid: e.target.value })} />)}</Field>
              <Field label={t('merchant.feeCalc')} path={`${at}.mail_payout.fee_calculation_method`}>{(id) => (
                <select id={id} value={mail.fee_calculation_method} onChange={(e) => setMail({ ...mail, fee_calculation_method: e.target.value as never })}>
                  {bodyEnumOf(ROUTE, `${at}.mail_payout.fee_calculation_method`).map((o) => <option key={o}>{o}</option>)}
                </select>)}</Field>
            </div>}
          </fieldset>
          <fieldset className="switch-group">
            <legend>{t('merchant.tokenCall')}</legend>
            <OptionSwitch label={t('merchant.tokenOn')} on={token.on} set={(on) => setToken({ ...token, on })} />
            {token.on && <PemInput label={t('merchant.tokenKey')} value={token.private_key} onChange={(v) => setToken({ ...token, private_key: v })}
              stored={options.token_call ? fill(t('merchant.fingerprint'), { fingerprint: options.token_call.private_key.fingerprint }) : null} path={`${at}.token_call.private_key`} />}
          </fieldset>
        </fieldset>
        {error && <ErrorNote error={error} />}
        {writable && <SaveRow busy={busy} saved={saved} label={t('merchant.saveOptions')} />}
      </form>
    </FieldErrors.Provider>
  );
}
