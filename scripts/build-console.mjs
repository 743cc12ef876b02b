#!/usr/bin/env node
// `npm run build:console` (and npm ci's prepare step): the operator console under console/.
// 1. the gateway's OpenAPI description, as /docs/json serves it (scripts/openapi-spec.ts);
// 2. TypeScript types of the admin API generated from it (openapi-typescript) into console/src/api/schema.d.ts;
// 3. the Vite build into console/dist, which the gateway serves at /admin;
// 4. the Vite build of the merchant portal (issue 30) into portal/dist, served at /portal: typed by the same
//    generated API types (its /portal/v1 paths), sharing the console's UI pieces and styles.
// Everything it writes is git-ignored. Without the build tools (an install with --omit=dev) and with a
// console already built, it leaves the build as it is.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const consoleRoot = path.join(root, 'console');
const portalRoot = path.join(root, 'portal');
const spec = path.join(consoleRoot, 'generated', 'openapi.json');
const types = path.join(consoleRoot, 'src', 'api', 'schema.d.ts');

// --if-changed (the test runner's): build only when what the build reads changed since the last build. The build's
// outputs are git-ignored, so a checkout that pulled new routes would otherwise type-check the console against the
// old API types and serve the old screens.
const inputsStamp = path.join(consoleRoot, 'dist', '.inputs-sha256');
function filesUnder(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}
function inputsDigest() {
  const hash = createHash('sha256');
  const inputs = [
    ...filesUnder(path.join(root, 'src')), ...filesUnder(path.join(consoleRoot, 'src')).filter((f) => f !== types),
    path.join(consoleRoot, 'index.html'), path.join(consoleRoot, 'vite.config.ts'), path.join(root, 'package-lock.json'),
    ...filesUnder(path.join(portalRoot, 'src')), path.join(portalRoot, 'index.html'), path.join(portalRoot, 'vite.config.ts'),
    path.join(root, 'scripts', 'build-console.mjs'), path.join(root, 'scripts', 'openapi-spec.ts'),
  ];
  for (const file of inputs) hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}
const digest = inputsDigest();
if (process.argv.includes('--if-changed') && existsSync(inputsStamp) && readFileSync(inputsStamp, 'utf8') === digest) {
  process.exit(0);
}

const hasTools = existsSync(path.join(root, 'node_modules', 'vite')) && existsSync(path.join(root, 'node_modules', 'openapi-typescript'));
if (!hasTools) {
  if (existsSync(path.join(consoleRoot, 'dist', 'index.html')) && existsSync(path.join(portalRoot, 'dist', 'index.html'))) {
    console.log('console: build tools not installed; keeping the console and portal already built in console/dist and portal/dist');
    process.exit(0);
  }
  console.error('console: vite and openapi-typescript are needed to build the console (npm ci installs them)');
  process.exit(1);
}

function run(label, args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, LOG_LEVEL: 'silent' } });
  if (result.status !== 0) {
    console.error(`console: ${label} failed`);
    process.exit(result.status ?? 1);
  }
}

run('OpenAPI description', ['--import', 'tsx', path.join(root, 'scripts', 'openapi-spec.ts'), spec]);
// OpenAPI 3.0 has no null type: @fastify/swagger writes TypeBox's Type.Null() as `{enum: [null], nullable: true}`,
// which openapi-typescript 6 cannot read. In a union, such a member becomes `nullable` on the union itself.
const isNullSchema = (s) => s && typeof s === 'object' && Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null;
function nullsToNullable(node) {
  if (Array.isArray(node)) return node.map(nullsToNullable);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullsToNullable(v)]));
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(out[key]) && out[key].some(isNullSchema)) {
      out[key] = out[key].filter((s) => !isNullSchema(s));
      out.nullable = true;
    }
  }
  if (isNullSchema(out)) return { nullable: true };
  return out;
}
const typesInput = path.join(consoleRoot, 'generated', 'openapi.types-input.json');
writeFileSync(typesInput, JSON.stringify(nullsToNullable(JSON.parse(readFileSync(spec, 'utf8')))));
// The admin API's query parameters and their allowed values, for the console's filter forms (options are read
// from the spec, not listed again in the console).
function enumOf(schema) {
  const values = (schema?.enum ?? schema?.anyOf?.flatMap((s) => s.enum ?? []))?.filter((v) => v !== null);
  return values?.length ? values : undefined;
}
const queryParams = Object.fromEntries(Object.entries(JSON.parse(readFileSync(spec, 'utf8')).paths)
  .filter(([p, ops]) => (p.startsWith('/admin/v1/') || p.startsWith('/portal/v1/')) && ops.get?.parameters)
  .map(([p, ops]) => [p, ops.get.parameters.filter((x) => x.in === 'query').map((x) => ({ name: x.name, values: enumOf(x.schema), description: x.description }))]));
writeFileSync(path.join(consoleRoot, 'generated', 'query-params.json'), `${JSON.stringify(queryParams, null, 2)}\n`);
// The allowed values of every enumerated body field (dotted path; arrays by their items), same purpose.
function bodyEnums(schema, prefix = '', out = {}) {
  const values = enumOf(schema) ?? enumOf(schema?.items);
  // Members of a union add their values (the kinds of a tagged union: rules.then.kind).
  if (values?.length && prefix) out[prefix] = [...new Set([...(out[prefix] ?? []), ...values])];
  for (const [name, sub] of Object.entries(schema?.properties ?? {})) bodyEnums(sub, prefix ? `${prefix}.${name}` : name, out);
  // An array of objects: its items' fields under the array's name (rules.name, rules.then.kind).
  if (schema?.items?.properties) bodyEnums(schema.items, prefix, out);
  // A nullable object ({anyOf: [object, null]}): its fields under the same name.
  for (const member of [...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])]) if (member?.properties) bodyEnums(member, prefix, out);
  return out;
}
const bodyFields = Object.fromEntries(Object.entries(JSON.parse(readFileSync(spec, 'utf8')).paths)
  .filter(([p]) => p.startsWith('/admin/v1/'))
  .flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => op.requestBody)
    .map(([method, op]) => [`${method.toUpperCase()} ${p}`, bodyEnums(op.requestBody.content['application/json']?.schema)])));
writeFileSync(path.join(consoleRoot, 'generated', 'body-enums.json'), `${JSON.stringify(bodyFields, null, 2)}\n`);
run('API types', [path.join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), typesInput, '--output', types]);
run('Vite build', [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn', consoleRoot]);
run('Vite build of the portal', [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn', portalRoot]);
writeFileSync(inputsStamp, digest);
console.log('console: built console/dist (served at /admin) and portal/dist (served at /portal)');
