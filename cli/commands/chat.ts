// `lattice chat`: one prompt to a configured model (the built-in one by default), whole or streamed.
import type { Command } from 'commander';

interface ChatOpts {
  model?: string;
  stream?: boolean;
  json?: boolean;
  system?: string;
  maxTokens?: string;
  temperature?: string;
  topP?: string;
  stop?: string[];
  seed?: string;
  lora?: string;
}

function num(v: string | undefined, name: string, int = false): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (int && !Number.isInteger(n))) throw new Error(`${name} must be a${int ? 'n integer' : ' number'}, got "${v}"`);
  return n;
}

export function register(program: Command): void {
  program
    .command('chat')
    .description('chat with a model; prints the reply, or {model, content, usage} with --json')
    .argument('<prompt>', 'the user message')
    .option('--model <id>', 'model id (default: the configured default, lattice-tiny)')
    .option('--stream', 'print the reply token by token as it is generated')
    .option('--json', 'print {model, content, usage}')
    .option('--system <text>', 'a system message')
    .option('--max-tokens <n>', 'most tokens to generate')
    .option('--temperature <t>', 'sampling temperature, 0 to 2')
    .option('--top-p <p>', 'nucleus sampling mass, 0 to 1')
    .option('--stop <text...>', 'stop sequences')
    .option('--seed <n>', 'sampling seed (local models)')
    .option('--lora <file>', 'a GGUF LoRA adapter applied to this request (local models)')
    .action(async (prompt: string, opts: ChatOpts) => {
      const { ModelRegistry } = await import('../../engines/language/registry.ts');
      const { loadConfig } = await import('../../engines/language/config.ts');
      const models = new ModelRegistry(loadConfig());
      const messages = [...(opts.system ? [{ role: 'system' as const, content: opts.system }] : []), { role: 'user' as const, content: prompt }];
      const maxTokens = num(opts.maxTokens, '--max-tokens', true);
      const temperature = num(opts.temperature, '--temperature');
      const topP = num(opts.topP, '--top-p');
      const seed = num(opts.seed, '--seed', true);
      const req = {
        model: opts.model ?? models.config.default_chat_model,
        messages,
        ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(topP !== undefined ? { top_p: topP } : {}),
        ...(seed !== undefined ? { seed } : {}),
        ...(opts.stop ? { stop: opts.stop } : {}),
        ...(opts.lora ? { lora: { path: opts.lora } } : {}),
      };
      try {
        if (opts.stream && !opts.json) {
          for await (const chunk of models.chatStream(req)) {
            if (chunk.type === 'delta') process.stdout.write(chunk.content);
            else process.stdout.write('\n');
          }
          return;
        }
        const r = await models.chat(req);
        if (opts.json) process.stdout.write(`${JSON.stringify({ model: r.model, content: r.content, usage: r.usage })}\n`);
        else process.stdout.write(`${r.content}\n`);
      } finally {
        await models.close();
        const { unloadAll } = await import('../../engines/language/local/runtime.ts');
        await unloadAll();
      }
    });
}
