import { isDeepStrictEqual } from 'node:util';
import { clientScenario, type ClientScenario, type ClientScenarioContext, DEFAULT_TOOLS, describeReply, isObject, type RecordedFrame, replyFrame, type ServerSession, type RequirementId } from '../kit.js';
import { isAnswer, timedPing } from '../common.js';
import { ASKED, callOf, formOnly, initialized, refusedDeclared, WAIT_MS, whileAsking } from './helpers.js';

/**
 * A `$schema` no JSON Schema release has ever used (`.invalid` cannot resolve): no client can
 * support it. mcpcheck, the producer here, serves it on purpose (its own schemas then break
 * JSCH-VAL-02 and JSCH-VAL-03): it is the probe.
 */
const UNKNOWN_DIALECT = 'https://example.invalid/unknown';

interface ProbeTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Serves `tool` beside the default ones and answers its calls. */
function serveProbeTool(session: ServerSession, tool: ProbeTool): void {
  session.tools = [...DEFAULT_TOOLS, tool];
  const call = session.handler('tools/call');
  session.handle('tools/call', (params, request) => (params.name === tool.name ? { result: { content: [{ type: 'text', text: 'received' }] } } : call(params, request)));
}

/** What a scenario that serves a probe schema in tools/list looks for once the client listed it. */
interface AfterListing {
  /** What a client that broke down after listing (exited, crashed, fell silent) violates. */
  broken: RequirementId[];
  /** What mcpcheck served, in words. */
  served: string;
  /** What the client was asked to do after listing, in words. */
  asked: string;
  /** The request that shows the client went on as asked. */
  awaited(frame: RecordedFrame): boolean;
  /** Judges that request when it came. */
  judge(frame: RecordedFrame): void;
  /** A client that did not do as asked but answers ping: what it showed (a pass) or why it showed nothing (a skip). */
  usable: { pass: string } | { skip: string };
}

/**
 * Judges a client that listed tools carrying a probe schema. The awaited request is judged; else
 * how the client ended up tells: an exit with code 0 shows nothing (it may have refused the call
 * on its own, or never meant to make it), an exit with another code or by a signal after the
 * listing is a failure, and a client still running is pinged (answered: `usable`; silent: a
 * failure, when a ping could reach it at all).
 */
