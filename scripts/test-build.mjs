/**
 * Compiles the test files, and every .ts file they import, to JavaScript once per `npm test`, so each test
 * process (one per file) starts on plain node instead of tsx. tsx spends about 3.5 s of CPU starting a process
 * that imports the gateway, nearly all of it resolving and loading modules through its hooks (its transforms
 * are cached already); the compiled modules load in about 1.2 s, and compiling them all takes a few seconds.
 *
 * Each file keeps its own module, one for one, in the same place under a fresh directory beside the
 * dependencies (so `fastify` and the rest resolve as from the sources): relative `.ts` imports point at the
 * compiled files, everything else stays as written. `import.meta.url` (and `dirname`/`filename`) is replaced by
 * the source file's own, so whatever a module reads, writes or starts relative to itself (migrations, pages'
 * assets, fixtures, docs, child processes under tsx) is found where it is. Linked source maps keep stack traces on
 * the .ts lines (run node with --enable-source-maps).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;
const STALE_MS = 24 * 60 * 60 * 1000;

/** esbuild, as tsx (a dependency) brings it: no dependency of its own to keep in step. */
function loadEsbuild(root) {
  const tsxRequire = createRequire(createRequire(path.join(root, 'package.json')).resolve('tsx/package.json'));
  return import(pathToFileURL(tsxRequire.resolve('esbuild')).href);
}

/** Where each run compiles to: its own directory (worktrees may share node_modules), removed when it ends. */
function runDirectory(root) {
  const parent = path.join(root, 'node_modules', '.cache', 'portcullis-tests');
  mkdirSync(parent, { recursive: true });
  // Runs stopped before they could clean up leave theirs behind: a day later nobody is using it.
  for (const name of readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (Date.now() - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
  }
  const dir = mkdtempSync(path.join(parent, 'run-'));
  // Beside node_modules no package.json says the files are ES modules: this one does.
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

/** The compiled path of a source file under root. */
export function compiledPath(root, outDir, source) {
  return path.join(outDir, path.relative(root, source)).replace(/\.ts$/, '.js');
}

/**
 * Compiles `entries` (absolute .ts paths under root) and what they import into a fresh directory; returns it.
 * esbuild compiles each file on its own (every import external); the imports it meets are compiled in the next
 * round, until none is new.
 */
export async function compileTests(root, entries) {
  const esbuild = await loadEsbuild(root);
  const outDir = runDirectory(root);
  const tsconfig = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  const seen = new Set(entries);
  let round = [...entries];
  while (round.length > 0) {
    const next = [];
    const imports = {
      name: 'imports-stay-modules',
      setup(build) {
        build.onResolve({ filter: /.*/ }, ({ path: specifier, importer, kind }) => {
          if (kind === 'entry-point') return undefined;
          if (!/^\.\.?\//.test(specifier)) return { path: specifier, external: true };
          const target = path.resolve(path.dirname(importer), specifier);
          if (!target.endsWith('.ts') || target.includes(`${path.sep}node_modules${path.sep}`)) {
            return { path: pathToFileURL(target).href, external: true };
          }
          if (!seen.has(target)) {
            seen.add(target);
            next.push(target);
          }
          return { path: specifier.replace(/\.ts$/, '.js'), external: true };
        });
        build.onLoad({ filter: /\.ts$/ }, ({ path: file }) => {
          const own = { url: pathToFileURL(file).href, dirname: path.dirname(file), filename: file };
          const source = readFileSync(file, 'utf8').replace(IMPORT_META, (_, key) => JSON.stringify(own[key]));
          return { contents: source, loader: 'ts' };
        });
      },
    };
    const { outputFiles } = await esbuild.build({
      entryPoints: round,
      outdir: outDir,
      outbase: root,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      sourcemap: 'linked',
      sourcesContent: false,
      keepNames: true,
      tsconfigRaw: { compilerOptions: tsconfig.compilerOptions },
      plugins: [imports],
      logLevel: 'error',
      write: false,
    });
    for (const file of outputFiles) writeOutput(file);
    round = next;
  }
  return outDir;
}

/**
 * Writes one compiled file. A map names its sources relative to itself, which would point into another checkout
 * when node_modules is a link to it (git worktrees): the sources are named by their full URL instead.
 */
function writeOutput({ path: file, text }) {
  mkdirSync(path.dirname(file), { recursive: true });
  if (!file.endsWith('.map')) return writeFileSync(file, text);
  const map = JSON.parse(text);
  map.sources = map.sources.map((source) => pathToFileURL(path.resolve(path.dirname(file), source)).href);
  writeFileSync(file, JSON.stringify(map));
}

export function removeCompiled(outDir) {
  rmSync(outDir, { recursive: true, force: true });
}
