import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateTempDir } from '../paths.js';
import { loopbackTls, type LoopbackTls } from '../transport/loopback-tls.js';
import { inNetworkSandbox, SANDBOX_ADDRESSES } from './network-sandbox.js';

let certificate: LoopbackTls | undefined;

/** The certificate mcpcheck's https: listeners present to a client under test: one per process, its key never written (in the network sandbox, for its addresses too). */
export function loopbackCertificate(): LoopbackTls {
  certificate ??= loopbackTls(inNetworkSandbox() ? Object.values(SANDBOX_ADDRESSES) : []);
  return certificate;
}

/**
 * The file that makes a client process trust loopbackCertificate(), in a 0700 directory of its
 * own, with the extra CAs this process was given kept in it (Node takes one such file).
 */
export class TrustFile {
  private readonly dir = privateTempDir('mcpcheck-ca-', "the certificate a client is to trust");
  private readonly file = join(this.dir, 'loopback-ca.pem');

  constructor() {
    writeFileSync(this.file, `${ownExtraCas()}${loopbackCertificate().cert}`);
  }

  /** What a client process gets: Node reads NODE_EXTRA_CA_CERTS; other clients can be pointed at MCPCHECK_CA_CERT. */
  env(): Record<string, string> {
    return { NODE_EXTRA_CA_CERTS: this.file, MCPCHECK_CA_CERT: this.file };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function ownExtraCas(): string {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return '';
  try {
    const text = readFileSync(file, 'utf8');
    return text.endsWith('\n') ? text : `${text}\n`;
  } catch {
    // Node only warns about an unreadable one and goes on without it: so does the client, in this file.
    return '';
  }
}
