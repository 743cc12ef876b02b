/**
 * How a connector's own codes become the unified codes of domain/declines.ts (what the merchant is told, whether
 * another attempt may succeed, what the payer is advised): each connector has a declarative table
 * (connectors/<name>/errors.ts) and classifies with it here. The acquirer's raw code and message stay on the
 * transaction; the merchant sees the unified message only.
 */
import type { ReportedFacts } from '../domain/integrity.ts';
import { DECLINES, type RetryDecision, type UnifiedCode } from '../domain/declines.ts';

/** A connector's table: its codes (or upper-cased refusal texts) -> unified codes; anything else is `fallback`. */
export interface ErrorTable {
  readonly codes: Readonly<Record<string, UnifiedCode>>;
  readonly fallback: UnifiedCode;
}

export interface ClassifiedDecline {
  code: UnifiedCode;
  message: string;
  retry: RetryDecision;
  rawCode?: string;
  rawMessage?: string;
}

/** The unified code, message and retry decision of an acquirer's code (raw values kept as they came). */
export function classify(table: ErrorTable, rawCode: string | undefined, rawMessage?: string): ClassifiedDecline {
  const byCode = rawCode !== undefined ? table.codes[rawCode] : undefined;
  const byMessage = rawMessage !== undefined ? table.codes[rawMessage.trim().toUpperCase()] : undefined;
  const code = byCode ?? byMessage ?? table.fallback;
  const { message, retry } = DECLINES[code];
  return { code, message, retry, ...(rawCode !== undefined ? { rawCode } : {}), ...(rawMessage !== undefined ? { rawMessage } : {}) };
}

/** A declined outcome from a classified decline: the merchant reads the unified message. */
export function declinedOutcome(c: ClassifiedDecline, extra: { reference?: string; reported?: ReportedFacts } = {}) {
  return {
    kind: 'declined' as const,
    reason: c.message,
    error: { code: c.code, ...(c.rawCode !== undefined ? { rawCode: c.rawCode } : {}), ...(c.rawMessage !== undefined ? { rawMessage: c.rawMessage } : {}) },
    ...extra,
  };
}
