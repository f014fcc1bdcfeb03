import { describe, expect, it } from 'vitest';
import { checkSamplingMessages } from '../src/validate/sampling.js';

const use = (id: string) => ({ type: 'tool_use', id, name: 'get_weather', input: { city: 'Paris' } });
const result = (id: string) => ({ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: 'sunny' }] });
const ids = (messages: unknown) => checkSamplingMessages(messages).map((f) => f.requirements[0]);

describe('sampling message history (SAMP-MSG-01/02)', () => {
  it('accepts a balanced tool loop, with several tool uses answered together', () => {
    expect(
      ids([
        { role: 'user', content: { type: 'text', text: 'Weather in Paris and Rome?' } },
        { role: 'assistant', content: [use('a'), use('b')] },
        { role: 'user', content: [result('a'), result('b')] },
        { role: 'assistant', content: { type: 'text', text: 'Sunny in both.' } },
      ]),
    ).toEqual([]);
  });

  it('flags results mixed with other blocks, unanswered uses and results naming no earlier use', () => {
    expect(ids([{ role: 'assistant', content: [use('a')] }, { role: 'user', content: [result('a'), { type: 'text', text: 'x' }] }])).toEqual(['SAMP-MSG-01']);
    expect(ids([{ role: 'assistant', content: [use('a'), use('b')] }, { role: 'user', content: [result('a')] }])).toEqual(['SAMP-MSG-02']);
    expect(ids([{ role: 'assistant', content: [use('a')] }, { role: 'assistant', content: { type: 'text', text: 'hm' } }])).toEqual(['SAMP-MSG-02']);
    expect(ids([{ role: 'user', content: [result('zzz')] }])).toEqual(['SAMP-MSG-02']);
  });

  it('never throws on junk', () => {
    for (const junk of [null, 5, 'x', [null, 1, { role: 'user' }], [{ role: 'assistant', content: [null, { type: 'tool_use' }] }]]) {
      expect(() => checkSamplingMessages(junk)).not.toThrow();
    }
  });
});
