/** The console's build, for tests that load it: built once if missing (npm ci builds it; a fresh checkout may not have). */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { consoleDir } from '../../src/channels/console/static.ts';

export function ensureConsoleBuilt(): void {
  if (existsSync(path.join(consoleDir(), 'index.html'))) return;
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/build-console.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the console build failed (npm run build:console)');
}
