/**
 * Disputes and chargebacks (issue 29), pure: a dispute's stage and status, what each event moves it to (one
 * table), which states hold the merchant's money, the reason code's scheme category, and the rule that the
 * disputes of a payment never hold more than it has captured (less refunds) in total.
 *
 * Money follows the state, not the event: a dispute "holds" its amount (the merchant debited) in the states of
 * HOLDS; moving into one debits, moving out of one credits back. So a duplicate or out-of-order notice that
 * changes no state moves no money, and a second chargeback after a won first one debits again.
 */

export const DISPUTE_STAGES = ['inquiry', 'first_chargeback', 'second_chargeback', 'arbitration'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];

export const DISPUTE_STATUSES = ['open', 'evidence_required', 'evidence_submitted', 'won', 'lost', 'accepted', 'reversed'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** What happens to a dispute: the acquirer's notices (Adyen's event codes map onto these) and the operator's acts. */
export const DISPUTE_EVENTS = [
  'request_for_information', 'notification_of_chargeback', 'chargeback', 'information_supplied', 'defense_period_ended',
  'chargeback_reversed', 'second_chargeback', 'prearbitration_won', 'prearbitration_lost', 'arbitration', 'won', 'lost', 'accept',
] as const;
export type DisputeEvent = (typeof DISPUTE_EVENTS)[number];

export interface DisputeState {
  stage: DisputeStage;
  status: DisputeStatus;
}

/** Statuses in which the dispute is still being fought. */
const LIVE: readonly DisputeStatus[] = ['open', 'evidence_required', 'evidence_submitted'];
/** The merchant won this round: the issuer may come again with the next stage. */
const WON: readonly DisputeStatus[] = ['won', 'reversed'];

interface Transition {
  /** A new dispute may start with this event. */
  opens: boolean;
  /** The states it applies to, by stage. */
  from: Partial<Record<DisputeStage, readonly DisputeStatus[]>>;
  /** The stage it moves to (absent: stays) and the status. */
  to: { stage?: DisputeStage; status: DisputeStatus };
}

/** event -> where it applies and where it moves to. Nothing else decides a dispute's state. */
export const DISPUTE_TRANSITIONS: Readonly<Record<DisputeEvent, Transition>> = {
  request_for_information: { opens: true, from: {}, to: { stage: 'inquiry', status: 'evidence_required' } },
  // A notice that a chargeback is coming: no money moves yet.
  notification_of_chargeback: { opens: true, from: { inquiry: LIVE }, to: { stage: 'first_chargeback', status: 'open' } },
  chargeback: { opens: true, from: { inquiry: LIVE, first_chargeback: ['open'] }, to: { stage: 'first_chargeback', status: 'evidence_required' } },
  information_supplied: {
    opens: false,
    from: { inquiry: ['open', 'evidence_required'], first_chargeback: ['evidence_required'], second_chargeback: ['evidence_required'], arbitration: ['evidence_required'] },
    to: { status: 'evidence_submitted' },
  },
  // The defence period passed without a defence.
  defense_period_ended: { opens: false, from: { first_chargeback: ['evidence_required'], second_chargeback: ['evidence_required'] }, to: { status: 'lost' } },
  chargeback_reversed: { opens: false, from: { first_chargeback: ['evidence_required', 'evidence_submitted', 'lost'] }, to: { status: 'reversed' } },
  second_chargeback: { opens: false, from: { first_chargeback: WON }, to: { stage: 'second_chargeback', status: 'evidence_required' } },
  prearbitration_won: { opens: false, from: { second_chargeback: LIVE }, to: { status: 'won' } },
  prearbitration_lost: { opens: false, from: { second_chargeback: LIVE }, to: { status: 'lost' } },
  arbitration: { opens: false, from: { second_chargeback: [...LIVE, 'lost'] }, to: { stage: 'arbitration', status: 'evidence_submitted' } },
  won: { opens: false, from: { first_chargeback: LIVE, second_chargeback: LIVE, arbitration: LIVE }, to: { status: 'won' } },
  lost: { opens: false, from: { inquiry: LIVE, first_chargeback: LIVE, second_chargeback: LIVE, arbitration: LIVE }, to: { status: 'lost' } },
  accept: { opens: false, from: { first_chargeback: LIVE, second_chargeback: LIVE, arbitration: LIVE }, to: { status: 'accepted' } },
};

/** The state an event moves a dispute to; undefined when it does not apply there (or cannot open one). */
export function nextState(current: DisputeState | undefined, event: DisputeEvent): DisputeState | undefined {
  const t = DISPUTE_TRANSITIONS[event];
  if (!current) return t.opens ? { stage: t.to.stage ?? 'inquiry', status: t.to.status } : undefined;
  if (!t.from[current.stage]?.includes(current.status)) return undefined;
  return { stage: t.to.stage ?? current.stage, status: t.to.status };
}

