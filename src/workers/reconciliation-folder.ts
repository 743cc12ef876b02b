/**
 * The watched folder of reconciliation (issue 28): acquirers' settlement reports dropped as
 * `RECON_WATCH_DIR/<mid id>/<name>.csv` are imported as the admin API imports an upload (the same service: idempotent
 * by digest, a corrected batch superseding, a file with problems importing nothing). A file is claimed by renaming
 * it (atomic, so any number of nodes may watch one shared folder and each file is imported once), then moved to
 * `<mid id>/done/` or, with its problems beside it (`<name>.problems.txt`, one line each), to `<mid id>/failed/`.
 */
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceContext } from '../services/context.ts';
import { importReport } from '../services/reconciliation/import.ts';
import { GatewayError } from '../domain/errors.ts';
import { isUuid, newId } from '../domain/ids.ts';
import { PollingLoop } from './polling.ts';

const ACTOR = { userId: null, name: 'watched-folder' };

export class ReconciliationFolder {
  private readonly polling: PollingLoop;
  private readonly node = newId();

  constructor(private readonly ctx: ServiceContext, private readonly dir: string, opts: { pollMs?: number } = {}) {
    this.polling = new PollingLoop({
      pollMs: opts.pollMs ?? 60_000,
      pass: async () => (await this.runOnce(), false),
      onError: (err) => this.ctx.logger.error({ err: (err as Error).message }, 'reconciliation folder pass failed'),
    });
  }

  /** One pass over every MID's folder; the files imported (or refused) in it. */
  async runOnce(): Promise<{ file: string; outcome: 'imported' | 'unchanged' | 'failed' }[]> {
    const done: { file: string; outcome: 'imported' | 'unchanged' | 'failed' }[] = [];
    const mids = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    for (const m of mids) {
      if (!m.isDirectory() || !isUuid(m.name)) continue;
      const folder = path.join(this.dir, m.name);
      for (const f of await readdir(folder, { withFileTypes: true })) {
        if (!f.isFile() || !f.name.toLowerCase().endsWith('.csv') || this.polling.stopping) continue;
        const claimed = path.join(folder, `${f.name}.importing-${this.node}`);
        try {
          await rename(path.join(folder, f.name), claimed);
        } catch {
          continue; // another node took it
        }
        done.push({ file: `${m.name}/${f.name}`, outcome: await this.importOne(m.name, folder, f.name, claimed) });
      }
    }
    return done;
  }

  private async importOne(midId: string, folder: string, name: string, claimed: string): Promise<'imported' | 'unchanged' | 'failed'> {
    try {
      const result = await importReport(this.ctx, ACTOR, { midId, fileName: name, body: createReadStream(claimed) });
      await mkdir(path.join(folder, 'done'), { recursive: true });
      await rename(claimed, path.join(folder, 'done', name));
      this.ctx.logger.info({ mid: midId, file: name, import: result.import.id, unchanged: result.unchanged }, 'settlement report imported from the watched folder');
      return result.unchanged ? 'unchanged' : 'imported';
    } catch (err) {
      await mkdir(path.join(folder, 'failed'), { recursive: true });
      await rename(claimed, path.join(folder, 'failed', name));
      const problems = err instanceof GatewayError
        ? (err.fields.length > 0 ? err.fields.map((f) => `${f.field}: ${f.message}`) : [err.message])
        : ['the import failed; nothing was imported (see the gateway\'s log).'];
      await writeFile(path.join(folder, 'failed', `${name}.problems.txt`), `${problems.join('\n')}\n`);
      if (!(err instanceof GatewayError)) this.ctx.logger.error({ err: (err as Error).message, mid: midId, file: name }, 'settlement report import failed');
      return 'failed';
    }
  }

  start(): void {
    this.polling.start();
  }

  stop(): Promise<void> {
    return this.polling.stop();
  }
}
