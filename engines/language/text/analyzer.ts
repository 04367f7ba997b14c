/**
 * The retrieval analyzer, built as Lucene's EnglishAnalyzer is: a word tokenizer that follows
 * the Unicode word-break rules StandardTokenizer implements (letters and digits run together;
 * an apostrophe or a full stop joins two letters, as in "don't" or "u.s"; a full stop or a
 * comma joins two digits, as in "3.5" or "10,000"; hyphens, slashes and other marks split),
 * then the English possessive filter (a trailing 's goes), lower case, stop words, and the
 * Porter stemmer (Lucene's PorterStemFilter runs the same published algorithm).
 *
 * One departure, measured: the stop set is Lucene's 33 English stop words together with the
 * classic tokenizer's SMART-derived function words (text/stopwords.ts). Queries in the wild
 * are questions ("what ... how can ... must"), and those words are not in Lucene's set; on
 * the training half of Cranfield's queries the larger set scores BM25 nDCG@10 0.368 against
 * 0.362 with Lucene's set alone (README, "Retrieval").
 *
 * `terms()` in tokenize.ts stays the classic embedding's tokenizer, so that stored hashing
 * vectors and embedding usage counts do not change under existing indexes.
 *
 * @example analyze("The plate's boundary-layer flows at Mach 3.5") // ['plate', 'boundari', 'layer', 'flow', 'mach', '3.5']
 */
import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stopwords.ts';

/** Recorded in an index's metadata: postings written by another analyzer are rebuilt on open. */
export const ANALYZER_VERSION = 'english-lucene-1';

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET. */
export const LUCENE_STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** What the analyzer drops: Lucene's set and the SMART-derived function words. */
export const ANALYZER_STOP_WORDS: ReadonlySet<string> = new Set([...LUCENE_STOP_WORDS, ...STOP_WORDS]);

const TOKEN = /[\p{L}\p{N}_]+(?:(?:(?<=\p{L})['’.](?=\p{L})|(?<=\p{N})[.,](?=\p{N}))[\p{L}\p{N}_]+)*/gu;

/** Tokens as the tokenizer, possessive filter and lower-case filter leave them (stop words kept). */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const t of text.match(TOKEN) ?? []) out.push(t.replace(/['’][sS]$/, '').toLowerCase());
  return out;
}

const stems = new Map<string, string>();

/** Porter stem of one token; tokens without a letter (numbers) pass unchanged, as in Lucene. */
export function porter(token: string): string {
  let s = stems.get(token);
  if (s === undefined) {
    s = /\p{L}/u.test(token) ? stemmer(token) : token;
    if (stems.size < 200_000) stems.set(token, s);
  }
  return s;
}

/** Index terms of `text`, in order (positions count the stop words that were dropped out). */
export function analyze(text: string, stop: ReadonlySet<string> = ANALYZER_STOP_WORDS): string[] {
  const out: string[] = [];
  for (const t of tokens(text)) if (!stop.has(t)) out.push(porter(t));
  return out;
}
