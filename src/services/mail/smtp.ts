/**
 * E-mail over SMTP (issue 30), with nodemailer: SMTP_URL names the server, e.g.
 * `smtps://user:pass@mail.example.com:465` or `smtp://mail.example.com:587` (STARTTLS when offered). Plain text
 * only. A failure is thrown to the caller, which answers it (an invitation not sent is not silently lost).
 */
import nodemailer from 'nodemailer';
import type { MailMessage, MailPort } from '../context.ts';

export const DEFAULT_MAIL_FROM = 'Portcullis <no-reply@localhost>';

export function smtpMail(url: string, from = DEFAULT_MAIL_FROM): MailPort {
  const transport = nodemailer.createTransport(url);
  return {
    async send(m: MailMessage) {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
  };
}
