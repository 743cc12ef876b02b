/**
 * Sandbox test clock (JSON or form): `POST /sandbox/test-clock` reads a sandbox merchant's clock,
 * `POST /sandbox/test-clock/advance` moves it forward by `days` and/or `seconds`. Signed as Checkout requests
 * are, over the request's fields in order then the password:
 *   read:    sha1(md5(UPPER(merchant_key . PASSWORD)))
 *   advance: sha1(md5(UPPER(merchant_key . days . seconds . PASSWORD)))   (an absent value is left out)
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../services/context.ts';
import { authenticate } from '../channels/merchant-auth.ts';
import { checkoutHash } from '../domain/signatures.ts';
import { wireDate } from '../domain/clock.ts';
import { GatewayError, MESSAGES } from '../domain/errors.ts';
import { advanceTestClock, readTestClock, type TestClockState } from '../services/schedules/test-clock.ts';
import { DATE, DEMO, demoHash, type Json, type OperationDoc } from '../channels/route-docs.ts';

const TAG = { tags: ['Sandbox'] };
const MerchantKey = Type.String({ minLength: 1, maxLength: 255 });
const Hash = Type.String({ minLength: 1, maxLength: 128 });
const Count = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,10}$' })], { errorMessage: MESSAGES.notValid });

const ReadRequest = Type.Object({ merchant_key: MerchantKey, hash: Hash });
type ReadRequest = Static<typeof ReadRequest>;
const AdvanceRequest = Type.Object({ merchant_key: MerchantKey, days: Type.Optional(Count), seconds: Type.Optional(Count), hash: Hash });
type AdvanceRequest = Static<typeof AdvanceRequest>;

const DAY_SECONDS = 86_400;

const TestClockAnswer = Type.Object({ merchant_key: Type.String(), now: Type.String(), offset_seconds: Type.Integer() });
const clockDoc = (recipe: 'testClock' | 'testClockAdvance', example: Json, offset: number): OperationDoc => ({
  description: 'JSON or form.', recipe: [recipe], example, answer: TestClockAnswer, answerExample: { merchant_key: DEMO.key, now: DATE, offset_seconds: offset }, errors: ['testClockLiveMerchant'],
});
const text = (v: string | number | undefined): string => (v === undefined ? '' : String(v));

function answer(merchantKey: string, state: TestClockState): Record<string, unknown> {
  return { merchant_key: merchantKey, now: wireDate(state.now), offset_seconds: Math.floor(state.offsetMs / 1000) };
}

export function registerTestClockRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: ReadRequest }>('/sandbox/test-clock', {
    schema: { ...TAG, summary: "A sandbox merchant's test clock", body: ReadRequest },
    config: { doc: clockDoc('testClock', { merchant_key: DEMO.key, hash: demoHash.checkout([DEMO.key]) }, 0) },
  }, async (req) => {
    const b = req.body;
    const { merchant } = await authenticate(ctx, req, b.merchant_key, b.hash, (m) => [(upper) => checkoutHash([b.merchant_key], m.password, m.digest, upper)]);
    return answer(b.merchant_key, await readTestClock(ctx, merchant));
  });

  app.post<{ Body: AdvanceRequest }>('/sandbox/test-clock/advance', {
    schema: { ...TAG, summary: "Moves a sandbox merchant's schedule time forward", body: AdvanceRequest },
    config: { doc: clockDoc('testClockAdvance', { merchant_key: DEMO.key, days: 30, hash: demoHash.checkout([DEMO.key, '30']) }, 30 * DAY_SECONDS) },
  }, async (req) => {
    const b = req.body;
    const { merchant } = await authenticate(ctx, req, b.merchant_key, b.hash, (m) => [(upper) => checkoutHash([b.merchant_key, text(b.days), text(b.seconds)], m.password, m.digest, upper)]);
    const seconds = Number(b.days ?? 0) * DAY_SECONDS + Number(b.seconds ?? 0);
    if (!Number.isSafeInteger(seconds * 1000)) throw GatewayError.field('seconds', MESSAGES.notValid);
    return answer(b.merchant_key, await advanceTestClock(ctx, merchant, seconds * 1000));
  });
}
