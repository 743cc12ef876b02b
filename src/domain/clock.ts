/** Time is injected (design principle 5): everything that reads time reads a Clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2030-01-15T10:00:00Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}

/**
 * A clock running `offsetMs` ahead of another: a merchant's sandbox test clock, which moves that merchant's
 * schedule time without moving anyone else's.
 */
export function shiftedClock(base: Clock, offsetMs: number): Clock {
  return offsetMs === 0 ? base : { now: () => new Date(base.now().getTime() + offsetMs) };
}

/** The last second wireDate formatted: under load, many answers in a row carry the same second. */
let lastWireSecond = Number.NaN;
let lastWireDate = '';

/** `YYYY-MM-DD hh:mm:ss` in UTC (decisions D9). */
export function wireDate(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastWireSecond) {
    // An invalid date (NaN) never equals the cache and throws here, as toISOString always did.
    lastWireDate = d.toISOString().slice(0, 19).replace('T', ' ');
    lastWireSecond = second;
  }
  return lastWireDate;
}
