/**
 * The embedded store (PGlite) is a database in files with no server in front: two processes opening it at
 * once (the gateway and `npm run admin`) would each write it as if alone and corrupt it. A lock file beside
 * the data, holding the owner's pid, makes the second one stop with a clear message instead. A lock left by
 * a process that died is taken over.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `dataDir`; resolves to its release. */
export async function lockEmbeddedStore(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      // A container restarts its process under the same pid: a lock naming this very process is stale too.
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(`the embedded store in ${dataDir} is in use by process ${owner} (a running gateway?): stop it first, or use the admin API`);
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`could not lock the embedded store in ${dataDir}`);
}
