/** Configuration by environment: defaults, overrides and refusals of bad values. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.baseUrl, 'http://localhost:8080');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.dataDir, path.resolve('./.data'));
    assert.equal(c.workers, true);
    assert.deepEqual(c.runner, { lanes: undefined, batchSize: undefined, leaseMs: undefined });
    assert.equal(c.vaultRetentionMinutes, 30);
  });

  it('reads every variable', () => {
    const c = loadConfig({ PORT: '9000', BASE_URL: 'https://pay.example/', DATABASE_URL: 'postgres://x/y', DATA_DIR: '/tmp/d', WORKERS: 'off', ADMIN_TOKEN: 't', RUNNER_LANES: '4', RUNNER_BATCH_SIZE: '250', RUNNER_LEASE_MS: '30000', DEMO_MERCHANT_KEY: 'k', VAULT_RETENTION_MINUTES: '90' });
    assert.equal(c.port, 9000);
    assert.equal(c.baseUrl, 'https://pay.example');
    assert.equal(c.databaseUrl, 'postgres://x/y');
    assert.equal(c.dataDir, '/tmp/d');
    assert.equal(c.workers, false);
    assert.equal(c.adminToken, 't');
    assert.deepEqual(c.runner, { lanes: 4, batchSize: 250, leaseMs: 30000 });
    assert.equal(c.demoMerchant.key, 'k');
    assert.equal(c.vaultRetentionMinutes, 90);
  });

  it('reads TRUST_PROXY as off, a hop count or proxy addresses, never "trust everyone"', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,loopback,fd00::/8' }).trustProxy, ['10.0.0.0/8', '192.0.2.7', 'loopback', 'fd00::/8']);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'true' }), /every client/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /TRUST_PROXY/);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'proxy.internal' }), /TRUST_PROXY/);
  });

  it('refuses values that are not whole numbers', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/);
    assert.throws(() => loadConfig({ RUNNER_LANES: '-1' }), /RUNNER_LANES/);
    assert.throws(() => loadConfig({ VAULT_RETENTION_MINUTES: '1.5' }), /VAULT_RETENTION_MINUTES/);
  });

  it('keeps the vault grace period above the ten minutes a collected card waits for processing', () => {
    assert.throws(() => loadConfig({ VAULT_RETENTION_MINUTES: '10' }), /VAULT_RETENTION_MINUTES must be at least 15/);
    assert.equal(loadConfig({ VAULT_RETENTION_MINUTES: '15' }).vaultRetentionMinutes, 15);
  });

  it('reads the hardening settings (issue 12)', () => {
    const d = loadConfig({});
    assert.deepEqual(d.callbackAllowedPrivateHosts, []);
    assert.deepEqual(d.rateLimits, { enabled: true, windowSeconds: 60, authFailures: 30, keyFailures: 1000, hostedFields: 120, otpAttempts: 5, providerNotifications: 10 });
    assert.equal(d.production, false);
    const c = loadConfig({ CALLBACK_ALLOWED_PRIVATE_HOSTS: ' 10.0.0.5, cb.lan ,', RATE_LIMITS: 'off', RATE_LIMIT_WINDOW_SECONDS: '10', RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_KEY_FAILURES: '40', RATE_LIMIT_HOSTED_FIELDS: '7', RATE_LIMIT_OTP_ATTEMPTS: '2', RATE_LIMIT_PROVIDER_NOTIFICATIONS: '4' });
    assert.deepEqual(c.callbackAllowedPrivateHosts, ['10.0.0.5', 'cb.lan']);
    assert.deepEqual(c.rateLimits, { enabled: false, windowSeconds: 10, authFailures: 3, keyFailures: 40, hostedFields: 7, otpAttempts: 2, providerNotifications: 4 });
    const demo = loadConfig({ DEMO_NOTIFICATION_URL: 'http://localhost:3000/cb' });
    assert.deepEqual([demo.callbackAllowedPrivateHosts, demo.callbackAllowedUrls], [[], ['http://localhost:3000/cb', 'http://localhost:8080/sandbox/inbox']]);
    // Unset, the demo merchant's callbacks go to the sandbox merchant inbox on the gateway itself (development only).
    assert.equal(d.demoMerchant.notificationUrl, 'http://localhost:8080/sandbox/inbox');
    assert.deepEqual(d.callbackAllowedUrls, ['http://localhost:8080/sandbox/inbox']);
    assert.throws(() => loadConfig({ RATE_LIMIT_AUTH_FAILURES: '0' }), /RATE_LIMIT_AUTH_FAILURES must be at least 1/);
    assert.throws(() => loadConfig({ GATEWAY_MODE: 'prod' }), /GATEWAY_MODE must be production or development/);
  });
});
