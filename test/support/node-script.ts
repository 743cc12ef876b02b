/**
 * How a test starts one of the project's TypeScript entry points in a child process (cwd: the repository): the
 * JavaScript `npm test` compiled it to (scripts/test-build.mjs, PORTCULLIS_TEST_BUILD), as the test itself runs,
 * else under tsx (a file run by hand with `node --import tsx --test`). tsx's module loading costs a child about
 * 2 s of CPU more.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function nodeArgs(script: string): string[] {
  const build = process.env.PORTCULLIS_TEST_BUILD;
  const compiled = build ? path.join(build, script.replace(/\.ts$/, '.js')) : undefined;
  // --liftoff-only: PGlite's WebAssembly compiled by V8's baseline compiler only, as in the test processes
  // (scripts/test.mjs): a short-lived child never earns back the optimising tier's compiling.
  return compiled && existsSync(compiled) ? ['--liftoff-only', '--enable-source-maps', compiled] : ['--liftoff-only', '--import', 'tsx', script];
}
