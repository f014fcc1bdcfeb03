import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopbackTls, type LoopbackTls } from '../transport/loopback-tls.js';

/**
 * The certificate mcpcheck's https: listeners present to a client under test, and the file that
 * makes the client processes it starts trust it. One per mcpcheck process: the key stays in
 * memory, only the certificate is written (in a 0700 directory, removed at exit).
 */
export interface LoopbackTrust {
  tls: LoopbackTls;
  /** The environment a client process gets: Node reads NODE_EXTRA_CA_CERTS; other clients can be pointed at MCPCHECK_CA_CERT. */
  env: Record<string, string>;
}

let trust: LoopbackTrust | undefined;

export function loopbackTrust(): LoopbackTrust {
  if (trust) return trust;
  const tls = loopbackTls();
  const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-ca-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'loopback-ca.pem');
  // Node takes one extra-CA file: the client keeps whatever extra CAs it was given already.
  writeFileSync(file, `${ownExtraCas()}${tls.cert}`);
  trust = { tls, env: { NODE_EXTRA_CA_CERTS: file, MCPCHECK_CA_CERT: file } };
  return trust;
}

function ownExtraCas(): string {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return '';
  try {
    const text = readFileSync(file, 'utf8');
    return text.endsWith('\n') ? text : `${text}\n`;
  } catch {
    // Node itself only warns about an unreadable one; so does the client, which gets none of it then.
    return '';
  }
}
