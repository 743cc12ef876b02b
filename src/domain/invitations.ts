/**
 * Invitations of merchant portal users (issue 30), pure: the link's token (32 random bytes; only its SHA-256
 * digest is stored, as for API tokens and session cookies), its lifetime, and the link. The token travels in the
 * URL's fragment, which browsers never send to a server, so it reaches no access log.
 */
import { createHash, randomBytes } from 'node:crypto';

export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60_000;

export const newInvitationToken = (): string => randomBytes(32).toString('base64url');
export const invitationDigest = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The portal page where the invitee sets the password. */
export function invitationLink(baseUrl: string, token: string): string {
  return `${new URL('/portal/invitation', baseUrl).href}#token=${token}`;
}

export interface InvitationMail {
  to: string;
  subject: string;
  text: string;
  link: string;
}

/** The invitation e-mail (plain text: no markup to escape, nothing remote to load). */
export function invitationMail(i: { to: string; inviteeName: string; merchantName: string; role: string; link: string; expiresAt: Date }): InvitationMail {
  return {
    to: i.to,
    subject: `You are invited to the ${i.merchantName} portal`,
    link: i.link,
    text: [
      `Hello ${i.inviteeName},`,
      '',
      `You have been invited to the payment portal of ${i.merchantName} as ${i.role}.`,
      'Open this link to choose your password (it works once, until ' + i.expiresAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC):',
      '',
      i.link,
      '',
      'If you did not expect this invitation, ignore this e-mail.',
    ].join('\n'),
  };
}
