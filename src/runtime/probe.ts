/** A one-off call to a configured model (`tea config test`), and the sandbox's status. */
export { complete } from '../llm/collect.js';
export { createModelChain, type ProfileConfig } from '../llm/factory.js';
export { createRegistry } from '../llm/registry.js';
export { Sandbox } from '../tools/sandbox/sandbox.js';
export { sandboxStatus } from '../tools/sandbox/status.js';