async function judgeAfterListing(ctx: ClientScenarioContext, p: AfterListing): Promise<void> {
  const { session, check } = ctx;
  if (!(await initialized(ctx))) return;
  const listed = await session.waitForMethod('tools/list', WAIT_MS);
  if (!listed) return check.skip(`the client never listed the tools, so it never saw ${p.served}`);
  // Comes back early when the client exits (or, over stdio, ends the session).
  const next = await session.waitForFrame(p.awaited, WAIT_MS, listed.index + 1);
  if (next) return p.judge(next);
  let exit = await ctx.exited(0);
  let silence: string | undefined;
  if (!exit) {
    const { reply, ms } = await timedPing(session);
    if (isAnswer(reply)) {
      if ('skip' in p.usable) return check.skip(`${p.usable.skip}; it answered ping but did not ${p.asked}`);
      return void check.expect(true, { expected: p.usable.pass, actual: `answered ping after listing (${describeReply(reply)})`, frames: [listed.index, replyFrame(reply)] });
    }
    if (reply.kind === 'closed') {
      exit = await ctx.exited(WAIT_MS);
      if (!exit) return check.skip(`the client ended the session and did not ${p.asked}, and had not exited ${WAIT_MS} ms later`);
    } else if (ctx.transport === 'http' && !ctx.exchanges.some((e) => e.method === 'GET' && e.answer === 'sse')) {
      return check.skip(`the client did not ${p.asked} and had not exited ${WAIT_MS} ms after listing, and opened no stream on which mcpcheck could ping it`);
    } else silence = `${describeReply(reply)} to mcpcheck's ping (${ms} ms)`;
  }
  if (exit && exit.code === 0 && !exit.signal) return check.skip(`the client exited with code 0 and did not ${p.asked}, which shows nothing of how it handled ${p.served}`);
  check.expect(false, {
    requirements: p.broken,
    expected: `having listed ${p.served}, the client stays usable and goes on as asked: ${p.asked}`,
    actual: exit
      ? `it ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`} after listing and did not ${p.asked}`
      : `it did not ${p.asked} and had not exited ${WAIT_MS} ms after listing, and gave ${silence}`,
    frames: [listed.index],
  });
}

/** A scenario that serves `tool` and asks the client to list the tools and call it with `args`, which its schema's dialect accepts. */
function callScenario(o: { id: string; title: string; rule: RequirementId; broken: RequirementId[]; tool: ProbeTool; args: Record<string, unknown>; served: string; meaning: string }): ClientScenario {
  return clientScenario({
    id: o.id,
    title: o.title,
    requirements: [...new Set([o.rule, ...o.broken])],
    steps: [{ do: 'list-tools' }, { do: 'call-tool', name: o.tool.name, arguments: o.args }],
    serve: (session) => serveProbeTool(session, o.tool),
    run: (ctx) =>
      judgeAfterListing(ctx, {
        broken: o.broken,
        served: o.served,
        asked: `call ${o.tool.name}`,
        awaited: callOf(o.tool.name),
        judge(frame) {
          const params = isObject(frame.message) && isObject(frame.message.params) ? frame.message.params : {};
          if (!isDeepStrictEqual(params.arguments, o.args)) {
            return ctx.check.skip(`the client called ${o.tool.name} with other arguments than it was asked to (${JSON.stringify(params.arguments)?.slice(0, 160)}), so the call shows nothing of how it read the schema`);
          }
          ctx.check.expect(true, { requirements: [o.rule], expected: `${o.tool.name} called with the arguments asked for, ${o.meaning}`, actual: 'called with them', frames: [frame.index] });
        },
        usable: { skip: `the client stayed usable, but only a call of ${o.tool.name} would show how it read the schema` },
      }),
  });
}

// The two probe schemas below are valid in their dialects (draft-07 earns mcpcheck, the producer,
// a JSCH-DIAL-03 note for not being 2020-12, as intended); what they probe is whether the client
// reads each in its own dialect.

/** 2020-12-only keywords, no `$schema`: under draft-07 `items: false` would forbid every element of `point`. */
const DEFAULT_DIALECT_TOOL: ProbeTool = {
  name: 'schema_2020_12',
  description: 'Takes a point, a label and an optional scale with its unit (JSON Schema 2020-12, the default dialect).',
  inputSchema: {
    type: 'object',
    properties: {
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
      label: { $ref: '#/$defs/label' },
      scale: { type: 'number' },
      unit: { type: 'string' },
    },
    required: ['point', 'label'],
    dependentRequired: { scale: ['unit'] },
    $defs: { label: { type: 'string', minLength: 1 } },
  },
};

export const clientDefaultDialect = callScenario({
  id: 'client.schemas.default-dialect',
  title: 'A schema without $schema is JSON Schema 2020-12: the client lists and calls a tool whose inputSchema uses 2020-12-only keywords (prefixItems, $defs, dependentRequired)',
  rule: 'JSCH-DIAL-01',
  broken: ['JSCH-DIAL-01'],
  tool: DEFAULT_DIALECT_TOOL,
  args: { point: [1, 2], label: 'origin', scale: 2, unit: 'cm' },
  served: 'a tool whose inputSchema (no $schema) uses 2020-12-only keywords',
  meaning: 'valid under 2020-12',
});

/** Declares draft-07 (JSCH-DIAL-02 allows it) and uses forms 2020-12 no longer has: `items` as a tuple, `dependencies`. */
const DRAFT_07_TOOL: ProbeTool = {
  name: 'schema_draft_07',
  description: 'Takes a name and a count, and an optional card with its expiry (JSON Schema draft-07, declared).',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      card: { type: 'string' },
      expiry: { type: 'string' },
    },
    required: ['pair'],
    dependencies: { card: ['expiry'] },
  },
};

export const clientDeclaredDraft07 = callScenario({
  id: 'client.schemas.declared-draft-07',
  title: 'A schema is applied with the semantics of its declared dialect: the client calls a tool whose inputSchema declares draft-07 and uses draft-07-only forms (items as an array, dependencies)',
  rule: 'JSCH-VAL-01',
  // A client that reads draft-07 must apply its meaning; one that does not must refuse gracefully:
  // breaking down after the listing fails one or the other.
  broken: ['JSCH-VAL-01', 'JSCH-VAL-02'],
  tool: DRAFT_07_TOOL,
  args: { pair: ['apples', 3], card: '4111', expiry: '12/30' },
  served: 'a tool whose inputSchema declares draft-07 and uses draft-07-only forms',
  meaning: 'valid under draft-07',
});

const UNKNOWN_DIALECT_FORM = {
  mode: 'form',
  message: 'mcpcheck asks for a name, in a schema dialect no client supports',
  requestedSchema: { $schema: UNKNOWN_DIALECT, type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
};

/** An error message that gives the schema as the reason (its dialect, its `$schema`, the URI). */
const NAMES_THE_SCHEMA = /dialect|schema|example\.invalid/i;

export const clientUnknownDialectElicitation = clientScenario({
  id: 'client.schemas.unknown-dialect-elicitation',
  title: 'An elicitation whose requestedSchema names an unsupported dialect is answered with an error saying the dialect is not supported, and the client stays usable',
  requirements: ['JSCH-VAL-02'],
  ...ASKED,
  async run(ctx) {
    const { session, check } = ctx;
    await whileAsking(ctx, formOnly, 'elicitation/create', async () => {
      // A client that never answers ping says nothing by not answering it after the elicitation.
      const before = await timedPing(session);
      const reply = await session.request('elicitation/create', UNKNOWN_DIALECT_FORM, WAIT_MS);
      if (refusedDeclared(ctx, 'elicitation/create', reply)) {
        check.skip('the client refused elicitation/create as a method it does not serve, which shows nothing of how it handles the dialect', { key: 'error' });
      } else if (reply.kind === 'error' && !NAMES_THE_SCHEMA.test(String(reply.error.message))) {
        // A client may refuse any elicitation (no user to ask, say): that refusal shows nothing.
        check.skip(`the client refused the elicitation with an error that does not name the schema or its dialect (${describeReply(reply)}), so it may have refused it for another reason`, { key: 'error' });
      } else {
        // A result, even decline or cancel, is no error saying the dialect is unsupported.
        check.expect(reply.kind === 'error', {
          key: 'error',
          expected: `a JSON-RPC error saying the dialect ${UNKNOWN_DIALECT} is not supported`,
          actual: describeReply(reply),
          frames: [replyFrame(reply)],
          replies: [reply],
        });
      }
      if (before.reply.kind !== 'result') {
        return check.skip(`the client did not answer mcpcheck's ping even before the elicitation (${describeReply(before.reply)}; see client.utilities.ping)`, { key: 'usable' });
      }
      const after = await timedPing(session);
      check.expect(after.reply.kind === 'result', {
        key: 'usable',
        expected: 'ping still answered after the elicitation, as it was before',
        actual: `${describeReply(after.reply)} after ${after.ms} ms`,
        frames: [replyFrame(reply), replyFrame(after.reply)],
      });
    });
  },
});

