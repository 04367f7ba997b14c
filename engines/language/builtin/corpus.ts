/**
 * The text the built-in model learns from, all shipped with the project: the Cranfield
 * abstracts, chat turns made from Cranfield's queries answered with the title and opening
 * sentence of their most relevant abstract, and title-to-summary turns. Chat turns use the
 * ChatML layout the GGUF's template renders. Only fixture data goes in, so that the corpus
 * (and so the trained file) does not change when the project's docs do.
 */
import { fileURLToPath } from 'node:url';
import { loadCranfield } from '../eval/cranfield.ts';

export const CRANFIELD_DIR = fileURLToPath(new URL('../../../fixtures/ir/cranfield', import.meta.url));

export function chatTurn(user: string, assistant: string, system?: string): string {
  const sys = system ? `<|im_start|>system\n${system}<|im_end|>\n` : '';
  return `${sys}<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n${assistant}<|im_end|>\n`;
}

function firstSentence(text: string): string {
  const cut = text.search(/ \. /);
  return (cut > 0 ? text.slice(0, cut) : text.slice(0, 200)).trim() + ' .';
}

export interface Corpus {
  /** Documents of plain text and chat turns, in a fixed order. */
  documents: string[];
}

export function buildCorpus(cranfieldDir = CRANFIELD_DIR): Corpus {
  const { docs, queries, qrels } = loadCranfield(cranfieldDir);
  const byId = new Map(docs.map((d) => [d.doc_id, d]));
  const documents: string[] = [];
  for (const d of docs) documents.push(`${d.text}\n`);
  for (const q of queries) {
    const judged = [...(qrels.get(q.query_id) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    const best = judged.length ? byId.get(judged[0][0]) : undefined;
    if (best) documents.push(chatTurn(q.text, `${best.title} . ${firstSentence(best.text.slice((best.title ?? "").length))}`));
  }
  docs.forEach((d, i) => {
    if (!d.title) return;
    const system = i % 3 === 0 ? 'You are a helpful assistant.' : undefined;
    documents.push(chatTurn(`summarise the paper "${d.title}"`, firstSentence(d.text.slice((d.title ?? "").length)), system));
  });
  return { documents };
}
