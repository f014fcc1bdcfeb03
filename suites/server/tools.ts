import { checkCallToolResult, checkContentList, checkSchema, describeReply, excuseEchoedUris, inLanes, isObject, list, planToolCall, type Reply, replyFrame, ruling, scenario, type ScenarioContext, show, suppliedArguments, type ToolPlan, validateWithSchema, walkList } from '../kit.js';
import { argumentContext, asksForInput, callTool, quickArguments, unansweredErrorSkip } from './helpers.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const TASK_SUPPORT = ['forbidden', 'optional', 'required'];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
/** Bounds on what server.tools.call does to a real server. */
const MAX_CALLS = 20;
const CALL_BUDGET_MS = 20_000;
/** Calls in flight at once: a client may have several requests outstanding, and a slow tool need not hold up the quick ones. */
const CALLS_AT_ONCE = 3;

function nameOf(tool: Record<string, unknown>): string {
  return typeof tool.name === 'string' ? tool.name : show(tool.name);
}

type SchemaKey = 'inputSchema' | 'outputSchema';

/**
 * What is wrong with the listed tools' schemas: each must be a valid JSON Schema object, and those
 * of `rootObject` have root "type": "object".
 */
function schemaProblems(tools: Array<Record<string, unknown>>, rootObject: readonly SchemaKey[]): string[] {
  const bad: string[] = [];
  for (const t of tools) {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      // A missing inputSchema is TOOL-LIST-01's; an optional outputSchema may be absent.
      if (!(key in t)) continue;
      const s = t[key];
      if (!isObject(s)) bad.push(`${nameOf(t)}: ${key} is ${show(s, 40)}, not a JSON Schema object`);
      else if (rootObject.includes(key) && s.type !== 'object') bad.push(`${nameOf(t)}: ${key} has root "type": ${show(s.type, 40)}, not "object"`);
      else {
        const broken = checkSchema(s, `/${key}`).filter((f) => f.severity === 'fail');
        if (broken.length) bad.push(`${nameOf(t)}: ${broken[0]!.message}`);
      }
    }
  }
  return bad;
}

