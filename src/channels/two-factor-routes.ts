/**
 * Two-factor sign-in's routes (issue 30), the same for the admin API (operators) and the portal API (merchant
 * users): the status, the set-up (QR code), its confirmation with the first code (answers the recovery codes
 * once), and switching it off with a current code. Each API passes its own sign-in hook, which lets a session
 * that must set up two-factor sign-in through to these routes only.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../services/context.ts';
import {
  confirmEnrolment, disableTwoFactor, startEnrolment, twoFactorStatus, type TwoFactorAudit, type TwoFactorUserKind,
} from '../services/two-factor.ts';

export const TwoFactorCode = Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code the authenticator app shows now.' });
export const SecondFactorFields = {
  code: Type.Optional(Type.String({ maxLength: 16, description: 'With two-factor sign-in on: the 6-digit code of the authenticator app.' })),
  recovery_code: Type.Optional(Type.String({ maxLength: 32, description: 'With two-factor sign-in on, instead of `code`: one of the recovery codes (each works once).' })),
};

const Status = Type.Object({
  enabled: Type.Boolean(),
  mandatory: Type.Boolean({ description: 'The gateway requires it (REQUIRE_TWO_FACTOR): it can not be switched off.' }),
  recovery_codes_left: Type.Integer(),
}, { examples: [{ enabled: true, mandatory: true, recovery_codes_left: 9 }] });

const Enrolment = Type.Object({
  secret: Type.String({ description: 'Base32, for an app that cannot scan the QR code.' }),
  otpauth_uri: Type.String({ description: 'otpauth://totp/... (RFC 6238: SHA-1, 6 digits, 30 s).' }),
  qr_svg: Type.String({ description: 'The QR code of otpauth_uri, an SVG document.' }),
}, { examples: [{ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauth_uri: 'otpauth://totp/Portcullis:fin%40shop.example?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&period=30&issuer=Portcullis', qr_svg: '<svg xmlns="http://www.w3.org/2000/svg" ...</svg>' }] });

const NoBody = Type.Object({}, { additionalProperties: false, description: 'No fields (the body may be absent).', examples: [{}] });

const CodeBody = Type.Object({ code: TwoFactorCode }, { additionalProperties: false, examples: [{ code: '492039' }] });
type CodeBody = Static<typeof CodeBody>;

const RecoveryCodes = Type.Object({
  recovery_codes: Type.Array(Type.String(), { description: 'Ten one-time codes for when the phone is lost: shown in this answer only.' }),
}, { examples: [{ recovery_codes: ['k7m2p-x9q4r', 'c3v8n-w2t6y'] }] });

export interface TwoFactorRouteOptions {
  kind: TwoFactorUserKind;
  tags: string[];
  security?: Record<string, string[]>[];
  /** Signs the request in, letting a session that must enrol through. */
  onRequest: onRequestHookHandler;
  /** The signed-in user: id, the account name the app shows, the session (if a cookie signed in) and the audit's actor. */
  who: (req: FastifyRequest) => { userId: string; account: string; sessionId?: string; audit: TwoFactorAudit };
  /** The D3 error answers of the API. */
  responses: (success: Record<number, TSchema>, errors?: readonly (400 | 401 | 403 | 404)[]) => Record<number, TSchema>;
}

export function registerTwoFactorRoutes(app: FastifyInstance, ctx: ServiceContext, o: TwoFactorRouteOptions): void {
  const base = { tags: o.tags, ...(o.security ? { security: o.security } : {}) };
  const presentStatus = (s: Awaited<ReturnType<typeof twoFactorStatus>>) => ({ enabled: s.enabled, mandatory: s.mandatory, recovery_codes_left: s.recoveryCodesLeft });

  app.get('/two-factor', {
    onRequest: o.onRequest,
    schema: { ...base, summary: 'Whether two-factor sign-in is on for the signed-in user, and whether it is mandatory', response: o.responses({ 200: Status }, []) },
  }, async (req) => presentStatus(await twoFactorStatus(ctx, o.kind, o.who(req).userId)));

  app.post('/two-factor/enrolment', {
    onRequest: o.onRequest,
    preValidation: async (req) => { req.body ??= {}; },
    schema: { ...base, summary: 'Start setting up two-factor sign-in: a new secret and its QR code for an authenticator app', body: NoBody, response: o.responses({ 201: Enrolment }, [400]) },
  }, async (req, reply) => {
    const who = o.who(req);
    const e = await startEnrolment(ctx, o.kind, who.userId, who.account);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ secret: e.secret, otpauth_uri: e.otpauthUri, qr_svg: e.qrSvg });
  });

  app.post<{ Body: CodeBody }>('/two-factor/enrolment/confirm', {
    onRequest: o.onRequest,
    schema: { ...base, summary: 'Confirm the set-up with the app\'s first code: two-factor sign-in is on; answers the recovery codes once', body: CodeBody, response: o.responses({ 201: RecoveryCodes }, [400]) },
  }, async (req, reply) => {
    const who = o.who(req);
    const codes = await confirmEnrolment(ctx, o.kind, who.userId, req.body.code, who.sessionId, who.audit);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ recovery_codes: codes });
  });

  app.post<{ Body: CodeBody }>('/two-factor/disable', {
    onRequest: o.onRequest,
    schema: { ...base, summary: 'Switch two-factor sign-in off with a current code (refused while the gateway makes it mandatory)', body: CodeBody, response: o.responses({ 204: Type.Null() }, [400]) },
  }, async (req, reply) => {
    const who = o.who(req);
    await disableTwoFactor(ctx, o.kind, who.userId, req.body.code, who.audit);
    return reply.code(204).send();
  });
}
