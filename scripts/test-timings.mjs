/**
 * A second reporter of `npm test` (scripts/test.mjs): where the time of a run went, file by file. Each file's
 * seconds are the sum of its top-level tests and suites (they run one after the other in the file's process), so
 * they leave out the process's start and imports (1 to 2 s each). At the end of the run it writes every file's
 * seconds, slowest first, to TEST_TIMINGS_FILE (default node_modules/.cache/portcullis-test-times.tsv) and
 * prints the slowest fifteen, which is where a run that got slower should be looked at first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SHOWN = 15;

export default async function* timings(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file) continue;
    perFile.set(file, (perFile.get(file) ?? 0) + (details?.duration_ms ?? 0) / 1000);
  }
  if (perFile.size === 0) return;
  const root = process.cwd();
  // The compiled copies (scripts/test-build.mjs) are named by the source they came from.
  const name = (file) => path.relative(root, file).replace(/^node_modules\/\.cache\/portcullis-tests\/run-[^/]+\//, '').replace(/\.js$/, '.ts');
  const rows = [...perFile].map(([file, seconds]) => [name(file), seconds]).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, seconds]) => sum + seconds, 0);
  const out = process.env.TEST_TIMINGS_FILE ?? path.join(root, 'node_modules', '.cache', 'portcullis-test-times.tsv');
  try {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `file\tseconds\n${rows.map(([file, seconds]) => `${file}\t${seconds.toFixed(1)}`).join('\n')}\n`);
  } catch {
    // The table is a convenience: a read-only checkout still gets the summary below.
  }
  const lines = rows.slice(0, SHOWN).map(([file, seconds]) => `ℹ ${seconds.toFixed(1).padStart(7)} s  ${file}`);
  yield `ℹ slowest test files (of ${rows.length}, ${total.toFixed(0)} s in all, each file's tests without its start-up; every file in ${path.relative(root, out)}):\n${lines.join('\n')}\n`;
}