/** One check per rule over every listed tool; the live validators flag each page as it arrives. */
export const toolList = scenario({
  id: 'server.tools.list',
  title: 'tools/list lists well-formed tools: names, input/output schemas, annotations, execution',
  requirements: ['TOOL-LIST-01', 'TOOL-SCHEMA-01', 'TOOL-NAME-01', 'TOOL-NAME-03', 'TOOL-ANN-02', 'TOOL-EXEC-01'],
  isolation: 'shared',
  // It judges what discovery listed, which both eras list alike.
  carriedOver: true,
  needs: { capabilities: ['tools'] },
  async run({ check, discovery }) {
    const walk = discovery.walks['tools/list'];
    const tools = discovery.tools;
    // Only the rule's own fields: everything else of the Tool schema is checked live on each page.
    const badShape: string[] = [];
    for (const t of tools) {
      if (typeof t.name !== 'string') badShape.push(`a tool's name is ${show(t.name, 40)}`);
      else if (!('inputSchema' in t)) badShape.push(`${t.name}: no inputSchema`);
    }
    // A walk that looped or ran long still listed its tools; server.utilities.pagination judges the cursors.
    const walked = walk !== undefined && ['complete', 'loop', 'limit'].includes(walk.end);
    check.expect(walked && badShape.length === 0, {
      key: 'shape',
      requirements: ['TOOL-LIST-01'],
      expected: 'tools/list walked to its end, every tool with a string name and an inputSchema',
      actual: !walked ? `the walk ended with "${walk?.end ?? 'not run'}"${walk?.lastReply ? `: ${describeReply(walk.lastReply)}` : ''}` : `${badShape.length} of ${tools.length} malformed: ${list(badShape)}`,
    });

    const badSchema = schemaProblems(tools, ['inputSchema', 'outputSchema']);
    check.expect(badSchema.length === 0, {
      key: 'schemas',
      requirements: ['TOOL-SCHEMA-01'],
      expected: 'every inputSchema (and outputSchema) a valid JSON Schema object with root "type": "object"',
      actual: `${badSchema.length} problem(s): ${list(badSchema)}`,
    });

    const badNames = tools.map(nameOf).filter((n) => !TOOL_NAME.test(n));
    check.expect(badNames.length === 0, {
      key: 'names',
      requirements: ['TOOL-NAME-01'],
      expected: 'tool names of 1–128 ASCII letters, digits, "_", "-" or "."',
      actual: `${badNames.length} other name(s): ${list(badNames.map((n) => show(n, 60)))}`,
    });

    const seen = new Map<string, number>();
    for (const n of tools.map(nameOf)) seen.set(n, (seen.get(n) ?? 0) + 1);
    const dupes = [...seen].filter(([, count]) => count > 1).map(([n, count]) => `${show(n, 60)} ×${count}`);
    if (walk?.end === 'loop' && dupes.length > 0) {
      check.skip(`not judged: the tools/list walk looped (see server.utilities.pagination), so names seen twice (${list(dupes, 4)}) may be the same page listed again`, {
        key: 'unique',
        requirements: ['TOOL-NAME-03'],
      });
    } else check.expect(dupes.length === 0, {
      key: 'unique',
      requirements: ['TOOL-NAME-03'],
      expected: 'unique tool names across all pages of tools/list',
      actual: `duplicates: ${list(dupes)}`,
    });

    const badHints: string[] = [];
    for (const t of tools) {
      if (!('annotations' in t)) continue;
      const a = t.annotations;
      if (!isObject(a)) {
        badHints.push(`${nameOf(t)}: annotations is ${show(a, 40)}`);
        continue;
      }
      if ('title' in a && typeof a.title !== 'string') badHints.push(`${nameOf(t)}: annotations.title is ${show(a.title, 40)}`);
      for (const h of HINTS) if (h in a && typeof a[h] !== 'boolean') badHints.push(`${nameOf(t)}: annotations.${h} is ${show(a[h], 40)}, not a boolean`);
    }
    check.expect(badHints.length === 0, {
      key: 'annotations',
      requirements: ['TOOL-ANN-02'],
      expected: 'annotations with a string title and boolean readOnlyHint/destructiveHint/idempotentHint/openWorldHint',
      actual: `${badHints.length} problem(s): ${list(badHints)}`,
    });

    const badExecution: string[] = [];
    for (const t of tools) {
      if (!('execution' in t)) continue;
      const e = t.execution;
      if (!isObject(e)) badExecution.push(`${nameOf(t)}: execution is ${show(e, 40)}`);
      else if ('taskSupport' in e && !TASK_SUPPORT.includes(e.taskSupport as string)) badExecution.push(`${nameOf(t)}: execution.taskSupport is ${show(e.taskSupport, 40)}`);
    }
    check.expect(badExecution.length === 0, {
      key: 'execution',
      requirements: ['TOOL-EXEC-01'],
      expected: 'execution.taskSupport, when present, one of "forbidden", "optional", "required"',
      actual: `${badExecution.length} problem(s): ${list(badExecution)}`,
    });
  },
});

/**
 * TOOL-SCHEMA-03 (replaces TOOL-SCHEMA-01 in 2026-07-28): inputSchema keeps its root object type,
 * outputSchema may be any valid JSON Schema (e.g. "type": "array"); §19.19 keeps the root rule.
 */
export const toolSchemas = scenario({
  id: 'server.modern.tools.schemas',
  title: 'Every listed inputSchema is a valid JSON Schema object with root type "object"; every outputSchema a valid JSON Schema',
  requirements: ['TOOL-SCHEMA-03'],
  isolation: 'shared',
  revisions: { introduced: '2026-07-28' },
  needs: { capabilities: ['tools'] },
  async run({ check, discovery }) {
    if (discovery.tools.length === 0) return check.skip('not exercised: the server lists no tools');
    const bad = schemaProblems(discovery.tools, ['inputSchema']);
    check.expect(bad.length === 0, {
      expected: `every inputSchema a valid JSON Schema object with root "type": "object", every outputSchema a valid JSON Schema (${discovery.tools.length} tool(s))`,
      actual: `${bad.length} problem(s): ${list(bad)}`,
    });
  },
});

