import { type ArgumentContext, type ClientSession, contentBlockProblem, describeReply, hasCapability, isObject, list, MODERN_ERRORS, promptArgumentValue, type Reply, replyFrame, scenario, show } from '../kit.js';
import { argumentContext, asksForInput, budget } from './helpers.js';

const MAX_GETS = 20;

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

/** The declared arguments of a prompt that are objects with a string name. */
function argumentsOf(prompt: Record<string, unknown>): PromptArgument[] {
  if (!Array.isArray(prompt.arguments)) return [];
  return prompt.arguments
    .filter(isObject)
    .filter((a) => typeof a.name === 'string')
    .map((a) => ({ name: a.name as string, description: [a.title, a.description].filter((t) => typeof t === 'string').join(' '), required: a.required === true }));
}

export const promptList = scenario({
  id: 'server.prompts.list',
  title: 'prompts/list lists prompts, each with a name and well-formed arguments',
  requirements: ['PROMPT-LIST-01'],
  isolation: 'shared',
  // It judges what discovery listed, which both eras list alike.
  carriedOver: true,
  needs: { capabilities: ['prompts'] },
  async run({ check, discovery }) {
    const walk = discovery.walks['prompts/list'];
    // Only the rule's own fields: the rest of the Prompt schema is checked live.
    const bad: string[] = [];
    for (const p of discovery.prompts) {
      if (typeof p.name !== 'string') {
        bad.push(`a prompt's name is ${show(p.name, 40)}`);
        continue;
      }
      if (!('arguments' in p)) continue;
      if (!Array.isArray(p.arguments)) bad.push(`${p.name}: arguments is ${show(p.arguments, 40)}, not an array`);
      else {
        for (const a of p.arguments) {
          if (!isObject(a) || typeof a.name !== 'string') bad.push(`${p.name}: an argument is ${show(a, 60)}, without a string name`);
          else if ('required' in a && typeof a.required !== 'boolean') bad.push(`${p.name}: argument ${a.name} has required ${show(a.required, 30)}, not a boolean`);
        }
      }
    }
    const walked = walk !== undefined && ['complete', 'loop', 'limit'].includes(walk.end);
    check.expect(walked && bad.length === 0, {
      expected: 'prompts/list walked to its end, every prompt with a string name and arguments of {name, required?: boolean}',
      actual: !walked ? `the walk ended with "${walk?.end ?? 'not run'}"${walk?.lastReply ? `: ${describeReply(walk.lastReply)}` : ''}` : `${bad.length} of ${discovery.prompts.length} malformed: ${list(bad)}`,
    });
  },
});

/**
 * Values for a prompt's required arguments: the first completion the server suggests (passing the
 * values chosen so far as context), else a value of the kind the argument's name and description
 * suggest (a listed resource's URI for a `uri`, a date for a `date`, …).
 */
async function fillArguments(session: ClientSession, name: string, args: PromptArgument[], completions: boolean, context: ArgumentContext, timeoutMs: () => number): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const a of args.filter((x) => x.required)) {
    let value = promptArgumentValue(a.name, a.description, context);
    if (completions) {
      const reply = await session.request(
        'completion/complete',
        { ref: { type: 'ref/prompt', name }, argument: { name: a.name, value: '' }, ...(Object.keys(values).length ? { context: { arguments: { ...values } } } : {}) },
        timeoutMs(),
      );
      const first = reply.kind === 'result' && isObject(reply.result.completion) && Array.isArray(reply.result.completion.values) ? reply.result.completion.values[0] : undefined;
      if (typeof first === 'string') value = first;
    }
    values[a.name] = value;
  }
  return values;
}

/** Problems with one GetPromptResult, as text. */
function promptProblems(result: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!Array.isArray(result.messages)) return [`messages is ${show(result.messages, 40)}, not an array`];
  result.messages.forEach((m, i) => {
    if (!isObject(m)) return problems.push(`messages[${i}] is ${show(m, 40)}`);
    if (m.role !== 'user' && m.role !== 'assistant') problems.push(`messages[${i}].role is ${show(m.role, 40)}, not "user" or "assistant"`);
    const block = contentBlockProblem(m.content);
    if (block) problems.push(`messages[${i}].content: ${block}`);
    return undefined;
  });
  if ('description' in result && typeof result.description !== 'string') problems.push(`description is ${show(result.description, 40)}, not a string`);
  return problems;
}

