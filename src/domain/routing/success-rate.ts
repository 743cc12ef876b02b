/**
 * Success-rate routing (issue 15): a rule's MIDs ordered by their recent approval rate for the payment's currency
 * and card brand. Counts decay exponentially with time (a half-life), so newer outcomes weigh more; a MID with
 * fewer (decayed) outcomes than the rule's minimum scores the rule's default; and a share of payments explores: a
 * MID drawn at random goes first, so a MID that scored badly once keeps being measured. Scores are not money:
 * floating point is fine here.
 */

/** The counters of one MID for one currency and brand, as stored (decayed up to `updatedAt`). */
export interface OutcomeCounts {
  approved: number;
  total: number;
  updatedAt: Date;
}

export interface SuccessRateParams {
  /** Percent of payments (0 to 50) whose first MID is drawn at random among the rule's MIDs. */
  exploration_percent: number;
  /** Decayed outcomes a MID needs before its own rate counts. */
  min_outcomes: number;
  /** The score of a MID with too few outcomes (0 to 1). */
  default_score: number;
}

export const SUCCESS_RATE_DEFAULTS: SuccessRateParams = { exploration_percent: 10, min_outcomes: 20, default_score: 0.8 };
/** Default half-life of an outcome's weight. */
export const DEFAULT_HALF_LIFE_MINUTES = 60;

/** The counts as they weigh at `now`: each halves every half-life. */
export function decayed(counts: OutcomeCounts, now: Date, halfLifeMinutes: number): { approved: number; total: number } {
  const elapsed = Math.max(0, now.getTime() - counts.updatedAt.getTime());
  const factor = 0.5 ** (elapsed / (halfLifeMinutes * 60_000));
  return { approved: counts.approved * factor, total: counts.total * factor };
}

/** A MID's score as the router used it, recorded with the routing decision. */
export interface MidScore {
  mid_id: string;
  score: number;
  /** Decayed outcomes behind the score. */
  outcomes: number;
  /** false: too few outcomes, the rule's default score. */
  observed: boolean;
}

export function scoreOf(midId: string, counts: OutcomeCounts | undefined, now: Date, halfLifeMinutes: number, params: SuccessRateParams): MidScore {
  const weight = counts ? decayed(counts, now, halfLifeMinutes) : { approved: 0, total: 0 };
  const observed = weight.total >= params.min_outcomes && weight.total > 0;
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return { mid_id: midId, score: round(observed ? weight.approved / weight.total : params.default_score), outcomes: round(weight.total), observed };
}

/**
 * The MIDs in attempt order: best score first (ties keep the rule's order), except that with the exploration
 * share one MID drawn uniformly goes first and the others follow by score.
 */
export function rankBySuccess(scores: readonly MidScore[], explorationPercent: number, draw: () => number): { order: string[]; explored: boolean } {
  const ranked = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s.score - a.s.score || a.i - b.i).map((x) => x.s.mid_id);
  if (ranked.length < 2 || draw() * 100 >= explorationPercent) return { order: ranked, explored: false };
  const pick = scores[Math.min(scores.length - 1, Math.floor(draw() * scores.length))]!.mid_id;
  return { order: [pick, ...ranked.filter((id) => id !== pick)], explored: true };
}
