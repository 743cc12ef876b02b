/**
 * The console's screens translated area by area (issue 31 item 11), one file each so that they can be written side
 * by side: merged here into one catalog per language, which i18n.ts adds to the shell's and i18n-screens.ts's.
 */
import { RISK, RISK_EN } from './i18n-risk.ts';
import { MONEY, MONEY_EN } from './i18n-money.ts';
import { DISPUTES, DISPUTES_EN } from './i18n-disputes.ts';
import { MERCHANT, MERCHANT_EN } from './i18n-merchant.ts';
import { PAYMENT, PAYMENT_EN } from './i18n-payment.ts';

export const AREAS_EN = { ...RISK_EN, ...MONEY_EN, ...DISPUTES_EN, ...MERCHANT_EN, ...PAYMENT_EN } as const;

export const AREAS: Readonly<Record<'es' | 'pt-BR' | 'fr' | 'de' | 'ar' | 'tr', Readonly<Record<keyof typeof AREAS_EN, string>>>> = {
  'es': { ...RISK['es'], ...MONEY['es'], ...DISPUTES['es'], ...MERCHANT['es'], ...PAYMENT['es'] },
  'pt-BR': { ...RISK['pt-BR'], ...MONEY['pt-BR'], ...DISPUTES['pt-BR'], ...MERCHANT['pt-BR'], ...PAYMENT['pt-BR'] },
  'fr': { ...RISK['fr'], ...MONEY['fr'], ...DISPUTES['fr'], ...MERCHANT['fr'], ...PAYMENT['fr'] },
  'de': { ...RISK['de'], ...MONEY['de'], ...DISPUTES['de'], ...MERCHANT['de'], ...PAYMENT['de'] },
  'ar': { ...RISK['ar'], ...MONEY['ar'], ...DISPUTES['ar'], ...MERCHANT['ar'], ...PAYMENT['ar'] },
  'tr': { ...RISK['tr'], ...MONEY['tr'], ...DISPUTES['tr'], ...MERCHANT['tr'], ...PAYMENT['tr'] },
};
