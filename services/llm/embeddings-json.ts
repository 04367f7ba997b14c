/**
 * The body of a POST /v1/embeddings reply, written straight into one Buffer: byte for byte
 * what `JSON.stringify({ object: 'list', data: [{ object: 'embedding', index, embedding }],
 * model, usage })` gives, without building that string first.
 *
 * Why: a float reply of 256 classic vectors is 256 x 512 numbers. Through JSON.stringify the
 * route formatted each number, built a string of about 0.9 MB, and Fastify then measured and
 * UTF-8 encoded that string again on the way out. Here each distinct number is formatted once
 * per reply (a classic vector has about 20 distinct values among its 512: zeros and a few
 * weights over the same norm) and its bytes copied, and the Buffer goes out as it is.
 */

/** `encoding_format: 'base64'`: the vector's little-endian float32 bytes (what the OpenAI SDK decodes). */
export function base64Of(v: readonly number[]): string {
  const f = Float32Array.from(v);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
}

export interface EmbeddingsReply {
  data: readonly (readonly number[])[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The reply as an object, the way the route built it before; JSON.stringify of it is the reference. */
export function embeddingsBody(reply: EmbeddingsReply, encoding: 'float' | 'base64'): object {
  const b64 = encoding === 'base64';
  return {
    object: 'list',
    data: reply.data.map((v, index) => ({ object: 'embedding', index, embedding: b64 ? base64Of(v) : v })),
    model: reply.model,
    usage: reply.usage,
  };
}

/** A Buffer that grows by doubling; `bytes()` is what was written. */
class Output {
  private buf: Buffer;
  private at = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** A string of ASCII characters only (JSON of numbers, base64, the fixed keys). */
  ascii(s: string): void {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) buf[at++] = s.charCodeAt(i);
    this.at = at;
  }

  /** Any JSON text (a model name or usage may hold other characters), UTF-8 as Fastify would send it. */
  text(s: string): void {
    this.room(Buffer.byteLength(s));
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

const COMMA = 0x2c;
const ZERO = 0x30;

/** JSON.stringify of an array element: numbers are most of them; anything else takes JSON.stringify's own path. */
function elementJson(x: unknown): string {
  if (typeof x === 'number') return Number.isFinite(x) ? String(x) : 'null';
  return JSON.stringify(x) ?? 'null';
}

function writeFloats(out: Output, v: readonly unknown[], formatted: Map<unknown, string>): void {
  out.byte(0x5b); // [
  for (let j = 0; j < v.length; j++) {
    if (j > 0) out.byte(COMMA);
    const x = v[j];
    // 0 and -0 are both "0" in JSON; most of a hashed vector is zeros.
    if (x === 0) {
      out.byte(ZERO);
      continue;
    }
    let s = formatted.get(x);
    if (s === undefined) {
      s = elementJson(x);
      formatted.set(x, s);
    }
    if (typeof x === 'number') out.ascii(s);
    else out.text(s);
  }
  out.byte(0x5d); // ]
}

/** The reply body, `base64` or float lists, as the bytes clients got from JSON.stringify of it. */
export function embeddingsJson(reply: EmbeddingsReply, encoding: 'float' | 'base64'): Buffer {
  // A provider that broke its contract (a vector that is no list) gets JSON.stringify's own rendering of it.
  if (!reply.data.every((v) => Array.isArray(v))) return Buffer.from(JSON.stringify(embeddingsBody(reply, encoding)));
  const b64 = encoding === 'base64';
  const dims = reply.data.length > 0 ? reply.data[0]!.length : 0;
  // A float is at most 24 characters and a comma; base64 is 4 characters per 3 bytes.
  const perVector = 64 + (b64 ? Math.ceil((dims * 4) / 3) + 4 : dims * 12);
  const out = new Output(reply.data.length * perVector + 256);
  const formatted = new Map<unknown, string>();
  out.ascii('{"object":"list","data":[');
  for (let i = 0; i < reply.data.length; i++) {
    const v = reply.data[i]!;
    out.ascii(i > 0 ? ',{"object":"embedding","index":' : '{"object":"embedding","index":');
    out.ascii(String(i));
    out.ascii(',"embedding":');
    if (b64) {
      out.byte(0x22); // "
      out.ascii(base64Of(v));
      out.byte(0x22);
    } else writeFloats(out, v, formatted);
    out.byte(0x7d); // }
  }
  out.ascii('],"model":');
  out.text(JSON.stringify(reply.model));
  out.ascii(',"usage":');
  out.text(JSON.stringify(reply.usage));
  out.byte(0x7d);
  return out.bytes();
}
