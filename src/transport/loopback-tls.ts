// A throwaway self-signed certificate for https: on the loopback interface, so mcpcheck can serve
// icons to a client under test and watch the requests its fetches make. Node 20 can sign but has
// no API to issue an X.509 certificate, hence the few DER encoders below (X.690, RFC 5280).
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export interface LoopbackTls {
  /** PKCS#8 private key, PEM. */
  key: string;
  /** X.509 certificate, PEM. */
  cert: string;
}

/**
 * A fresh self-signed certificate for 127.0.0.1 (and localhost, and the IPv4 `addresses` given: the
 * network sandbox's, which are this machine's own there), made per run and never written anywhere
 * but where the caller puts it.
 */
export function loopbackTls(addresses: readonly string[] = []): LoopbackTls {
  // Encoded by the generation itself: on Node 20 exporting an EC KeyObject as a JWK can deadlock the
  // process for good, when a garbage collection during the export finalises the key's generation
  // job, which takes the lock the export holds (seen once in a client run; a loop of generate and
  // export under a small young generation hangs within seconds).
  const { publicKey: spki, privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // The key identifier hashes the subjectPublicKey bits alone (RFC 5280 4.2.1.2, method 1), i.e. the
  // uncompressed point 04 || X || Y: for P-256 the SPKI's last 65 bytes.
  const point = spki.subarray(spki.length - P256_POINT_BYTES);
  if (point[0] !== 0x04) throw new Error('loopback-tls: the generated P-256 key is not an uncompressed point');

  const serial = randomBytes(16);
  // Positive (top bit clear) and with a non-zero first byte, so minimal DER keeps all 16 bytes.
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const now = Date.now();
  const name = sequence(rdn(OID_ORGANIZATION, 'mcpcheck'), rdn(OID_COMMON_NAME, 'mcpcheck loopback'));
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

  const tbs = sequence(
    explicit(0, integer(Buffer.of(2))),
    integer(serial),
    ecdsaWithSha256,
    name,
    // A client whose clock is a little behind must not see a certificate from the future.
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 2 * 86_400_000))),
    name,
    spki,
    explicit(
      3,
      sequence(
        // CA:TRUE so the certificate can be its own trust anchor in stores that want a CA there.
        extension('2.5.29.19', true, sequence(BOOLEAN_TRUE)),
        // digitalSignature (bit 0) for ECDHE handshakes, keyCertSign (bit 5) to go with CA:TRUE;
        // DER drops trailing zero bits, so the last two bits of 0x84 are declared unused.
        extension('2.5.29.15', true, bitString(Buffer.of(0x84), 2)),
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))),
        // Host name checks read only the SAN, never the CN; [7] is iPAddress, [2] dNSName.
        extension('2.5.29.17', false, sequence(tlv(0x87, Buffer.of(127, 0, 0, 1)), tlv(0x82, Buffer.from('localhost', 'ascii')), ...addresses.map((a) => tlv(0x87, Buffer.from(a.split('.').map(Number)))))),
        extension('2.5.29.14', false, tlv(0x04, createHash('sha1').update(point).digest())),
      ),
    ),
  );
  // Node's ECDSA signature is the DER Ecdsa-Sig-Value that X.509 expects inside the BIT STRING.
  const certificate = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, privateKey)));

  return {
    key: privateKey,
    cert: pem('CERTIFICATE', certificate),
  };
}

/** An uncompressed P-256 point: 0x04, then X and Y of 32 bytes each. */
const P256_POINT_BYTES = 65;
const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
const BOOLEAN_TRUE = Buffer.of(0x01, 0x01, 0xff);

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  if (n < 0x80) return Buffer.concat([Buffer.of(tag, n), content]);
  const size: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) size.unshift(rest % 256);
  return Buffer.concat([Buffer.of(tag, 0x80 | size.length, ...size), content]);
}

function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function explicit(tag: number, inner: Buffer): Buffer {
  return tlv(0xa0 | tag, inner);
}

/** Big-endian unsigned magnitude; DER wants the shortest two's complement form. */
function integer(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const bytes = magnitude.subarray(start);
  return tlv(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const out: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128 = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

function rdn(type: string, value: string): Buffer {
  return tlv(0x31, sequence(oid(type), tlv(0x0c, Buffer.from(value, 'utf8'))));
}

// RFC 5280 wants UTCTime up to 2049, to the second, in Z.
function utcTime(date: Date): Buffer {
  const two = (n: number) => String(n).padStart(2, '0');
  const text =
    two(date.getUTCFullYear() % 100) +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes()) +
    two(date.getUTCSeconds()) +
    'Z';
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.of(unusedBits), bytes]));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  // DER omits a BOOLEAN that equals its DEFAULT, here critical FALSE.
  const flag = critical ? [BOOLEAN_TRUE] : [];
  return sequence(oid(id), ...flag, tlv(0x04, value));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
