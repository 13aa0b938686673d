/** The Agents SDK `get_weather` tool (`tool()`) the client tests give their agents: it notes each city it ran for. */
import { tool } from '@openai/agents';
import * as z from 'zod';

export function weatherAgentTool(ran: unknown[], celsius = 19) {
  return tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => {
      ran.push(city);
      return `${city}: ${celsius} C`;
    },
  });
}
