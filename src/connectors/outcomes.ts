/**
 * What an acquirer answers, in the words both connector interfaces share (the card one in types.ts, the APM one
 * in apm-types.ts). Types only; it imports neither interface, so the two interfaces and the error vocabulary
 * (error-codes.ts) do not import each other in a circle.
 */
import type { ReportedFacts } from '../domain/integrity.ts';
import type { UnifiedCode } from '../domain/declines.ts';

/** What the acquirer reports it did: the facts the integrity check compares with the request. */
export type Reported = ReportedFacts;

/** A decline as the acquirer put it, and its unified code. */
export interface DeclineCode {
  code: UnifiedCode;
  rawCode?: string;
  rawMessage?: string;
}

export type FollowUpOutcome =
  | { kind: 'approved'; reference: string; reported?: Reported; arn?: string }
  | { kind: 'declined'; reason: string; error?: DeclineCode }
  | { kind: 'pending'; reason: string; reference?: string };
