// u-blox UBX binary protocol: frame extraction and building with Fletcher checksums, message ids, GNSS ids.
import { GnssInputError } from './errors.ts';

export interface UbxFrame {
  cls: number;
  id: number;
  payload: Buffer;
  /** Byte offset of the frame in its stream. */
  offset: number;
}

/** 8-bit Fletcher checksum over class, id, length and payload (UBX protocol spec 3.4). */
export function ubxChecksum(buf: Buffer, start: number, end: number): [number, number] {
  let a = 0;
  let b = 0;
  for (let i = start; i < end; i++) {
    a = (a + buf[i]) & 0xff;
    b = (b + a) & 0xff;
  }
  return [a, b];
}

/** Builds a UBX frame (sync, header, payload, checksum), used by the simulator and tests. */
export function encodeUbx(cls: number, id: number, payload: Buffer): Buffer {
  const frame = Buffer.alloc(8 + payload.length);
  frame[0] = 0xb5;
  frame[1] = 0x62;
  frame[2] = cls;
  frame[3] = id;
  frame.writeUInt16LE(payload.length, 4);
  payload.copy(frame, 6);
  const [a, b] = ubxChecksum(frame, 2, 6 + payload.length);
  frame[6 + payload.length] = a;
  frame[7 + payload.length] = b;
  return frame;
}

/**
 * Splits a byte stream into UBX frames. Frames whose checksum fails are reported in `errors`
 * (UBX_CHECKSUM) and their bytes are not trusted; bytes between frames (NMEA, JSON, comments)
 * are returned as text segments so that mixed logs can be read.
 */
export function splitUbx(buf: Buffer): { frames: UbxFrame[]; text: string[]; errors: GnssInputError[] } {
  const frames: UbxFrame[] = [];
  const text: string[] = [];
  const errors: GnssInputError[] = [];
  let i = 0;
  let textStart = 0;
  const flushText = (end: number) => {
    if (end > textStart) text.push(buf.subarray(textStart, end).toString('latin1'));
  };
  while (i + 1 < buf.length) {
    if (buf[i] !== 0xb5 || buf[i + 1] !== 0x62) {
      i++;
      continue;
    }
    if (i + 6 > buf.length) break;
    const len = buf.readUInt16LE(i + 4);
    if (i + 8 + len > buf.length) {
      flushText(i);
      errors.push(new GnssInputError('UBX_CORRUPT', `UBX frame at byte ${i} is cut short (needs ${len} payload bytes)`));
      textStart = buf.length;
      i = buf.length;
      break;
    }
    const [a, b] = ubxChecksum(buf, i + 2, i + 6 + len);
    if (a !== buf[i + 6 + len] || b !== buf[i + 7 + len]) {
      errors.push(new GnssInputError('UBX_CHECKSUM', `UBX checksum mismatch for class 0x${buf[i + 2].toString(16)} id 0x${buf[i + 3].toString(16)} at byte ${i}`));
      i += 2;
      continue;
    }
    flushText(i);
    frames.push({ cls: buf[i + 2], id: buf[i + 3], payload: buf.subarray(i + 6, i + 6 + len), offset: i });
    i += 8 + len;
    textStart = i;
  }
  flushText(buf.length);
  return { frames, text, errors };
}

export const UBX = {
  NAV_POSECEF: 0x0101,
  NAV_POSLLH: 0x0102,
  NAV_STATUS: 0x0103,
  NAV_DOP: 0x0104,
  NAV_SOL: 0x0106,
  NAV_PVT: 0x0107,
  NAV_VELECEF: 0x0111,
  NAV_TIMEGPS: 0x0120,
  NAV_TIMEUTC: 0x0121,
  NAV_CLOCK: 0x0122,
  NAV_SVINFO: 0x0130,
  NAV_SAT: 0x0135,
  RXM_SFRBX: 0x0213,
  RXM_RAWX: 0x0215,
  MON_HW: 0x0a09,
  MON_RF: 0x0a38,
} as const;

export function frameKey(f: UbxFrame): number {
  return (f.cls << 8) | f.id;
}

/** u-blox gnssId to RINEX system letter. */
export function gnssLetter(gnssId: number): string | undefined {
  return ({ 0: 'G', 1: 'S', 2: 'E', 3: 'C', 5: 'J', 6: 'R' } as Record<number, string>)[gnssId];
}