const UNKNOWN_DIALECT_TOOL: ProbeTool = {
  name: 'schema_unknown_dialect',
  description: 'Its inputSchema names a JSON Schema dialect no client supports.',
  inputSchema: { $schema: UNKNOWN_DIALECT, type: 'object', properties: { text: { type: 'string' } } },
};

export const clientUnknownDialectTool = clientScenario({
  id: 'client.schemas.unknown-dialect-tool',
  title: 'A tool whose inputSchema names an unsupported dialect is handled gracefully: the client lists it and stays usable',
  requirements: ['JSCH-VAL-02'],
  steps: [{ do: 'list-tools' }, { do: 'ping' }],
  serve: (session) => serveProbeTool(session, UNKNOWN_DIALECT_TOOL),
  run: (ctx) =>
    judgeAfterListing(ctx, {
      broken: ['JSCH-VAL-02'],
      served: 'a tool whose inputSchema names an unsupported dialect',
      asked: 'send its next request (the ping step)',
      // Any request but another listing shows the client went on.
      awaited: (f) => isObject(f.message) && typeof f.message.method === 'string' && 'id' in f.message && f.message.method !== 'tools/list',
      judge(frame) {
        ctx.check.expect(true, { expected: 'the client lists a tool of an unknown dialect and stays usable', actual: `listed it, then sent ${String(isObject(frame.message) && frame.message.method)}`, frames: [frame.index] });
      },
      usable: { pass: 'the client lists a tool of an unknown dialect and stays usable' },
    }),
});

export const clientSchemas: ClientScenario[] = [clientDefaultDialect, clientDeclaredDraft07, clientUnknownDialectElicitation, clientUnknownDialectTool];
