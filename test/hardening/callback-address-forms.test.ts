/**
 * Issue 25, item 14: the callback address filter decides on the IPv4 address every IPv6 form carries
 * (IPv4-compatible, mapped, translated, NAT64, 6to4, Teredo, ISATAP), in every spelling the URL parser takes,
 * and refuses site-local fec0::/10. Property-tested over generated addresses, and over HTTP on the four
 * spellings the attack used.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { callbackUrlProblem, PRIVATE_TARGET_MESSAGE } from '../../src/domain/callback-targets.ts';
import { isPrivateAddress } from '../../src/domain/callback-policy.ts';

/** Internal IPv4 ranges, written here from the RFCs (not from the gateway's table): [first address, prefix length]. */
const INTERNAL_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16],
];
const toInt = (dotted: string) => dotted.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
const inRange = (ip: number, [base, bits]: [string, number]) => Math.floor(ip / 2 ** (32 - bits)) === Math.floor(toInt(base) / 2 ** (32 - bits));

const internalV4 = fc.constantFrom(...INTERNAL_V4).chain(([base, bits]) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => toInt(base) + offset));
/** Public unicast: outside every internal, reserved and multicast range. */
const publicV4 = fc.integer({ min: toInt('1.0.0.0'), max: toInt('223.255.255.255') })
  .filter((ip) => ![...INTERNAL_V4, ['192.0.0.0', 24], ['198.18.0.0', 15]].some((r) => inRange(ip, r as [string, number])));

const hex = (n: number) => n.toString(16);
const dotted = (ip: number) => [24, 16, 8, 0].map((s) => (ip >>> s) & 0xff).join('.');
const groups = (ip: number) => `${hex(ip >>> 16)}:${hex(ip & 0xffff)}`;
/** Either tail spelling of an embedded IPv4 address: dotted or two hex groups, sometimes upper case or zero-padded. */
const tail = (ip: number, style: number) => [dotted(ip), groups(ip), groups(ip).toUpperCase(), `${hex(ip >>> 16).padStart(4, '0')}:${hex(ip & 0xffff).padStart(4, '0')}`][style % 4]!;
const group = fc.integer({ min: 0, max: 0xffff }).map(hex);

/** Each IPv6 form that carries an IPv4 address, as a generator of literals carrying `ip`. */
const FORMS: Record<string, (ip: number) => fc.Arbitrary<string>> = {
  'IPv4-compatible': (ip) => fc.nat(3).map((s) => [`::${tail(ip, s)}`, `0:0:0:0:0:0:${tail(ip, s)}`][s % 2]!),
  'IPv4-mapped': (ip) => fc.nat(3).map((s) => [`::ffff:${tail(ip, s)}`, `0:0:0:0:0:FFFF:${tail(ip, s)}`][s % 2]!),
  'IPv4-translated': (ip) => fc.nat(3).map((s) => `::ffff:0:${tail(ip, s)}`),
  'NAT64': (ip) => fc.nat(3).map((s) => `64:ff9b::${tail(ip, s)}`),
  '6to4': (ip) => fc.tuple(group, group).map(([a, b]) => `2002:${groups(ip)}:${a}::${b}`),
  'Teredo (client)': (ip) => fc.tuple(publicV4, group).map(([server, port]) => `2001:0:${groups(server)}:0:${port}:${groups(~ip >>> 0)}`),
  'Teredo (server)': (ip) => fc.tuple(publicV4, group).map(([client, port]) => `2001:0:${groups(ip)}:8000:${port}:${groups(~client >>> 0)}`),
  'ISATAP': (ip) => fc.tuple(fc.constantFrom('2001:4860:1:2', '2a00:1450:4001:80b'), fc.constantFrom('0', '200')).map(([prefix, u]) => `${prefix}:${u}:5efe:${tail(ip, 0)}`),
};

const refused = (literal: string) => callbackUrlProblem(`http://[${literal}]:8080/cb`) === PRIVATE_TARGET_MESSAGE;

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('Callback address forms (property)', () => {
  for (const [form, carrying] of Object.entries(FORMS)) {
    it(`${form}: refused when it carries an internal IPv4 address, before and after DNS`, () => {
      fc.assert(fc.property(internalV4.chain(carrying), (literal) => refused(literal) && isPrivateAddress(literal)), { numRuns: 300 });
    });
    it(`${form}: accepted when it carries only public IPv4 addresses`, () => {
      fc.assert(fc.property(publicV4.chain(carrying), (literal) => !refused(literal) && !isPrivateAddress(literal)), { numRuns: 300 });
    });
  }

  it('refuses site-local fec0::/10, unique local, link-local and multicast whatever follows', () => {
    const prefix = fc.constantFrom(0xfec0, 0xfc00, 0xfe80, 0xff02).chain((base) => fc.integer({ min: 0, max: 0x3f }).map((low) => hex(base | low)));
    fc.assert(fc.property(prefix, fc.array(group, { minLength: 7, maxLength: 7 }), (first, rest) => refused([first, ...rest].join(':'))), { numRuns: 300 });
  });
});

for (const { kind, skip } of kinds) {
  describe(`Callback address forms over HTTP (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind, { allowedPrivateHosts: [] });
    });
    after(async () => t?.close());

    it('refuses the IPv6 spellings of loopback and site-local the attack used, naming callback_url', async () => {
      for (const url of ['http://[::127.0.0.1]/cb', 'http://[::ffff:0:7f00:1]/cb', 'http://[2002:7f00:1::]/cb', 'http://[fec0::1]/cb']) {
        const res = await sale(t, { callback_url: url });
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: `callback_url: ${PRIVATE_TARGET_MESSAGE}` }], url);
      }
    });

    it('still accepts a public IPv6 callback target', async () => {
      const res = await sale(t, { callback_url: 'http://[2001:4860:4860::8888]/cb' });
      assert.equal(res.status, 200, res.text);
    });
  });
}
