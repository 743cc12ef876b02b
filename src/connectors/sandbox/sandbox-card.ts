/**
 * The sandbox card connector: behaves as the platform's test engine. 3-D Secure and redirects go through
 * real pages served by the gateway (the ACS and provider pages); this connector only decides outcomes.
 */
import { randomUUID } from 'node:crypto';
import type { CardConnector, ConnectorOutcome, ConnectorState, FollowUpOutcome, ThreeDsAttributes } from '../types.ts';
import { DECLINE_REASON, scenarioFor, type Scenario } from './test-cards.ts';
import { UNIFIED_CODES, type UnifiedCode } from '../error-codes.ts';
import type { MidAccess } from '../types.ts';

/**
 * A sandbox MID's setting `force_decline_code` (a unified code: do_not_honor, lost_or_stolen, ...) declines every
 * authorization on it with that code, so tests and integrators can see cascading across MIDs without a real
 * acquirer. Only this connector reads it; a real acquirer's MID has no such setting.
 */
function forcedDecline(mid: MidAccess | undefined): ConnectorOutcome | undefined {
  const code = mid?.settings.force_decline_code;
  if (typeof code !== 'string' || !Object.hasOwn(UNIFIED_CODES, code)) return undefined;
  const unified = code as UnifiedCode;
  return { kind: 'declined', reason: UNIFIED_CODES[unified].message, reference: reference(), error: { code: unified, rawCode: `SBX_${code.toUpperCase()}` } };
}

const reference = () => `sbx_${randomUUID()}`;

function frictionless(): ThreeDsAttributes {
  return {
    threeDSServerTransID: randomUUID(),
    dsTransID: randomUUID(),
    acsTransID: randomUUID(),
    eci: '05',
    transStatus: 'Y',
    protocolVersion: '2.2.0',
    authenticationFlow: 'Frictionless',
  };
}

function challenged(success: boolean, state: ConnectorState): ThreeDsAttributes {
  return {
    threeDSServerTransID: state.threeDSServerTransID ?? randomUUID(),
    dsTransID: state.dsTransID ?? randomUUID(),
    acsTransID: state.acsTransID ?? randomUUID(),
    eci: success ? '05' : '07',
    transStatus: success ? 'Y' : 'N',
    ...(success ? {} : { transStatusReason: '01' }),
    protocolVersion: '2.2.0',
    authenticationFlow: 'Challenge',
  };
}

function challenge(scenario: Scenario): ConnectorOutcome {
  const state = { scenario, threeDSServerTransID: randomUUID(), dsTransID: randomUUID(), acsTransID: randomUUID() };
  return {
    kind: 'challenge',
    state,
    threeDs: { threeDSServerTransID: state.threeDSServerTransID, dsTransID: state.dsTransID, acsTransID: state.acsTransID, protocolVersion: '2.2.0', authenticationFlow: 'Challenge', transStatus: 'C' },
  };
}

const approved = (): ConnectorOutcome => ({ kind: 'approved', reference: reference(), rrn: rrn(), approvalCode: approvalCode(), threeDs: frictionless() });

/** The first answer of each scenario; a table built once, not per request. */
const AUTHORIZE_OUTCOMES: Readonly<Record<Scenario, () => ConnectorOutcome>> = {
  success: approved,
  capture_fails: approved,
  decline: () => ({ kind: 'declined', reason: DECLINE_REASON, reference: reference() }),
  '3ds_success': () => challenge('3ds_success'),
  '3ds_decline': () => challenge('3ds_decline'),
  redirect_success: () => ({ kind: 'redirect', state: { scenario: 'redirect_success' } }),
  redirect_decline: () => ({ kind: 'redirect', state: { scenario: 'redirect_decline' } }),
};

export class SandboxCardConnector implements CardConnector {
  readonly name = 'sandbox-card';

  async authorize(req: Parameters<CardConnector['authorize']>[0], mid?: MidAccess): Promise<ConnectorOutcome> {
    const forced = forcedDecline(mid);
    if (forced) return forced;
    return AUTHORIZE_OUTCOMES[scenarioFor(req.card.pan, req.card.expMonth, req.card.expYear, req.intent)]();
  }

  async complete(state: ConnectorState, result: { decision: string }): Promise<ConnectorOutcome> {
    const payerGaveUp = result.decision === 'cancel' || result.decision === 'decline';
    const success = !payerGaveUp && (state.scenario === '3ds_success' || state.scenario === 'redirect_success');
    const is3ds = state.scenario?.startsWith('3ds') ?? false;
    const threeDs = is3ds ? challenged(success, state) : undefined;
    if (success) return { kind: 'approved', reference: reference(), rrn: rrn(), approvalCode: approvalCode(), ...(threeDs ? { threeDs } : {}) };
    const reason = payerGaveUp ? 'Cancelled by payer' : is3ds ? '3-D Secure authentication failed' : DECLINE_REASON;
    return { kind: 'declined', reason, ...(threeDs ? { threeDs } : {}) };
  }

  async capture(p: Parameters<CardConnector['capture']>[0]): Promise<FollowUpOutcome> {
    // Card 4111111111111111 with expiry month 03: the authorization succeeds and the capture fails.
    if (p.card.expMonth === '03') return { kind: 'declined', reason: DECLINE_REASON };
    return { kind: 'approved', reference: reference() };
  }

  async refund(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: reference() };
  }

  async reverse(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: reference() };
  }

  async void(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: reference() };
  }

  async inquire(): Promise<ConnectorOutcome | undefined> {
    // The sandbox answers synchronously, so a payment left processing never reached it: decline it.
    return { kind: 'declined', reason: 'Processing interrupted' };
  }
}

function digits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(Math.floor(Math.random() * 10));
  return out;
}
const rrn = () => digits(12);
const approvalCode = () => digits(6);
