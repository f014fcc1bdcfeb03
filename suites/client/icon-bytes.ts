import { constants, crc32, deflateSync } from 'node:zlib';

// Image bytes for the icon scenarios, built in code (the same bytes every run, small on the
// wire). The hostile ones are well-formed enough to reach a decoder, and cost a decoder that
// believes their headers far more than they weigh (ICON-SEC-02).

/** The side the bomb PNG's header claims: 50000×50000 RGBA, 10^10 bytes of pixels. */
export const BOMB_SIDE = 50_000;
/** What its IDAT inflates to: 32 MiB of zero rows, about 32 KiB deflated. */
const BOMB_INFLATED = 32 * 1024 * 1024;
/** Frames of the many-frame GIF, each 1×1 on a 4096×4096 canvas. */
export const GIF_FRAMES = 2_000;
const GIF_CANVAS = 4_096;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

let bomb: Buffer | undefined;

/** A PNG claiming BOMB_SIDE×BOMB_SIDE (8-bit RGBA) whose IDAT is a zlib stream of BOMB_INFLATED zeros. */
export function bombPng(): Buffer {
  if (bomb) return bomb;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(BOMB_SIDE, 0);
  header.writeUInt32BE(BOMB_SIDE, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  // Run-length matching finds the zeros' one repeat at once: the same 32 KiB as level 9's full
  // search, in a twentieth of its 0.4 to 0.6 CPU-seconds (which every process that served the icon
  // scenarios paid). Done once per process.
  const idat = deflateSync(Buffer.alloc(BOMB_INFLATED), { level: 9, strategy: constants.Z_RLE });
  bomb = Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
  return bomb;
}

function u16(n: number): number[] {
  return [n & 0xff, n >> 8];
}

/** One 1×1 image of colour 0: descriptor at (0,0), LZW minimum code size 2, the codes clear, 0, end. */
const GIF_IMAGE = [0x2c, ...u16(0), ...u16(0), ...u16(1), ...u16(1), 0x00, 0x02, 0x02, 0x44, 0x01, 0x00];

/** A GIF89a of `frames` frames (each a graphic control extension and a 1×1 image) on a `side`×`side` canvas, looping forever. */
export function gif(frames: number, side: number): Buffer {
  const head = [...Buffer.from('GIF89a', 'latin1'), ...u16(side), ...u16(side), 0x80, 0x00, 0x00, 0, 0, 0, 0xff, 0xff, 0xff];
  const loop = [0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0x00, 0x00, 0x00];
  const frame = Buffer.from([0x21, 0xf9, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, ...GIF_IMAGE]);
  return Buffer.concat([Buffer.from([...head, ...loop]), ...Array.from({ length: frames }, () => frame), Buffer.from([0x3b])]);
}

export function manyFrameGif(): Buffer {
  return gif(GIF_FRAMES, GIF_CANVAS);
}

export function dataUri(mediaType: string, bytes: Buffer): string {
  return `data:${mediaType};base64,${bytes.toString('base64')}`;
}

/** Whether a request path names a data: URI (as sent, or percent-encoded): an icon src taken for a relative URL. */
export function namesDataUri(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not percent-encoding after all: judged as sent.
  }
  return decoded.toLowerCase().includes('data:');
}
