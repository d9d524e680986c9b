import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is a UMD bundle: its module.exports is the decoder, which its typings call `default`.
const jsQR = jsQRModule.default;

/**
 * An EMV QR payload read back independently of the simulator's builder: top-level data
 * objects by ID (a template's value is itself a TLV string). Throws on a malformed length.
 */
export function parseTlv(s: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < s.length) {
    const id = s.slice(i, i + 2);
    const len = Number(s.slice(i + 2, i + 4));
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(s.slice(i + 2, i + 4))) {
      throw new Error(`bad data object at ${i}: ${s.slice(i, i + 4)}`);
    }
    const value = s.slice(i + 4, i + 4 + len);
    if (value.length !== len) throw new Error(`data object ${id} runs past the end`);
    if (out.has(id)) throw new Error(`data object ${id} appears twice`);
    out.set(id, value);
    i += 4 + len;
  }
  return out;
}

/** Decodes the QR code in a PNG image with jsQR (a decoder we did not write). */
export function decodeQrPng(png: Buffer): string {
  const img = PNG.sync.read(png);
  const found = jsQR(new Uint8ClampedArray(img.data), img.width, img.height);
  if (!found) throw new Error('no QR code found in the image');
  return found.data;
}