/** States in which the merchant has been debited the dispute's amount. */
export function holdsMoney(s: DisputeState | undefined): boolean {
  if (!s || s.stage === 'inquiry') return false;
  if (s.stage === 'first_chargeback' && s.status === 'open') return false; // notified, not yet charged back
  return !WON.includes(s.status);
}

/** The ledger's move of a change: debit (a chargeback), credit back (won or reversed) or nothing. */
export function moneyMoveOf(before: DisputeState | undefined, after: DisputeState): 'debit' | 'credit' | 'none' {
  const was = holdsMoney(before), is = holdsMoney(after);
  return was === is ? 'none' : is ? 'debit' : 'credit';
}

export const isClosed = (s: DisputeState): boolean => !LIVE.includes(s.status);

// --- the total rule -----------------------------------------------------------------------------------------

/**
 * What remains to be charged back on a payment: captured less refunded less what its other disputes hold.
 * A dispute that would hold more is refused (the family's 208010).
 */
export function remainingDisputable(captured: bigint, refunded: bigint, heldByOthers: readonly bigint[]): bigint {
  const left = captured - refunded - heldByOthers.reduce((a, b) => a + b, 0n);
  return left > 0n ? left : 0n;
}

/** Whether a change that starts holding `amount` fits in what remains (changes that hold nothing new always fit). */
export function fitsCaptured(move: 'debit' | 'credit' | 'none', amount: bigint, remaining: bigint): boolean {
  return move !== 'debit' || (amount > 0n && amount <= remaining);
}

// --- reason codes -------------------------------------------------------------------------------------------

export const DISPUTE_CATEGORIES = ['fraud', 'authorization', 'processing_error', 'consumer_dispute'] as const;
export type DisputeCategory = (typeof DISPUTE_CATEGORIES)[number];

/**
 * Scheme reason codes -> category. Visa groups its codes by the number before the dot (10 fraud, 11 authorisation,
 * 12 processing errors, 13 consumer disputes); Mastercard's four-digit codes are listed one by one.
 */
const VISA_GROUPS: Readonly<Record<string, DisputeCategory>> = { '10': 'fraud', '11': 'authorization', '12': 'processing_error', '13': 'consumer_dispute' };
const MASTERCARD_CODES: Readonly<Record<string, DisputeCategory>> = {
  '4837': 'fraud', '4840': 'fraud', '4849': 'fraud', '4863': 'fraud', '4870': 'fraud', '4871': 'fraud',
  '4808': 'authorization', '4807': 'authorization', '4812': 'authorization',
  '4831': 'processing_error', '4834': 'processing_error', '4842': 'processing_error', '4846': 'processing_error',
  '4853': 'consumer_dispute', '4854': 'consumer_dispute', '4855': 'consumer_dispute', '4859': 'consumer_dispute', '4860': 'consumer_dispute',
};

/** The category of a scheme reason code; consumer_dispute when the code is unknown (the schemes' catch-all). */
export function categoryOf(reasonCode: string | null | undefined): DisputeCategory {
  const code = (reasonCode ?? '').trim();
  const visa = /^(\d{2})\.\d{1,2}$/.exec(code);
  if (visa) return VISA_GROUPS[visa[1]!] ?? 'consumer_dispute';
  return MASTERCARD_CODES[code] ?? 'consumer_dispute';
}

// --- the stored object --------------------------------------------------------------------------------------

/** Where a dispute came from: an operator (admin API), an acquirer's notices (by connector), its daily file (CSV import) or the sandbox's timeline. */
export const DISPUTE_SOURCES = ['operator', 'adyen', 'akurateco', 'sandbox', 'csv_import'] as const;
export type DisputeSource = (typeof DISPUTE_SOURCES)[number];
/** The connectors whose notifications carry dispute notices. */
export const isAcquirerDisputeSource = (name: string): name is 'adyen' | 'akurateco' => name === 'adyen' || name === 'akurateco';

