/**
 * The bench server over the compiled build, as production runs the gateway (`npm run start:prod` = node
 * dist/main.js: no TypeScript loader and its hooks): bench/server.ts and the module it imports beside it, stripped
 * of their types (esbuild, as tsx does, but without its keepNames) into dist/bench/, importing dist/ instead of src/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

/** Compiles src/ into dist/ (scripts/build.mjs: tsc and the assets beside it; the console's build is not needed). */
export function buildDist(): void {
  const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error(`node scripts/build.mjs failed (${built.status})`);
}

/** dist/bench/server.js, written from bench/ over the dist/ there is (buildDist first, or `npm run build`). */
export async function compiledServer(): Promise<string> {
  if (!existsSync(path.join(root, 'dist', 'gateway.js'))) throw new Error('no compiled build: run `npm run build` first');
  const { transformSync } = await import('esbuild');
  mkdirSync(path.join(root, 'dist', 'bench'), { recursive: true });
  for (const name of ['server', 'risk-rules', 'sale-writes']) {
    const source = readFileSync(path.join(here, `${name}.ts`), 'utf8').replace(/'\.\.\/src\/([^']+)\.ts'/g, "'../$1.js'").replace(/'\.\/([^']+)\.ts'/g, "'./$1.js'");
    writeFileSync(path.join(root, 'dist', 'bench', `${name}.js`), transformSync(source, { loader: 'ts', format: 'esm', target: `node${process.versions.node}` }).code);
  }
  return path.join(root, 'dist', 'bench', 'server.js');
}
