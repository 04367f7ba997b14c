/**
 * The body of a POST /v1/embeddings reply, written straight into one Buffer: byte for byte
 * what `JSON.stringify({ object: 'list', data: [{ object: 'embedding', index, embedding }],
 * model, usage })` gives, without building that string first.
 *
 * Why: a float reply of 256 classic vectors is 256 x 512 numbers. Through JSON.stringify the
 * route formatted each number, built a string of about 0.9 MB, and Fastify then measured and
 * UTF-8 encoded that string again on the way out. Here each distinct number of a vector is
 * formatted once (a classic vector has about 20 distinct values among its 512: zeros and a
 * few weights over the same norm) and its characters copied, and the Buffer goes out as it
 * is: about half the CPU time of JSON.stringify and the encoding together for 256 vectors.
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

/** Kept between replies up to this size, so a reply allocates only its exact bytes. */
const SCRATCH_KEPT = 16 << 20;
let scratch = Buffer.allocUnsafe(1 << 20);

/**
 * Writes into the module's scratch Buffer (grown by doubling as needed); `bytes()` copies what
 * was written into a Buffer of its own. One large scratch instead of a generous Buffer per
 * reply: each large Buffer counts as external memory and brings V8's next full collection
 * closer. Writing is synchronous, so two replies never share the scratch at once.
 */
class Output {
  buf = scratch;
  at = 0;

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
    if (grown.length <= SCRATCH_KEPT) scratch = grown;
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.at++] = c;
  }

  /** A string of ASCII characters only (base64, the fixed keys). */
  ascii(s: string): void {
    this.room(s.length);
    this.at += this.buf.write(s, this.at, 'latin1');
  }

  /** Any JSON text (a model name or usage may hold other characters), UTF-8 as Fastify would send it. */
  text(s: string): void {
    this.room(Buffer.byteLength(s));
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    this.buf.copy(out, 0, 0, this.at);
    return out;
  }
}

/** The longest JSON of a double, e.g. -2.2250738585072014e-308, and the comma after it. */
const MAX_NUMBER_BYTES = 25;
/** Distinct numbers remembered per vector: a classic one has about 20 besides zero. */
const REMEMBERED = 64;

/** JSON.stringify of an array element: numbers are most of them; anything else takes JSON.stringify's own path. */
function elementJson(x: unknown): string {
  if (typeof x === 'number') return Number.isFinite(x) ? String(x) : 'null';
  return JSON.stringify(x) ?? 'null';
}

/**
 * One list, `[` to `]`. Each of the first REMEMBERED distinct numbers of the vector is
 * formatted once, and where its characters went in the output is remembered: a repeat is found
 * by a linear search (cheaper than a Map over boxed doubles at this size) and copied from
 * there, byte by byte, which costs less than reading a string's characters again (measured:
 * 1.97 against 3.37 ms for the 640,000 characters of 256 classic vectors) and less than a
 * native call per number. The hot loop keeps the buffer and position in locals.
 */
function writeFloats(out: Output, v: readonly unknown[], seen: Float64Array, seenAt: Int32Array, seenLength: Int32Array): void {
  out.room(v.length * MAX_NUMBER_BYTES + 2);
  let buf = out.buf;
  let at = out.at;
  let known = 0;
  buf[at++] = 0x5b; // [
  for (let j = 0; j < v.length; j++) {
    if (j > 0) buf[at++] = 0x2c; // ,
    const x = v[j];
    if (typeof x === 'number') {
      // 0 and -0 are both "0" in JSON; most of a hashed vector is zeros.
      if (x === 0) {
        buf[at++] = 0x30;
        continue;
      }
      let k = 0;
      while (k < known && seen[k] !== x) k++;
      if (k < known) {
        // Earlier in this same buffer: growing it (room, below) copies what was written to the same offsets.
        for (let from = seenAt[k]!, end = from + seenLength[k]!; from < end; ) buf[at++] = buf[from++]!;
        continue;
      }
      const s = elementJson(x);
      // NaN never equals itself, so it is never remembered: it is formatted each time.
      if (known < REMEMBERED) {
        seen[known] = x;
        seenAt[known] = at;
        seenLength[known++] = s.length;
      }
      for (let i = 0; i < s.length; i++) buf[at++] = s.charCodeAt(i);
    } else {
      // Not a number (a provider outside its contract): any length, any characters.
      out.at = at;
      out.text(elementJson(x));
      out.room((v.length - j) * MAX_NUMBER_BYTES + 2);
      buf = out.buf;
      at = out.at;
    }
  }
  buf[at++] = 0x5d; // ]
  out.at = at;
}

/** The reply body, `base64` or float lists, as the bytes clients got from JSON.stringify of it. */
export function embeddingsJson(reply: EmbeddingsReply, encoding: 'float' | 'base64'): Buffer {
  // A provider that broke its contract (a vector that is no list) gets JSON.stringify's own rendering of it.
  if (!reply.data.every((v) => Array.isArray(v))) return Buffer.from(JSON.stringify(embeddingsBody(reply, encoding)));
  const b64 = encoding === 'base64';
  const out = new Output();
  const seen = new Float64Array(REMEMBERED);
  const seenAt = new Int32Array(REMEMBERED);
  const seenLength = new Int32Array(REMEMBERED);
  out.ascii('{"object":"list","data":[');
  for (let i = 0; i < reply.data.length; i++) {
    const v = reply.data[i]!;
    out.ascii(`${i > 0 ? ',' : ''}{"object":"embedding","index":${i},"embedding":`);
    if (b64) {
      out.byte(0x22); // "
      out.ascii(base64Of(v));
      out.byte(0x22);
    } else writeFloats(out, v, seen, seenAt, seenLength);
    out.byte(0x7d); // }
  }
  out.ascii('],"model":');
  out.text(JSON.stringify(reply.model));
  out.ascii(',"usage":');
  out.text(JSON.stringify(reply.usage));
  out.byte(0x7d);
  return out.bytes();
}