export interface Dispute extends DisputeState {
  id: string;
  paymentId: string;
  merchantId: string;
  source: DisputeSource;
  /** The acquirer's reference of the dispute (unique per source); null for one entered by an operator. */
  externalRef: string | null;
  amount: bigint;
  currency: string;
  reasonCode: string | null;
  category: DisputeCategory;
  /** The acquirer's deadline for the next answer. */
  dueAt: Date | null;
  /** The date the issuing bank raised it, as the acquirer gives it. */
  bankDate: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface DisputeHistoryEntry {
  id: string;
  disputeId: string;
  event: DisputeEvent;
  noticeKey: string | null;
  actor: string;
  from: DisputeState | null;
  to: DisputeState;
  money: 'debit' | 'credit' | 'none';
  details: Record<string, unknown>;
  createdAt: Date;
}

export interface UnmatchedNotice {
  id: string;
  source: DisputeSource;
  noticeKey: string;
  event: string;
  paymentRef: string | null;
  /** The MID the notice came for (its notification endpoint's, or the imported file's); null on notices kept before it was recorded. */
  midId: string | null;
  payload: Record<string, unknown>;
  receivedAt: Date;
}

// --- monitoring ---------------------------------------------------------------------------------------------

/**
 * The default monitoring threshold: Visa's Dispute Monitoring Program (VDMP) standard level, 0.9 % of the
 * month's settled transactions and at least 100 disputes in the month. An operator compares against it; an
 * acquirer's own programme may be stricter.
 */
export const DEFAULT_RATIO_THRESHOLD = { ratioBp: 90n, minCount: 100n } as const;

/** Disputes per settled transaction in basis points (hundredths of a percent), rounded down; 0 without sales. */
export function ratioBp(disputes: bigint, settled: bigint): bigint {
  return settled > 0n ? (disputes * 10_000n) / settled : 0n;
}

export function overThreshold(disputes: bigint, settled: bigint, t: { ratioBp: bigint; minCount: bigint } = DEFAULT_RATIO_THRESHOLD): boolean {
  return disputes >= t.minCount && ratioBp(disputes, settled) >= t.ratioBp;
}

/** A ratio in basis points as a percentage with two decimals ("0.90"). */
export const percentOf = (bp: bigint): string => `${bp / 100n}.${(bp % 100n).toString().padStart(2, '0')}`;

// --- the sandbox's timeline ---------------------------------------------------------------------------------

const DAY_MS = 86_400_000;

export interface SandboxTimelineOptions {
  /** Days from the notice of chargeback to the chargeback (0: at once). */
  noticeDays: number;
  /** Days the merchant has to defend: the chargeback's deadline. */
  defenceDays: number;
  /** Days from the deadline to the issuer's decision on a defended chargeback. */
  reviewDays: number;
  /** The decision on a defended chargeback. */
  outcome: 'won' | 'lost';
}

export const SANDBOX_TIMELINE_DEFAULTS: SandboxTimelineOptions = { noticeDays: 1, defenceDays: 7, reviewDays: 7, outcome: 'won' };

export interface SandboxStep {
  seq: number;
  event: DisputeEvent;
  /** After the notice, on the merchant's clock. */
  afterMs: number;
  /** The deadline it sets, after the notice. */
  dueAfterMs?: number;
}

/**
 * What the sandbox plays after its notice of chargeback: the chargeback (deadline set), the end of the defence
 * period, the decision. Each step is an event of the transition table applied as an acquirer's notice, so one
 * that no longer applies (a defended chargeback is not lost at the deadline; an accepted one is not decided) is
 * ignored: defend it before the deadline (information_supplied) and the outcome comes; leave it and it is lost.
 */
export function sandboxTimeline(o: SandboxTimelineOptions): SandboxStep[] {
  const deadline = (o.noticeDays + o.defenceDays) * DAY_MS;
  return [
    { seq: 1, event: 'chargeback', afterMs: o.noticeDays * DAY_MS, dueAfterMs: deadline },
    { seq: 2, event: 'defense_period_ended', afterMs: deadline },
    { seq: 3, event: o.outcome, afterMs: deadline + o.reviewDays * DAY_MS },
  ];
}

// --- defence: evidence and deadlines ------------------------------------------------------------------------

/** The file types evidence may have, told by their first bytes (never by the name or a declared type). */
export const EVIDENCE_TYPES: readonly { contentType: string; magic: readonly number[] }[] = [
  { contentType: 'application/pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { contentType: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { contentType: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
];

/** Acquirers' portals take a few megabytes per dispute (Adyen: 2 MB a file for most types); ours are the same order. */
export const EVIDENCE_LIMITS = { fileBytes: 2 * 1024 * 1024, totalBytes: 8 * 1024 * 1024, items: 10, textChars: 20_000 } as const;

/** The evidence type of a file by its magic bytes; undefined when it is none of EVIDENCE_TYPES. */
export function evidenceTypeOf(bytes: Uint8Array): string | undefined {
  return EVIDENCE_TYPES.find((t) => t.magic.length <= bytes.length && t.magic.every((b, i) => bytes[i] === b))?.contentType;
}

/** Whether a dispute can still be defended (it awaits evidence, or a further piece of it). */
export const isDefensible = (s: DisputeState): boolean => s.status === 'open' || s.status === 'evidence_required';

/** How long before a deadline it is alerted (and listed as due soon): three days. */
export const DEADLINE_ALERT_MS = 3 * 86_400_000;

export type DeadlineState = 'none' | 'later' | 'due_soon' | 'overdue';

/** Where a live dispute stands against its deadline at `now`. Closed disputes have none. */
export function deadlineState(d: DisputeState & { dueAt: Date | null }, now: Date, windowMs = DEADLINE_ALERT_MS): DeadlineState {
  if (!d.dueAt || isClosed(d)) return 'none';
  const left = d.dueAt.getTime() - now.getTime();
  return left <= 0 ? 'overdue' : left <= windowMs ? 'due_soon' : 'later';
}
