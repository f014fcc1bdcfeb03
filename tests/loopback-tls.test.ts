import { execFile } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopbackTls, type LoopbackTls } from '../src/transport/loopback-tls.js';
import { loopbackCertificate, TrustFile } from '../src/harness/loopback-trust.js';

const WAIT_MS = 10_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function serve(tls: LoopbackTls): Promise<{ server: Server; port: number }> {
  const server = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('icon bytes');
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    }),
    'listen',
  );
  return { server, port: (server.address() as AddressInfo).port };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return withTimeout(new Promise<void>((resolve) => server.close(() => resolve())), 'close');
}

function fetchWithHttps(port: number, ca?: string): Promise<{ status: number; body: string }> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const req = get({ hostname: '127.0.0.1', port, path: '/', agent: false, ...(ca === undefined ? {} : { ca }) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
    }),
    'https.get',
  );
}

describe('loopbackTls', () => {
  it('makes a self-signed CA certificate for 127.0.0.1 that is valid now', () => {
    const tls = loopbackTls();
    const x509 = new X509Certificate(tls.cert);
    expect(x509.subject).toContain('CN=mcpcheck loopback');
    expect(x509.subject).toContain('O=mcpcheck');
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.checkIssued(x509)).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.verify(createPublicKey(createPrivateKey(tls.key)))).toBe(true);
    expect(x509.ca).toBe(true);
    expect(x509.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(x509.subjectAltName).toContain('DNS:localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(x509.checkPrivateKey(createPrivateKey(tls.key))).toBe(true);
    const now = Date.now();
    expect(new Date(x509.validFrom).getTime()).toBeLessThan(now);
    expect(new Date(x509.validTo).getTime()).toBeGreaterThan(now);
  });

  it('serves https that a client trusting the certificate accepts and any other client refuses', async () => {
    const tls = loopbackTls();
    const { server, port } = await serve(tls);
    try {
      await expect(fetchWithHttps(port, tls.cert)).resolves.toEqual({ status: 200, body: 'icon bytes' });
      await expect(fetchWithHttps(port)).rejects.toMatchObject({ code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/) });
    } finally {
      await close(server);
    }
  });

  it('is trusted by global fetch in a child process given NODE_EXTRA_CA_CERTS', async () => {
    const tls = loopbackTls();
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-tls-'));
    const { server, port } = await serve(tls);
    try {
      const caFile = join(dir, 'loopback.pem');
      writeFileSync(caFile, tls.cert);
      const script =
        'fetch(process.argv[1]).then(async (r) => process.stdout.write(r.status + " " + (await r.text())), ' +
        '(e) => { console.error(e?.cause ?? e); process.exit(1); })';
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          ['-e', script, `https://127.0.0.1:${port}/`],
          { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, timeout: WAIT_MS },
          (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
        );
      });
      expect(stdout).toBe('200 icon bytes');
    } finally {
      await close(server);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives a new key and serial on every call', () => {
    const a = loopbackTls();
    const b = loopbackTls();
    expect(a.key).not.toBe(b.key);
    const [ca, cb] = [new X509Certificate(a.cert), new X509Certificate(b.cert)];
    expect(ca.serialNumber).not.toBe(cb.serialNumber);
    expect(ca.serialNumber).toMatch(/^[0-9A-F]{32}$/);
    expect(ca.publicKey.export({ type: 'spki', format: 'der' })).not.toEqual(cb.publicKey.export({ type: 'spki', format: 'der' }));
  });

  it("identifies its key by the SHA-1 of the public point (RFC 5280 4.2.1.2, method 1)", () => {
    const x509 = new X509Certificate(loopbackTls().cert);
    // The certificate's key, not a generated one: its JWK export cannot meet a generation job's lock.
    const jwk = x509.publicKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.of(0x04), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    // subjectKeyIdentifier (2.5.29.14): an OCTET STRING holding the 20-byte OCTET STRING of the hash.
    const extension = Buffer.concat([Buffer.from('0603551d0e04160414', 'hex'), createHash('sha1').update(point).digest()]);
    expect(x509.raw.includes(extension)).toBe(true);
  });

  // Node 20 deadlocks for good when a garbage collection during an EC KeyObject's JWK export
  // finalises the job that generated the key (the job's destructor takes the lock the export
  // holds): a client run hung so once. With a small young generation, 3,000 certificates made the
  // old way hung every time; made now, they take about 2 s.
  it('is made without exporting a generated key as a JWK: 3,000 under constant garbage collection end', async () => {
    const module = join(import.meta.dirname, '../dist/src/transport/loopback-tls.js');
    const script = `const { loopbackTls } = await import(${JSON.stringify(module)}); let junk = []; for (let i = 0; i < 3000; i++) { for (let j = 0; j < i % 7; j++) junk.push('x' + j); if (junk.length > 5000) junk = []; loopbackTls(); } process.stdout.write('made');`;
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--max-semi-space-size=1', '--input-type=module', '-e', script], { timeout: 60_000, killSignal: 'SIGKILL' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(out).toBe('made');
  }, 90_000);
});

describe('TrustFile', () => {
  it('holds the extra CAs the process was given, then the loopback certificate, until removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-tls-'));
    const before = process.env.NODE_EXTRA_CA_CERTS;
    try {
      const own = join(dir, 'own.pem');
      const theirs = loopbackTls().cert;
      writeFileSync(own, theirs);
      process.env.NODE_EXTRA_CA_CERTS = own;
      const trust = new TrustFile();
      const env = trust.env();
      expect(env.MCPCHECK_CA_CERT).toBe(env.NODE_EXTRA_CA_CERTS);
      expect(readFileSync(env.NODE_EXTRA_CA_CERTS!, 'utf8')).toBe(`${theirs}${loopbackCertificate().cert}`);
      trust.remove();
      expect(existsSync(env.NODE_EXTRA_CA_CERTS!)).toBe(false);
    } finally {
      if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
