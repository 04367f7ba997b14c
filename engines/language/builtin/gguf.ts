/**
 * A GGUF (version 3) writer: metadata key/values and F32 tensors, as llama.cpp reads them.
 * Tensor shapes are given in ggml order (ne[0] first = the fastest-varying dimension), so a
 * row-major [rows][cols] matrix is written with shape [cols, rows].
 */
import { writeFileSync } from 'node:fs';

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: string[] }
  | { type: 'f32[]'; value: number[] }
  | { type: 'i32[]'; value: number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: ne[0] is the contiguous dimension. */
  shape: number[];
  data: Float32Array;
}

const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;
const ALIGNMENT = 32;

class Writer {
  private chunks: Buffer[] = [];
  size = 0;
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(): void {
    const rest = this.size % ALIGNMENT;
    if (rest) this.push(Buffer.alloc(ALIGNMENT - rest));
  }
  result(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(w: Writer, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      w.u32(T.u32);
      w.u32(v.value);
      break;
    case 'i32':
      w.u32(T.i32);
      w.i32(v.value);
      break;
    case 'f32':
      w.u32(T.f32);
      w.f32(v.value);
      break;
    case 'bool':
      w.u32(T.bool);
      w.push(Buffer.from([v.value ? 1 : 0]));
      break;
    case 'string':
      w.u32(T.string);
      w.str(v.value);
      break;
    case 'string[]':
      w.u32(T.array);
      w.u32(T.string);
      w.u64(v.value.length);
      for (const s of v.value) w.str(s);
      break;
    case 'f32[]':
      w.u32(T.array);
      w.u32(T.f32);
      w.u64(v.value.length);
      for (const x of v.value) w.f32(x);
      break;
    case 'i32[]':
      w.u32(T.array);
      w.u32(T.i32);
      w.u64(v.value.length);
      for (const x of v.value) w.i32(x);
      break;
  }
}

export function encodeGguf(metadata: Record<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const w = new Writer();
  w.push(Buffer.from('GGUF', 'latin1'));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(Object.keys(metadata).length);
  for (const [k, v] of Object.entries(metadata)) {
    w.str(k);
    writeValue(w, v);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) throw new Error(`tensor ${t.name}: shape ${t.shape.join('x')} does not match ${t.data.length} values`);
    w.str(t.name);
    w.u32(t.shape.length);
    for (const d of t.shape) w.u64(d);
    w.u32(0); // GGML_TYPE_F32
    w.u64(offset);
    offsets.push(offset);
    offset += Math.ceil((count * 4) / ALIGNMENT) * ALIGNMENT;
  }
  w.pad();
  for (const t of tensors) {
    w.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    w.pad();
  }
  return w.result();
}

export function writeGguf(path: string, metadata: Record<string, GgufValue>, tensors: readonly GgufTensor[]): void {
  writeFileSync(path, encodeGguf(metadata, tensors));
}
