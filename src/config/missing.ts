import { join } from 'node:path';
import { providerDefaults } from '../util/provider-kinds.js';
import { CONFIG_FILE } from './files.js';
import { DEFAULT_OLLAMA_URL } from './ollama.js';
import type { TeaConfig } from './types.js';

/**
 * A friendly, multi-line explanation of how to configure a model, meant for when
 * `config.mainModel` is undefined. Names the user's config file for this home.
 */
export function describeMissingModel(config: TeaConfig): string {
  const userFile = join(config.home, CONFIG_FILE);
  const { baseUrl: openaiUrl, model: openaiModel } = providerDefaults('openai');
  const head = config.mainModel
    ? `The main model is ${config.mainModel.model} at ${config.mainModel.baseUrl}. To change it:`
    : 'No model is configured, and Tea needs one to work on a task. Commands that need no model still work ' +
      '(tea sessions, tea memory, tea tools, tea db). To configure a model, pick any of these:';
  return [
    head,
    '',
    '  1. Environment variables (no file needed):',
    `       export OPENAI_API_KEY=sk-...                  # OpenAI or any OpenAI-compatible API`,
    `       export OPENAI_BASE_URL=${openaiUrl}  # optional, this is the default`,
    `       export TEA_MODEL=${openaiModel}                   # optional, this is the default`,
    '     or, for Anthropic:',
    '       export ANTHROPIC_API_KEY=sk-ant-...',
    '     or, for a local server without a key (vLLM, LM Studio, llama.cpp):',
    '       export OPENAI_BASE_URL=http://127.0.0.1:8000/v1 TEA_MODEL=your-model-id',
    '',
    `  2. A config file: ${userFile}`,
    '     (or .tea/config.yaml in a project, which applies these keys once you `tea trust` it):',
    '       main_model:',
    '         provider: openai             # or anthropic',
    `         base_url: ${openaiUrl}`,
    '         api_key_env: OPENAI_API_KEY  # the env var holding the key',
    `         model: ${openaiModel}`,
    '',
    `  3. A local Ollama: install it from https://ollama.com, run \`ollama serve\` and`,
    `     \`ollama pull qwen2.5:7b\`; Tea finds it at ${DEFAULT_OLLAMA_URL} (or $OLLAMA_HOST).`,
    '',
    'Then check the result with `tea config`.',
  ].join('\n');
}
