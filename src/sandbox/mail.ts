/**
 * The gateway's e-mail in development (issue 30): kept in the sandbox outbox (the table the sandbox APM provider
 * writes its e-mails to), read at `/sandbox/outbox?to=ADDRESS` or as JSON at `/sandbox/outbox/messages?to=...`.
 * Nothing leaves the machine. Production never uses it (gateway.ts wires SMTP there, or nothing).
 */
import type { MailMessage, MailPort, Sql } from '../services/context.ts';
import type { Clock } from '../domain/clock.ts';
import { newId } from '../domain/ids.ts';
import { sqlSandboxStore } from './apm/store.ts';

export function sandboxMail(db: Sql, clock: Clock): MailPort {
  const store = sqlSandboxStore(db);
  return {
    async send(m: MailMessage) {
      await store.send({ id: newId(), channel: 'email', recipient: m.to, subject: m.subject, body: m.text, link: m.link ?? null }, clock.now());
    },
  };
}
