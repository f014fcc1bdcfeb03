import { clientScenario, type ClientScenario, isObject } from '../kit.js';
import { conversing, violations, WAIT_MS } from './helpers.js';

const ARGUMENTS = { a: 2, b: 3 };

export const clientToolCall = clientScenario({
  id: 'client.tools.call',
  alias: 'tools_call',
  title: "A client's tools/call is a CallToolRequest as the schema defines it (params.name a string, params.arguments an object)",
  requirements: ['BASE-SCHEMA-01'],
  carriedOver: true,
  steps: [{ do: 'list-tools' }, { do: 'call-tool', name: 'add_numbers', arguments: ARGUMENTS }],
  async run(ctx) {
    const { session, check } = ctx;
    if (!(await conversing(ctx))) return;
    const call = await session.waitForMethod('tools/call', WAIT_MS);
    if (!call || !isObject(call.message)) return check.skip('the client called no tool (it was asked to call add_numbers with {"a":2,"b":3})');
    const params = isObject(call.message.params) ? call.message.params : {};
    const broken = violations(session, 'BASE-SCHEMA-01', [call.index]);
    check.expect(broken.length === 0, {
      expected: 'a tools/call whose params match CallToolRequest',
      actual: broken.length ? broken.map((f) => f.message).join('; ') : `tools/call of ${JSON.stringify(params.name)} with arguments ${JSON.stringify(params.arguments)}`,
      frames: [call.index],
    });
  },
});

export const clientTools: ClientScenario[] = [clientToolCall];
