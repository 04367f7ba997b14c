// `lattice chat`: one prompt to a configured model (the built-in one by default), whole or streamed.
import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
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

/** A `--model` that names a file: it must be a GGUF model (llama.cpp's format). */
function looksLikeFile(model: string): boolean {
  return /\.gguf$/i.test(model) || model.includes('/') || model.includes('\\');
}

function checkGguf(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new Error(`--model ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    if (magic.toString('latin1') !== 'GGUF') throw new Error(`--model ${path} is not a GGUF model file (llama.cpp format)`);
  } finally {
    closeSync(fd);
  }
}

const MODELS_HELP = `
Models:
  Without --model, the built-in model lattice-tiny answers: a tiny model trained in a few
  minutes on aeronautics abstracts, there to test the plumbing (expect word salad); chat
  says so once on stderr. For real answers:
    --model FILE.gguf       any local GGUF chat model (as llama.cpp takes it), e.g.
                            lattice chat --model ./qwen2.5-0.5b-instruct-q4_k_m.gguf "Hello"
    LATTICE_MODELS=FILE     a JSON file of named models (local GGUF files and
                            OpenAI-compatible servers), then --model ID; for example
                            {"models": [{"id": "qwen", "provider": "local", "path": "/models/qwen.gguf"},
                              {"id": "gpt-4o-mini", "provider": "openai",
                               "base_url": "https://api.example.com/v1", "api_key_env": "OPENAI_API_KEY"}],
                             "default_chat_model": "qwen"}
  See engines/language/README.md.`;

export function register(program: Command): void {
  program
    .command('chat')
    .description('chat with a model; prints the reply, or {model, content, usage} with --json')
    .argument('<prompt>', 'the user message')
    .option('--model <id|file.gguf>', 'model id from LATTICE_MODELS, or a GGUF file (default: the configured default, lattice-tiny)')
    .option('--stream', 'print the reply token by token as it is generated')
    .option('--json', 'print {model, content, usage}')
    .option('--system <text>', 'a system message')
    .option('--max-tokens <n>', 'most tokens to generate')
    .option('--temperature <t>', 'sampling temperature, 0 to 2')
    .option('--top-p <p>', 'nucleus sampling mass, 0 to 1')
    .option('--stop <text...>', 'stop sequences')
    .option('--seed <n>', 'sampling seed (local models)')
    .option('--lora <file>', 'a GGUF LoRA adapter applied to this request (local models)')
    .addHelpText('after', MODELS_HELP)
    .action(async (prompt: string, opts: ChatOpts) => {
      const { ModelRegistry } = await import('../../engines/language/registry.ts');
      const { loadConfig, BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH } = await import('../../engines/language/config.ts');
      const config = loadConfig();
      const modelId = opts.model ?? config.default_chat_model;
      const known = config.models.some((m) => m.id === modelId);
      if (!known && looksLikeFile(modelId)) {
        const path = resolve(modelId);
        checkGguf(path);
        config.models.push({ id: modelId, provider: 'local', path, capabilities: ['chat', 'embed'] });
      }
      const chosen = config.models.find((m) => m.id === modelId);
      if (chosen && (chosen.id === BUILTIN_MODEL_ID || (chosen.path && resolve(chosen.path) === BUILTIN_MODEL_PATH))) {
        process.stderr.write(
          `lattice: answering with the built-in ${BUILTIN_MODEL_ID}, a smoke-test model (expect word salad); give a real one with --model FILE.gguf or LATTICE_MODELS (lattice chat --help)\n`,
        );
      }
      const models = new ModelRegistry(config);
      const messages = [...(opts.system ? [{ role: 'system' as const, content: opts.system }] : []), { role: 'user' as const, content: prompt }];
      const maxTokens = num(opts.maxTokens, '--max-tokens', true);
      const temperature = num(opts.temperature, '--temperature');
      const topP = num(opts.topP, '--top-p');
      const seed = num(opts.seed, '--seed', true);
      const req = {
        model: modelId,
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
