/**
 * The retrieval tokenizer: lower-cases, splits on anything that is not a letter or digit
 * (keeping intra-word apostrophes and hyphens out), drops stop words and one-letter tokens,
 * and reduces each word to its Porter stem, so that "flows", "flowing" and "flow" match.
 *
 * @example terms('Flows past flat plates') // ['flow', 'past', 'flat', 'plate']
 */
import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stopwords.ts';

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;

/** Lower-cased words in order, stop words included (for proximity and phrase features). */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

const stemCache = new Map<string, string>();

/** The Porter stem of one lower-cased word; cached because corpora repeat words a lot. */
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = /^\p{L}+$/u.test(word) ? stemmer(word) : word;
    if (stemCache.size < 200_000) stemCache.set(word, s);
  }
  return s;
}

/** Index terms of `text`: stems of the words that are not stop words, in order. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 && !/\d/.test(w)) continue;
    if (STOP_WORDS.has(w)) continue;
    out.push(stem(w.replace(/'s$/, '')));
  }
  return out;
}

/** Term frequencies of a term list. */
export function termCounts(list: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of list) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}