/** TOOL-LIST-03 (new in 2026-07-28): listing twice, while the set is unchanged, gives the same order. */
export const toolListOrder = scenario({
  id: 'server.modern.tools.list-order',
  title: 'tools/list returns the tools in the same order each time while the set is unchanged',
  requirements: ['TOOL-LIST-03'],
  isolation: 'shared',
  revisions: { introduced: '2026-07-28' },
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery }) {
    const first = discovery.walks['tools/list'];
    if (first?.end !== 'complete') return check.skip(`not exercised: the first tools/list walk ended with "${first?.end ?? 'not run'}" (see server.utilities.pagination)`);
    const again = await walkList(session, 'tools/list');
    if (again.end !== 'complete') return check.skip(`not exercised: the second tools/list walk ended with "${again.end}"${again.lastReply ? `: ${describeReply(again.lastReply)}` : ''}`);
    const before = first.items.map(nameOf);
    const after = again.items.map(nameOf);
    const sameSet = JSON.stringify([...before].sort()) === JSON.stringify([...after].sort());
    if (!sameSet) return check.skip(`not exercised: the tool set changed between the two walks (${before.length} then ${after.length} tools), so their order is not comparable`, { frames: again.frames });
    check.expect(JSON.stringify(before) === JSON.stringify(after), {
      expected: `the same order in two walks of tools/list (${list(before.map((n) => show(n, 40)), 5)})`,
      actual: `the second walk listed ${list(after.map((n) => show(n, 40)), 5)}`,
      frames: again.frames,
    });
  },
});

export const unknownTool = scenario({
  id: 'server.tools.unknown-tool',
  title: 'Calling an unknown tool, or a call without a name, is a JSON-RPC error',
  requirements: ['TOOL-ERR-01', 'BASE-ID-04'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['tools'] },
  async run({ session, check }) {
    const reply = await session.request('tools/call', { name: 'mcpcheck_no_such_tool', arguments: {} });
    if (reply.kind === 'error' && reply.error.code !== -32602) {
      check.expect(true, { key: 'unknown', requirements: ['TOOL-ERR-01'], expected: "tools/call mcpcheck_no_such_tool: a JSON-RPC error (the spec's example uses −32602)", actual: `code ${show(reply.error.code)}`, frames: [reply.frame] });
    } else {
      const isErrorResult = reply.kind === 'result' && reply.result.isError === true;
      check.expect(reply.kind === 'error', {
        key: 'unknown',
        requirements: ['TOOL-ERR-01'],
        expected: 'tools/call mcpcheck_no_such_tool: a JSON-RPC error (−32602)',
        actual: describeReply(reply) + (isErrorResult ? ' (an isError result is for failures inside a tool; an unknown tool is a protocol error)' : ''),
        frames: [replyFrame(reply)],
        replies: [reply],
      });
    }

    const sent = session.mark;
    const nameless = await session.requestMessage(session.compose(session.allocateId(), 'tools/call', { arguments: {} }));
    // Whatever its params, a well-formed JSON-RPC request is owed a response: not only a matter of which error fits.
    check.answered(nameless, { key: 'no-name-answered', what: 'tools/call without "name"', sent, why: 'a well-formed JSON-RPC request: every request gets exactly one response' });
    if (nameless.kind === 'unanswered') {
      unansweredErrorSkip(check, 'tools/call without "name"', 'no-name-answered', { key: 'no-name', requirements: ['TOOL-ERR-01'] });
    } else if (nameless.kind === 'error' && nameless.error.code !== -32602) {
      check.expect(true, { key: 'no-name', requirements: ['TOOL-ERR-01'], expected: 'tools/call without "name": a JSON-RPC error (−32602, invalid params, fits best)', actual: `code ${show(nameless.error.code)}`, frames: [nameless.frame] });
    } else {
      check.expect(nameless.kind === 'error', {
        key: 'no-name',
        requirements: ['TOOL-ERR-01'],
        expected: 'tools/call without "name" (not a CallToolRequest): a JSON-RPC error (−32602)',
        actual: describeReply(nameless),
        frames: [replyFrame(nameless)],
        replies: [nameless],
      });
    }
  },
});

