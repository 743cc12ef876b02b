/**
 * The sandbox card connector: behaves as the platform's test engine. 3-D Secure and redirects go through
 * real pages served by the gateway (the ACS and provider pages); this connector only decides outcomes.
 */
import { randomUUID } from 'node:crypto';
import type { AuthorizeRequest, CardConnector, ConnectorOutcome, ConnectorState, FollowUpOutcome } from '../../connectors/types.ts';
import type { ThreeDsAttributes } from '../../domain/model/payment.ts';
import { DECLINE_REASON, scenarioFor, type Scenario } from './test-cards.ts';
import { DECLINES, isUnifiedCode } from '../../domain/declines.ts';
import type { MidAccess } from '../../connectors/types.ts';
import { SANDBOX_CONNECTOR } from '../../connectors/registry.ts';

/**
 * A sandbox MID's setting `force_decline_code` (a unified code: do_not_honor, lost_or_stolen, ...) declines every
 * authorization on it with that code, so tests and integrators can see cascading across MIDs without a real
 * acquirer; `force_decline_percent` (0 to 100) declines only that share of them, drawn at random (with
 * force_decline_code, else do_not_honor), so success-rate routing has a MID that declines often to steer away
 * from. Only this connector reads them; a real acquirer's MID has no such setting.
 */
function forcedDecline(mid: MidAccess | undefined): ConnectorOutcome | undefined {
  const code = mid?.settings.force_decline_code ?? (mid?.settings.force_decline_percent !== undefined ? 'do_not_honor' : undefined);
  if (!isUnifiedCode(code)) return undefined;
  const percent = Number(mid?.settings.force_decline_percent ?? 100);
  if (!(Math.random() * 100 < percent)) return undefined;
  return { kind: 'declined', reason: DECLINES[code].message, reference: reference(), error: { code, rawCode: `SBX_${code.toUpperCase()}` } };
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

/**
 * A wallet payment on the sandbox. A token passed as it is (virtual flow) is approved: the test engine, like an
 * acquirer holding the wallet's keys, takes what the wallet made. A decrypted card with a cryptogram was
 * authenticated on the payer's device: no challenge, and the ECI of the token is the one reported.
 */
function walletOutcome(req: AuthorizeRequest): ConnectorOutcome | undefined {
  const wallet = req.wallet;
  if (!wallet) return undefined;
  if (wallet.token !== undefined) return approved();
  if (!wallet.cryptogram) return undefined;
  const scenario = scenarioFor(req.card.pan, req.card.expMonth, req.card.expYear, req.intent);
  if (scenario !== 'success' && scenario !== 'capture_fails') return AUTHORIZE_OUTCOMES.decline();
  return { kind: 'approved', reference: reference(), rrn: rrn(), approvalCode: approvalCode(), threeDs: { ...frictionless(), eci: wallet.eci ?? '05' } };
}

export class SandboxCardConnector implements CardConnector {
  readonly name = SANDBOX_CONNECTOR;
  readonly walletTokens = true;
  readonly decryptedWalletCards = true;

  async authorize(req: AuthorizeRequest, mid?: MidAccess): Promise<ConnectorOutcome> {
    const forced = forcedDecline(mid);
    if (forced) return forced;
    const wallet = walletOutcome(req);
    if (wallet) return withArn(wallet, req.intent);
    const scenario = scenarioFor(req.card.pan, req.card.expMonth, req.card.expYear, req.intent);
    // Asked for a challenge (the risk screen's require_3ds), a card that would pass frictionless is challenged.
    const outcome = AUTHORIZE_OUTCOMES[req.challenge === 'required' && scenario === 'success' ? '3ds_success' : scenario]();
    // The challenge or redirect remembers what was asked, so its completion knows whether funds moved (ARN).
    if (outcome.kind === 'challenge' || outcome.kind === 'redirect') outcome.state.intent = req.intent;
    return withArn(outcome, req.intent);
  }

  async complete(state: ConnectorState, result: { decision: string }): Promise<ConnectorOutcome> {
    const payerGaveUp = result.decision === 'cancel' || result.decision === 'decline';
    const success = !payerGaveUp && (state.scenario === '3ds_success' || state.scenario === 'redirect_success');
    const is3ds = state.scenario?.startsWith('3ds') ?? false;
    const threeDs = is3ds ? challenged(success, state) : undefined;
    if (success) return withArn({ kind: 'approved', reference: reference(), rrn: rrn(), approvalCode: approvalCode(), ...(threeDs ? { threeDs } : {}) }, state.intent);
    const reason = payerGaveUp ? 'Cancelled by payer' : is3ds ? '3-D Secure authentication failed' : DECLINE_REASON;
    return { kind: 'declined', reason, ...(threeDs ? { threeDs } : {}) };
  }

  async capture(p: Parameters<CardConnector['capture']>[0]): Promise<FollowUpOutcome> {
    // Card 4111111111111111 with expiry month 03: the authorization succeeds and the capture fails.
    if (p.card.expMonth === '03') return { kind: 'declined', reason: DECLINE_REASON };
    return { kind: 'approved', reference: reference(), arn: arn() };
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
/** An acquirer reference number: 23 digits, as card schemes assign them when funds move. */
const arn = () => digits(23);

/**
 * The sandbox assigns an ARN where funds moved (a sale, a payout); a held authorization gets one at its capture,
 * so both sides of "sent empty when missing" can be seen.
 */
function withArn(outcome: ConnectorOutcome, intent: string | undefined): ConnectorOutcome {
  return outcome.kind === 'approved' && intent !== 'auth' ? { ...outcome, arn: arn() } : outcome;
}
const approvalCode = () => digits(6);
