/**
 * A SEPA credit transfer file, ISO 20022 pain.001.001.09 (issue 27: payouts to merchants, the second export
 * format beside CSV). Pure: the transfers in, the XML text out. SEPA moves euros only; amounts are decimal with
 * the currency's exponent; names are cut to SEPA's 70 characters of its Latin character set, identifiers to 35.
 */
import { formatAmount } from '../money.ts';

export interface SepaParty {
  name: string;
  iban: string;
  /** Optional in SEPA (IBAN-only); included when known. */
  bic?: string | null;
}

export interface SepaTransfer {
  /** The end-to-end id (35 characters at most: the statement's id without its hyphens). */
  endToEndId: string;
  amount: bigint;
  creditor: SepaParty;
  /** Remittance information, unstructured (140 characters at most). */
  remittance: string;
}

export interface SepaFile {
  messageId: string;
  createdAt: Date;
  /** The requested execution date, YYYY-MM-DD. */
  executionDate: string;
  debtor: SepaParty;
  transfers: readonly SepaTransfer[];
}

export const SEPA_CURRENCY = 'EUR';

/** An IBAN: country, check digits, up to 30 letters and digits, with a valid ISO 7064 mod-97 check. */
export function isIban(value: string): boolean {
  const iban = value.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** A BIC (ISO 9362): 8 or 11 characters. */
export const isBic = (value: string): boolean => /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(value.toUpperCase());

export const normalIban = (value: string): string => value.replace(/\s+/g, '').toUpperCase();

/** SEPA's character set (Latin letters, digits, / - ? : ( ) . , ' + and space), cut to `max`. */
export function sepaText(value: string, max: number): string {
  return value.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');

const agent = (bic: string | null | undefined, indent: string) => (bic
  ? `${indent}<FinInstnId><BICFI>${xml(bic.toUpperCase())}</BICFI></FinInstnId>`
  : `${indent}<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>`);

/** The pain.001.001.09 document of a batch of euro transfers (one payment information block). */
export function painXml(file: SepaFile): string {
  const total = file.transfers.reduce((s, t) => s + t.amount, 0n);
  const amount = (minor: bigint) => formatAmount(minor, SEPA_CURRENCY);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    '  <CstmrCdtTrfInitn>',
    '    <GrpHdr>',
    `      <MsgId>${xml(sepaText(file.messageId, 35))}</MsgId>`,
    `      <CreDtTm>${file.createdAt.toISOString().slice(0, 19)}</CreDtTm>`,
    `      <NbOfTxs>${file.transfers.length}</NbOfTxs>`,
    `      <CtrlSum>${amount(total)}</CtrlSum>`,
    `      <InitgPty><Nm>${xml(sepaText(file.debtor.name, 70))}</Nm></InitgPty>`,
    '    </GrpHdr>',
    '    <PmtInf>',
    `      <PmtInfId>${xml(sepaText(file.messageId, 35))}</PmtInfId>`,
    '      <PmtMtd>TRF</PmtMtd>',
    '      <BtchBookg>false</BtchBookg>',
    `      <NbOfTxs>${file.transfers.length}</NbOfTxs>`,
    `      <CtrlSum>${amount(total)}</CtrlSum>`,
    '      <PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>',
    `      <ReqdExctnDt><Dt>${file.executionDate}</Dt></ReqdExctnDt>`,
    `      <Dbtr><Nm>${xml(sepaText(file.debtor.name, 70))}</Nm></Dbtr>`,
    `      <DbtrAcct><Id><IBAN>${normalIban(file.debtor.iban)}</IBAN></Id></DbtrAcct>`,
    `      <DbtrAgt>${agent(file.debtor.bic, '')}</DbtrAgt>`,
    '      <ChrgBr>SLEV</ChrgBr>',
  ];
  for (const t of file.transfers) {
    lines.push(
      '      <CdtTrfTxInf>',
      `        <PmtId><EndToEndId>${xml(sepaText(t.endToEndId, 35))}</EndToEndId></PmtId>`,
      `        <Amt><InstdAmt Ccy="${SEPA_CURRENCY}">${amount(t.amount)}</InstdAmt></Amt>`,
      // The creditor's agent is optional (IBAN-only): left out when the merchant gave no BIC.
      ...(t.creditor.bic ? [`        <CdtrAgt>${agent(t.creditor.bic, '')}</CdtrAgt>`] : []),
      `        <Cdtr><Nm>${xml(sepaText(t.creditor.name, 70))}</Nm></Cdtr>`,
      `        <CdtrAcct><Id><IBAN>${normalIban(t.creditor.iban)}</IBAN></Id></CdtrAcct>`,
      `        <RmtInf><Ustrd>${xml(sepaText(t.remittance, 140))}</Ustrd></RmtInf>`,
      '      </CdtTrfTxInf>',
    );
  }
  lines.push('    </PmtInf>', '  </CstmrCdtTrfInitn>', '</Document>', '');
  return lines.join('\n');
}
