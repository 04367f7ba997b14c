/**
 * The built-in model's tokenizer: SentencePiece-style BPE as llama.cpp's "llama" tokenizer
 * runs it, so that training here and inference there cut text into the same tokens.
 * Spaces become "▁" (no "▁" is put in front: the GGUF sets add_space_prefix false, because
 * llama.cpp would add one after every special token); pieces are merged pairwise, always
 * the adjacent pair whose merged piece has the highest score (ties: leftmost first); what is
 * not in the vocabulary falls back to byte tokens <0xNN>. Merged pieces never hold a "▁"
 * except at their start, so text can be cut at spaces first with the same result.
 */

export const SPACE = '\u2581';
export const SPECIAL_TOKENS = ['<unk>', '<s>', '</s>', '<|im_start|>', '<|im_end|>'] as const;
export const UNK = 0;
export const BOS = 1;
export const EOS = 2;
export const IM_START = 3;
export const IM_END = 4;
const BYTE_BASE = SPECIAL_TOKENS.length;

/** llama.cpp token types: 1 normal, 2 unknown, 3 control, 6 byte. */
export interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
}

export interface Tokenizer {
  vocab: Vocabulary;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

function byteToken(b: number): string {
  return `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
}

/** Learns `size` tokens (specials, 256 bytes, characters, then merges) from a corpus. */
export function trainVocabulary(corpus: string, size: number): Vocabulary {
  const tokens: string[] = [...SPECIAL_TOKENS];
  const types: number[] = [2, 3, 3, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(byteToken(b));
    types.push(6);
  }
  // Word frequencies, words cut as the encoder cuts them (before each "▁").
  const wordFreq = new Map<string, number>();
  for (const fragment of corpus.split(/<\|im_start\|>|<\|im_end\|>/)) {
    for (const w of fragment.replace(/ /g, SPACE).split(/(?=\u2581)/)) {
      if (w) wordFreq.set(w, (wordFreq.get(w) ?? 0) + 1);
    }
  }
  const charFreq = new Map<string, number>();
  for (const [w, f] of wordFreq) for (const ch of w) charFreq.set(ch, (charFreq.get(ch) ?? 0) + f);
  // Characters seen at least 3 times get a token of their own; rarer ones go through bytes.
  const chars = [...charFreq].filter(([, f]) => f >= 3).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c);
  if (!chars.includes(SPACE)) chars.unshift(SPACE);
  const charSet = new Set(chars);
  for (const c of chars) {
    tokens.push(c);
    types.push(1);
  }
  const words = [...wordFreq].map(([w, f]) => ({ parts: [...w].filter((c) => charSet.has(c)), f }));
  const merges: string[] = [];
  const known = new Set(tokens);
  while (tokens.length + merges.length < size) {
    const pairs = new Map<string, number>();
    for (const { parts, f } of words) {
      for (let i = 0; i + 1 < parts.length; i++) {
        if (parts[i + 1].startsWith(SPACE)) continue;
        const k = `${parts[i]}\u0000${parts[i + 1]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + f);
      }
    }
    let best = '';
    let bestF = 1;
    for (const [k, f] of pairs) {
      if (f > bestF || (f === bestF && best !== '' && k < best)) {
        best = k;
        bestF = f;
      }
    }
    if (!best) break;
    const [a, b] = best.split('\u0000');
    const merged = a + b;
    if (!known.has(merged)) {
      merges.push(merged);
      known.add(merged);
    }
    for (const w of words) {
      const out: string[] = [];
      for (let i = 0; i < w.parts.length; i++) {
        if (i + 1 < w.parts.length && w.parts[i] === a && w.parts[i + 1] === b) {
          out.push(merged);
          i++;
        } else out.push(w.parts[i]);
      }
      w.parts = out;
    }
  }
  // Scores: characters 0 (never merge targets), merges by rank, earlier merges higher.
  const scores = tokens.map(() => 0);
  merges.forEach((m, i) => {
    tokens.push(m);
    types.push(1);
    scores.push(-(i + 1));
  });
  for (let i = 0; i < scores.length; i++) if (types[i] !== 1) scores[i] = 0;
  // Single characters must lose to every merge in llama.cpp's queue: give them the lowest score.
  for (let i = BYTE_BASE + 256; i < BYTE_BASE + 256 + chars.length; i++) scores[i] = -1e9;
  return { tokens, scores, types };
}

export function createTokenizer(vocab: Vocabulary): Tokenizer {
  const ids = new Map<string, number>();
  vocab.tokens.forEach((t, i) => {
    if (vocab.types[i] === 1 && !ids.has(t)) ids.set(t, i);
  });
  const cache = new Map<string, number[]>();

  function encodeWord(word: string): number[] {
    const hit = cache.get(word);
    if (hit) return hit;
    let parts = [...word];
    for (;;) {
      let bestI = -1;
      let bestScore = -Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const id = ids.get(parts[i] + parts[i + 1]);
        if (id !== undefined && vocab.scores[id] > bestScore) {
          bestScore = vocab.scores[id];
          bestI = i;
        }
      }
      if (bestI < 0) break;
      parts = [...parts.slice(0, bestI), parts[bestI] + parts[bestI + 1], ...parts.slice(bestI + 2)];
    }
    const out: number[] = [];
    for (const p of parts) {
      const id = ids.get(p);
      if (id !== undefined) out.push(id);
      else for (const b of Buffer.from(p, 'utf8')) out.push(BYTE_BASE + b);
    }
    if (cache.size < 100_000) cache.set(word, out);
    return out;
  }

  function encodePlain(text: string): number[] {
    if (!text) return [];
    const s = text.replace(/ /g, SPACE);
    const out: number[] = [];
    // Cut before every "▁": no piece spans one, so this equals tokenizing the whole string.
    for (const word of s.split(/(?=\u2581)/)) if (word) out.push(...encodeWord(word));
    return out;
  }

  return {
    vocab,
    /** Special tokens written in the text (<|im_start|>, <|im_end|>) become their ids. */
    encode(text: string): number[] {
      const out: number[] = [];
      for (const piece of text.split(/(<\|im_start\|>|<\|im_end\|>)/)) {
        if (piece === '<|im_start|>') out.push(IM_START);
        else if (piece === '<|im_end|>') out.push(IM_END);
        else if (piece) out.push(...encodePlain(piece));
      }
      return out;
    },
    decode(list: readonly number[]): string {
      const bytes: number[] = [];
      for (const id of list) {
        const t = vocab.tokens[id];
        if (t === undefined) continue;
        if (vocab.types[id] === 6) bytes.push(parseInt(t.slice(3, 5), 16));
        else if (vocab.types[id] === 1) bytes.push(...Buffer.from(t.replace(/\u2581/g, ' '), 'utf8'));
        else bytes.push(...Buffer.from(t, 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    },
  };
}
