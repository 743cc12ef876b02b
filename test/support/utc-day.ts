/**
 * Tests that read the real date and compare it, a while later, with what the gateway wrote or shows (a charge due
 * "today", the day of a payment made in a `before` hook, the home's range ending today) fail for nothing when the run
 * straddles 00:00 UTC, as CI near midnight may. Called where the test's date-dependent span begins (before its
 * seeding): with fewer than `marginMs` left before the next UTC midnight it waits until a second after it, so the
 * whole span falls on the day it answers ('YYYY-MM-DD', UTC). `now` and `sleep` are for its own test.
 */
const DAY_MS = 86_400_000;

export async function dayAwayFromMidnight(
  marginMs: number,
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<string> {
  const leftToday = DAY_MS - (now() % DAY_MS);
  if (leftToday < marginMs) await sleep(leftToday + 1_000);
  return new Date(now()).toISOString().slice(0, 10);
}
