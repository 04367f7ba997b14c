/** A chat request as node-llama-cpp's chat history, ending with the model's empty turn to fill. */
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { ChatRequest } from '../types.ts';

export function chatHistory(req: ChatRequest): ChatHistoryItem[] {
  const items: ChatHistoryItem[] = req.messages.map((m) =>
    m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
  );
  items.push({ type: 'model', response: [] });
  return items;
}
