/**
 * Reads a GGUF file written by gguf.ts back: metadata and F32 tensors (the LoRA trainer
 * starts from the shipped model's weights and vocabulary). Other tensor types are refused
 * with a clear message: LoRA training here works on the built-in F32 model.
 */
import { readFileSync } from 'node:fs';
import { LanguageError } from '../errors.ts';

export interface GgufFile {
  metadata: Map<string, unknown>;
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
}

export function readGguf(path: string): GgufFile {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    throw new LanguageError('model_file_invalid', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let pos = 0;
  const need = (n: number): void => {
    if (pos + n > buf.length) throw new LanguageError('model_file_invalid', `${path} is truncated`);
  };
  const u32 = (): number => (need(4), (pos += 4), buf.readUInt32LE(pos - 4));
  const u64 = (): number => (need(8), (pos += 8), Number(buf.readBigUInt64LE(pos - 8)));
  const str = (): string => {
    const n = u64();
    need(n);
    pos += n;
    return buf.toString('utf8', pos - n, pos);
  };
  const scalar = (type: number): unknown => {
    switch (type) {
      case 0: return (need(1), buf.readUInt8(pos++));
      case 1: return (need(1), buf.readInt8(pos++));
      case 2: return (need(2), (pos += 2), buf.readUInt16LE(pos - 2));
      case 3: return (need(2), (pos += 2), buf.readInt16LE(pos - 2));
      case 4: return u32();
      case 5: return (need(4), (pos += 4), buf.readInt32LE(pos - 4));
      case 6: return (need(4), (pos += 4), buf.readFloatLE(pos - 4));
      case 7: return (need(1), buf.readUInt8(pos++) !== 0);
      case 8: return str();
      case 10: return u64();
      case 11: return (need(8), (pos += 8), Number(buf.readBigInt64LE(pos - 8)));
      case 12: return (need(8), (pos += 8), buf.readDoubleLE(pos - 8));
      case 9: {
        const inner = u32();
        const n = u64();
        return Array.from({ length: n }, () => scalar(inner));
      }
      default:
        throw new LanguageError('model_file_invalid', `${path}: unknown metadata type ${type}`);
    }
  };
  need(4);
  if (buf.toString('latin1', 0, 4) !== 'GGUF') throw new LanguageError('model_file_invalid', `${path} is not a GGUF file`);
  pos = 4;
  const version = u32();
  if (version !== 3) throw new LanguageError('model_file_invalid', `${path}: GGUF version ${version} is not supported`);
  const nTensors = u64();
  const nKv = u64();
  const metadata = new Map<string, unknown>();
  for (let i = 0; i < nKv; i++) {
    const k = str();
    metadata.set(k, scalar(u32()));
  }
  const infos: { name: string; shape: number[]; type: number; offset: number }[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const dims = u32();
    const shape = Array.from({ length: dims }, () => u64());
    infos.push({ name, shape, type: u32(), offset: u64() });
  }
  const align = Number(metadata.get('general.alignment') ?? 32);
  const dataStart = Math.ceil(pos / align) * align;
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const t of infos) {
    if (t.type !== 0) throw new LanguageError('model_file_invalid', `${path}: tensor ${t.name} is not F32 (type ${t.type})`);
    const count = t.shape.reduce((a, b) => a * b, 1);
    const start = dataStart + t.offset;
    if (start + count * 4 > buf.length) throw new LanguageError('model_file_invalid', `${path} is truncated in tensor ${t.name}`);
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = buf.readFloatLE(start + 4 * i);
    tensors.set(t.name, { shape: t.shape, data });
  }
  return { metadata, tensors };
}