export const promptGet = scenario({
  id: 'server.prompts.get',
  title: 'Each listed prompt can be fetched: messages with a user/assistant role and a content block',
  requirements: ['PROMPT-GET-01'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['prompts'] },
  async run({ session, check, discovery }) {
    const prompts = discovery.prompts.filter((p) => typeof p.name === 'string').slice(0, MAX_GETS);
    if (prompts.length === 0) return check.skip('the server lists no prompts');
    const completions = hasCapability(discovery.capabilities, 'completions');
    const context = argumentContext(discovery);
    const gets: Array<{ name: string; args: Record<string, string>; needsArgs: boolean; reply: Reply }> = [];
    const time = budget(20_000);
    for (const p of prompts) {
      if (time.spent()) break;
      const declared = argumentsOf(p);
      const args = await fillArguments(session, p.name as string, declared, completions, context, () => time.timeout(3_000));
      const reply = await session.request('prompts/get', { name: p.name, arguments: args }, time.timeout(5_000));
      gets.push({ name: p.name as string, args, needsArgs: declared.some((a) => a.required), reply });
    }
    const askedForInput = gets.filter((g) => asksForInput(g.reply));
    if (askedForInput.length) check.note(`asked for input first (an InputRequiredResult, judged by server.modern.mrtr.*, not here): ${askedForInput.map((g) => g.name).join(', ')}`);
    const results = gets.filter((g) => g.reply.kind === 'result' && !asksForInput(g.reply));
    const refusedWithArgs = gets.filter((g) => g.reply.kind !== 'result' && g.needsArgs);
    // A prompt that needs a client capability mcpcheck did not declare is refused as the 2026-07-28 spec asks (META-REQ-05).
    const needsCapability = gets.filter((g) => g.reply.kind === 'error' && g.reply.error.code === MODERN_ERRORS.missingClientCapability);
    if (needsCapability.length) check.note(`refused for a client capability mcpcheck did not declare (−32021): ${needsCapability.map((g) => g.name).join(', ')}`);
    const refusedPlain = gets.filter((g) => g.reply.kind !== 'result' && !g.needsArgs && !needsCapability.includes(g));
    if (refusedWithArgs.length) {
      check.note(
        `${refusedWithArgs.length} prompt(s) refused mcpcheck's stand-in argument values (not a verdict: the values may simply be invalid): ${list(refusedWithArgs.map((g) => `${g.name} ${show(g.args, 80)} → ${describeReply(g.reply)}`), 5)}`,
      );
    }
    check.expect(refusedPlain.length === 0, {
      key: 'without-arguments',
      level: 'SHOULD',
      expected: 'every listed prompt without required arguments fetched with a result',
      actual: list(refusedPlain.map((g) => `${g.name} → ${describeReply(g.reply)}`)),
      frames: refusedPlain.map((g) => replyFrame(g.reply)),
    });
    if (results.length === 0) return check.skip('no prompt could be fetched, so no GetPromptResult could be checked', { key: 'result' });
    const bad = results
      .map((g) => ({ g, problems: g.reply.kind === 'result' ? promptProblems(g.reply.result) : [] }))
      .filter((x) => x.problems.length > 0);
    check.expect(bad.length === 0, {
      key: 'result',
      expected: `a GetPromptResult (messages of {role: user|assistant, content}) for ${results.map((g) => g.name).join(', ')}`,
      actual: list(bad.map((x) => `${x.g.name}: ${x.problems[0]}`)),
      frames: bad.map((x) => replyFrame(x.g.reply)),
    });
  },
});

export const promptErrors = scenario({
  id: 'server.prompts.errors',
  title: 'An unknown prompt, or missing required arguments, get −32602',
  requirements: ['PROMPT-ERR-01'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['prompts'] },
  async run({ session, check, discovery }) {
    const unknown = await session.request('prompts/get', { name: 'mcpcheck_no_such_prompt', arguments: {} });
    check.errorCode(unknown, [-32602], { key: 'unknown', what: 'prompts/get mcpcheck_no_such_prompt' });
    const withRequired = discovery.prompts.find((p) => typeof p.name === 'string' && argumentsOf(p).some((a) => a.required));
    if (!withRequired) return check.skip('not exercised: no listed prompt has required arguments', { key: 'missing-arguments' });
    const missing = argumentsOf(withRequired).filter((a) => a.required).map((a) => a.name);
    const reply = await session.request('prompts/get', { name: withRequired.name, arguments: {} });
    check.errorCode(reply, [-32602], { key: 'missing-arguments', what: `prompts/get ${show(withRequired.name)} without its required argument(s) ${missing.join(', ')}` });
  },
});

export const prompts = [promptList, promptGet, promptErrors];