/** Swaps the case of every letter: getUser → GETuSER. */
function flipCase(name: string): string {
  return [...name].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

export const caseSensitiveNames = scenario({
  id: 'server.tools.case-sensitive',
  title: 'Tool names are case-sensitive: the case-flipped name of a tool does not run it',
  requirements: ['TOOL-NAME-02'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    const lower = new Map<string, number>();
    for (const t of discovery.tools) lower.set(nameOf(t).toLowerCase(), (lower.get(nameOf(t).toLowerCase()) ?? 0) + 1);
    const candidates = discovery.tools.filter((t) => /[A-Za-z]/.test(nameOf(t)) && lower.get(nameOf(t).toLowerCase()) === 1);
    // A case-insensitive server would run the tool: only tools the policy lets mcpcheck call are used.
    const plan = candidates.map((t) => planToolCall(t, options.callTools)).find((p) => p.call);
    if (!plan) {
      return check.skip(
        candidates.length === 0 ? 'no tool has a name with letters and no case-variant sibling' : `no such tool may be called under --call-tools ${options.callTools.mode} (a case-insensitive server would run it)`,
      );
    }
    const flipped = flipCase(plan.name);
    const args = quickArguments(plan);
    const reply = await session.request('tools/call', { name: flipped, arguments: args });
    const ran = reply.kind === 'result' && reply.result.isError !== true;
    if (ran) {
      // A server that answers every unknown name with success (TOOL-ERR-01) shows nothing about case.
      const control = await session.request('tools/call', { name: 'mcpcheck_no_such_tool', arguments: args });
      if (control.kind === 'result' && control.result.isError !== true) {
        return check.skip(`not judged: tools/call ${show(flipped)} succeeded, but so does the unknown tool mcpcheck_no_such_tool (see server.tools.unknown-tool), so success shows nothing about case`, {
          frames: [reply.frame, control.frame],
        });
      }
    }
    check.expect(!ran, {
      expected: `tools/call ${show(flipped)} (tool ${show(plan.name)} with its letters' case flipped, valid arguments) refused as an unknown tool`,
      actual: ran ? `it ran: ${describeReply(reply)}` : describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

/** What makes a 2026-07-28 result not a CallToolResult (TOOL-CALL-02), if anything: structuredContent may be any JSON value there. Content blocks are judged separately. */
function modernCallResultProblem(result: Record<string, unknown>): string | undefined {
  if (!Array.isArray(result.content)) return `content is ${show(result.content, 40)}, not an array`;
  if ('isError' in result && typeof result.isError !== 'boolean') return `isError is ${show(result.isError, 40)}, not a boolean`;
  return undefined;
}

/** The same for 2025-11-25 (TOOL-CALL-01), where structuredContent is an object. */
function callResultProblem(result: Record<string, unknown>): string | undefined {
  if ('structuredContent' in result && !isObject(result.structuredContent)) return `structuredContent is ${show(result.structuredContent, 40)}, not an object`;
  return modernCallResultProblem(result);
}

/** What a CallToolResult is in one revision: the rule that says it, and its predicate. */
interface CallResultRule {
  requirement: 'TOOL-CALL-01' | 'TOOL-CALL-02';
  shape: string;
  problem(result: Record<string, unknown>): string | undefined;
}


interface Call {
  plan: ToolPlan;
  args: Record<string, unknown>;
  reply: Reply;
}

/** The body of server.tools.call in either era, judged by `rule`. */
async function callPermittedTools({ session, check, options, note, discovery }: ScenarioContext, rule: CallResultRule): Promise<void> {
  const walk = await walkList(session, 'tools/list');
  const context = argumentContext(discovery);
  const plans = walk.items.map((t) => planToolCall(t, options.callTools, context));
  const allowed = plans.filter((p) => p.call);
  const notCalled: string[] = plans.filter((p) => !p.call).map((p) => `${p.name} (${p.why})`);
  const started = performance.now();
  // Kept in the plans' order, whichever call ends first.
  const made: Array<Call | undefined> = [];
  await inLanes(allowed.slice(0, MAX_CALLS).map((plan, i) => ({ plan, i })), CALLS_AT_ONCE, async ({ plan, i }) => {
    const left = CALL_BUDGET_MS - (performance.now() - started);
    if (left < 1_000) return;
    const args = quickArguments(plan);
    made[i] = { plan, args, reply: await callTool(session, plan.name, args, Math.min(session.requestTimeoutMs, left)) };
  });
  const calls = made.filter((c): c is Call => c !== undefined);
  for (const [i, plan] of allowed.entries()) {
    if (!made[i]) notCalled.push(`${plan.name} (over mcpcheck's bound of ${MAX_CALLS} calls / ${CALL_BUDGET_MS / 1000} s)`);
  }
  const unknownNames = (options.callTools.names ?? []).filter((n) => !plans.some((p) => p.name === n));
  note(
    `--call-tools ${options.callTools.mode}: called ${calls.length ? calls.map((c) => `${c.plan.name} (${c.plan.why})`).join(', ') : 'no tool'}` +
      `${notCalled.length ? `; not called: ${notCalled.join(', ')}` : ''}` +
      `${unknownNames.length ? `; named in --call-tools but not listed by the server: ${unknownNames.join(', ')}` : ''}.`,
  );
  if (calls.length === 0) {
    if (options.callTools.mode === 'none') return check.skip('--call-tools none: no tool is called');
    return check.skip(`no tool was called under --call-tools ${options.callTools.mode}: ${notCalled.length ? list(notCalled, 5) : 'the server lists no tools'}`);
  }

  const inputRequired = calls.filter((c) => asksForInput(c.reply));
  if (inputRequired.length) note(`asked for input first (an InputRequiredResult, judged by server.modern.mrtr.*, not here): ${inputRequired.map((c) => c.plan.name).join(', ')}`);
  const results = calls.filter((c): c is Call & { reply: Extract<Reply, { kind: 'result' }> } => c.reply.kind === 'result' && !asksForInput(c.reply));
  const failed = calls.filter((c) => c.reply.kind !== 'result');
  if (failed.length) {
    check.note(
      `${failed.length} of ${calls.length} call(s) with synthesised arguments got no result (not a verdict: the server may need real inputs): ${list(failed.map((c) => `${c.plan.name} ${show(c.args, 80)} → ${describeReply(c.reply)}`), 5)}`,
    );
  }
  if (results.length === 0) return;

  const malformed = results.map((c) => ({ c, problem: rule.problem(c.reply.result) })).filter((x) => x.problem !== undefined);
  check.expect(malformed.length === 0, {
    key: 'result',
    requirements: [rule.requirement],
    expected: `a CallToolResult (${rule.shape}) from each of ${results.map((c) => c.plan.name).join(', ')}`,
    actual: list(malformed.map((x) => `${x.c.plan.name}: ${x.problem}`)),
    frames: malformed.map((x) => x.c.reply.frame),
  });

  const contents = results.map((c) => {
    const blocks = Array.isArray(c.reply.result.content) ? c.reply.result.content : [];
    // A URI that only echoes the argument mcpcheck passed is not the tool's fault (echo.ts).
    const findings = excuseEchoedUris(checkContentList(blocks, '/result/content', 'TOOL-CONT-01'), { result: c.reply.result }, suppliedArguments({ method: 'tools/call', params: { arguments: c.args } }), 'mcpcheck');
    const problem = findings.find((f) => f.severity !== 'info')?.message;
    return { c, problem, echoes: findings.filter((f) => f.unjudged).map((f) => `${c.plan.name}: ${f.message}`) };
  });
  const badContent = contents.filter((x) => x.problem !== undefined);
  const echoes = contents.flatMap((x) => x.echoes);
  if (echoes.length) note(list(echoes, 5));
  if (badContent.length === 0 && contents.every((x) => x.echoes.length > 0)) {
    check.skip(`the content of every result echoes the arguments mcpcheck passed: ${list(echoes, 3)}`, { key: 'content', requirements: ['TOOL-CONT-01'] });
  } else check.expect(badContent.length === 0, {
    key: 'content',
    requirements: ['TOOL-CONT-01'],
    expected: 'content blocks of a known type with their fields, image/audio data in strict base64 with a matching MIME type, embedded resources with text or base64 blob',
    actual: list(badContent.map((x) => `${x.c.plan.name}: ${x.problem}`)),
    frames: badContent.map((x) => x.c.reply.frame),
  });

  const structured = (c: Call & { reply: Extract<Reply, { kind: 'result' }> }) => ({ name: c.plan.name, outputSchema: c.plan.tool.outputSchema, inputSchema: c.plan.tool.inputSchema });
  const withOutput = results.filter((c) => isObject(c.plan.tool.outputSchema));
  // isError results need no structuredContent (ruling structured-content-on-errors): they are not counted as conforming.
  const judged = withOutput.filter((c) => c.reply.result.isError !== true);
  const errorResults = withOutput.filter((c) => c.reply.result.isError === true).map((c) => c.plan.name);
  if (judged.length === 0) {
    check.skip(
      withOutput.length === 0
        ? 'not exercised: no called tool declares an outputSchema'
        : `not exercised: every call of a tool with an outputSchema (${errorResults.join(', ')}) came back as an isError result, which needs no structuredContent (${ruling('structured-content-on-errors').cite})`,
      { key: 'output-schema', requirements: ['TOOL-OUT-01'] },
    );
  } else {
    const mismatched = judged
      .map((c) => ({ c, findings: checkCallToolResult(c.reply.result, structured(c)).filter((f) => f.requirements[0] === 'TOOL-OUT-01') }))
      .filter((x) => x.findings.length > 0);
    check.expect(mismatched.length === 0, {
      key: 'output-schema',
      requirements: ['TOOL-OUT-01'],
      expected:
        `structuredContent conforming to the outputSchema of ${judged.map((c) => c.plan.name).join(', ')}` +
        (errorResults.length ? ` (the isError results of ${errorResults.join(', ')} are not judged: ${ruling('structured-content-on-errors').cite})` : ''),
      actual: list(mismatched.map((x) => `${x.c.plan.name}: ${x.findings[0]!.message}`)),
      frames: mismatched.map((x) => x.c.reply.frame),
    });
  }

  const withStructured = results.filter((c) => c.reply.result.structuredContent !== undefined);
  if (withStructured.length > 0) {
    const unmirrored = withStructured.filter((c) => checkCallToolResult(c.reply.result, undefined).some((f) => f.requirements[0] === 'TOOL-OUT-03'));
    check.expect(unmirrored.length === 0, {
      key: 'text-mirror',
      requirements: ['TOOL-OUT-03'],
      expected: `a text block holding the structuredContent as JSON in the results of ${withStructured.map((c) => c.plan.name).join(', ')}`,
      actual: `none in the result of ${unmirrored.map((c) => c.plan.name).join(', ')}`,
      frames: unmirrored.map((c) => c.reply.frame),
    });
  }
}

const REQUIREMENTS_BOTH = ['TOOL-CONT-01', 'TOOL-OUT-01', 'TOOL-OUT-03'] as const;

/**
 * Calls the tools the --call-tools policy allows (default: those annotated readOnlyHint: true) with
 * arguments synthesised from their inputSchema, and judges the results. The session lists the tools
 * itself, so the live validators also check structuredContent against each outputSchema.
 */
export const toolCalls = scenario({
  id: 'server.tools.call',
  title: 'Tool calls return CallToolResults with valid content and structuredContent matching outputSchema',
  requirements: ['TOOL-CALL-01', ...REQUIREMENTS_BOTH],
  isolation: 'shared',
  // TOOL-CALL-01 became TOOL-CALL-02 (structuredContent any JSON value; an InputRequiredResult allowed).
  revisions: { removed: '2026-07-28' },
  // Every permitted tool, a few calls at a time; slow ones take a while even at quick durations.
  waits: true,
  needs: { capabilities: ['tools'] },
  run: (ctx) => callPermittedTools(ctx, { requirement: 'TOOL-CALL-01', shape: 'content array; optional structuredContent object and boolean isError', problem: callResultProblem }),
});

/** The same calls in 2026-07-28, each with the per-request `_meta`; a result that asks for input first is no CallToolResult to judge. */
export const modernToolCalls = scenario({
  id: 'server.modern.tools.call',
  title: 'Tool calls return CallToolResults (or ask for input) with valid content and structuredContent matching outputSchema',
  requirements: ['TOOL-CALL-02', ...REQUIREMENTS_BOTH],
  isolation: 'shared',
  revisions: { introduced: '2026-07-28' },
  waits: true,
  needs: { capabilities: ['tools'] },
  run: (ctx) => callPermittedTools(ctx, { requirement: 'TOOL-CALL-02', shape: 'content array; optional structuredContent of any JSON type and boolean isError', problem: modernCallResultProblem }),
});

/** TOOL-ERR-02 and ruling wrong-argument-type: a wrong argument type is best reported as an isError result. */
export const invalidArguments = scenario({
  id: 'server.tools.invalid-arguments',
  title: 'A tool called with an argument of the wrong type reports it as an isError result',
  requirements: ['TOOL-ERR-02'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    let chosen: { plan: ToolPlan; property: string; args: Record<string, unknown> } | undefined;
    for (const tool of discovery.tools) {
      const schema = tool.inputSchema;
      if (!isObject(schema) || !isObject(schema.properties) || !Array.isArray(schema.required)) continue;
      const props = schema.properties;
      const property = schema.required.find((r): r is string => typeof r === 'string' && isObject(props[r]) && (props[r] as Record<string, unknown>).type === 'string');
      if (property === undefined) continue;
      const plan = planToolCall(tool, options.callTools);
      if (!plan.call) continue;
      const args = { ...quickArguments(plan), [property]: 12345 };
      // Only a call the schema clearly forbids is a fair test.
      if (validateWithSchema(schema, args).status !== 'invalid') continue;
      chosen = { plan, property, args };
      break;
    }
    if (!chosen) return check.skip(`no tool with a required string property may be called under --call-tools ${options.callTools.mode}`);
    const { plan, property, args } = chosen;
    const what = `tools/call ${show(plan.name)} with ${show(property)}: 12345 where its inputSchema requires a string`;
    const reply = await session.request('tools/call', { name: plan.name, arguments: args });
    if (reply.kind === 'error' && reply.error.code === -32602) {
      check.expect(true, {
        expected: `${what}: a CallToolResult with isError: true, or −32602, accepted (the spec does not say whether a wrong type is a protocol error, ${ruling('wrong-argument-type').cite}; an isError result lets the model correct itself)`,
        actual: '−32602',
        frames: [reply.frame],
      });
      return;
    }
    const isErrorResult = reply.kind === 'result' && reply.result.isError === true;
    check.expect(isErrorResult, {
      expected: `${what}: a CallToolResult with isError: true (or −32602)`,
      actual: reply.kind === 'result' ? `a result without isError: true — the tool ran on an argument its schema forbids: ${describeReply(reply)}` : describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

export const tools = [toolList, toolSchemas, toolListOrder, unknownTool, caseSensitiveNames, toolCalls, modernToolCalls, invalidArguments];
