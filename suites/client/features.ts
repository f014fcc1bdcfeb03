import { type CheckOptions, clientScenario, type ClientScenario, type ClientScenarioContext, DEFAULT_TOOLS, describeReply, isObject, MODERN, type Reply, replyFrame, type RequirementId } from '../kit.js';
import { ask, ASKED, type DeclaredMethod, expectCursorsUnchanged, formOnly, refusedDeclared, violations, walked } from './helpers.js';

/**
 * Judges the answer to a `method` request for a capability the client declared: −32601 says it
 * does not serve what it declared (refusedDeclared); another error is a refusal the client may
 * make (a user may deny sampling or decline a form), so the result rule was not exercised; a
 * result is judged by live validation's predicate for `rule` (the same one `validate` applies).
 */
function judgeResult(ctx: ClientScenarioContext, method: DeclaredMethod, reply: Reply, rule: RequirementId, what: string): void {
  if (refusedDeclared(ctx, method, reply)) return;
  if (reply.kind === 'error') return ctx.check.skip(`the client refused the request (${describeReply(reply)}), as it may; ${rule} was not exercised`, { key: 'result', requirements: [rule] });
  const broken = reply.kind === 'result' ? violations(ctx.session, rule, [reply.frame]) : [];
  ctx.check.expect(reply.kind === 'result' && broken.length === 0, {
    key: 'result',
    requirements: [rule],
    expected: what,
    actual: broken.length ? broken.map((f) => f.message).join('; ') : describeReply(reply),
    frames: [replyFrame(reply)],
    replies: [reply],
  });
}

const declared = (path: string) => (caps: Record<string, unknown>) => (path.split('.').reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), caps) === undefined ? `the client did not declare ${path}` : undefined);

export const clientRoots = clientScenario({
  id: 'client.roots.list',
  title: "roots/list is answered with the client's roots, each a file:// URI",
  requirements: ['ROOTS-LIST-01'],
  ...ASKED,
  async run(ctx) {
    const reply = await ask(ctx, declared('roots'), 'roots/list', {});
    if (reply) judgeResult(ctx, 'roots/list', reply, 'ROOTS-LIST-01', 'a result with roots, each root a file:// URI');
  },
});

export const clientRootsUndeclared = clientScenario({
  id: 'client.roots.undeclared',
  title: 'A client that did not declare roots answers roots/list with −32601 (it does not serve roots, or it would have declared them)',
  requirements: ['ROOTS-ERR-01', 'ROOTS-CAP-01'],
  ...ASKED,
  async run(ctx) {
    // mcpcheck asks against the client's capabilities on purpose (LIFE-OP-02 binds the server).
    const needs = (caps: Record<string, unknown>) => (declared('roots')(caps) === undefined ? 'the client declared roots (client.roots.list judges its answer)' : undefined);
    const reply = await ask(ctx, needs, 'roots/list', {});
    if (!reply) return;
    const declaredCheck: CheckOptions = { key: 'declared', requirements: ['ROOTS-CAP-01'] };
    if (reply.kind === 'result' || reply.kind === 'error') {
      ctx.check.expect(reply.kind === 'error', {
        ...declaredCheck,
        expected: 'no roots served by a client that did not declare the roots capability',
        actual: reply.kind === 'result' ? `it served them: ${describeReply(reply)}` : `it refused: ${describeReply(reply)}`,
        frames: [replyFrame(reply)],
        replies: [reply],
      });
    } else ctx.check.skip(`roots/list got no answer (${describeReply(reply)}), so whether the client serves roots did not show`, declaredCheck);
    ctx.check.errorCode(reply, [-32601], { key: 'refused', requirements: ['ROOTS-ERR-01'], what: 'roots/list to a client that did not declare roots' });
  },
});

const SAMPLING = { messages: [{ role: 'user', content: { type: 'text', text: 'mcpcheck asks: say hello' } }], maxTokens: 32 };

export const clientSampling = clientScenario({
  id: 'client.sampling.create',
  title: 'A client that declared sampling answers sampling/createMessage with role, content and model',
  requirements: ['SAMP-RES-01'],
  ...ASKED,
  async run(ctx) {
    const reply = await ask(ctx, declared('sampling'), 'sampling/createMessage', SAMPLING);
    if (reply) judgeResult(ctx, 'sampling/createMessage', reply, 'SAMP-RES-01', 'a CreateMessageResult: role, content and model');
  },
});

export const clientSamplingToolsUndeclared = clientScenario({
  id: 'client.sampling.tools-undeclared',
  title: 'A client without sampling.tools returns an error when a sampling request contains tools',
  requirements: ['SAMP-TOOLS-02'],
  ...ASKED,
  async run(ctx) {
    const needs = (caps: Record<string, unknown>) => declared('sampling')(caps) ?? (declared('sampling.tools')(caps) === undefined ? 'the client declared sampling.tools: tools are allowed' : undefined);
    const reply = await ask(ctx, needs, 'sampling/createMessage', { ...SAMPLING, tools: [{ name: 'mcpcheck_tool', inputSchema: { type: 'object' } }] });
    if (!reply) return;
    ctx.check.expect(reply.kind === 'error', {
      expected: 'a JSON-RPC error (the request carries tools, which the client did not declare)',
      actual: describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

const FORM = {
  mode: 'form',
  message: 'mcpcheck asks for a name',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name', default: 'mcpcheck' } }, required: ['name'] },
};

export const clientElicitForm = clientScenario({
  id: 'client.elicitation.form',
  alias: 'elicitation-sep1034-client-defaults',
  title: 'A form-mode elicitation is answered with accept, decline or cancel, content only with accept and only primitive values',
  requirements: ['ELIC-RESP-01', 'ELIC-FORM-03', 'ELIC-CAP-01'],
  ...ASKED,
  async run(ctx) {
    const reply = await ask(ctx, formOnly, 'elicitation/create', FORM);
    if (!reply) return;
    judgeResult(ctx, 'elicitation/create', reply, 'ELIC-RESP-01', 'an ElicitResult: action accept, decline or cancel; content only with accept, of primitive values');
    const content = reply.kind === 'result' && isObject(reply.result.content) ? reply.result.content : undefined;
    // Only an accept that kept the default shows the client pre-filled it; other values may be a user's.
    if (content?.name === FORM.requestedSchema.properties.name.default) {
      ctx.check.expect(true, { key: 'defaults', requirements: ['ELIC-FORM-03'], expected: 'the default pre-filled', actual: `accepted with name ${JSON.stringify(content.name)}`, frames: [replyFrame(reply)] });
    } else {
      ctx.check.skip('no accept with the default value: a user may have changed it, or the client does not support defaults', { key: 'defaults', requirements: ['ELIC-FORM-03'] });
    }
  },
});

const { mode: _form, ...MODELESS } = FORM;

export const clientElicitModeless = clientScenario({
  id: 'client.elicitation.modeless',
  title: 'The client treats an elicitation request without mode as form mode',
  requirements: ['ELIC-REQ-02'],
  ...ASKED,
  async run(ctx) {
    const reply = await ask(ctx, formOnly, 'elicitation/create', MODELESS);
    if (!reply) return;
    // −32602 is what a client says to a mode it does not serve: here it took the request for another mode.
    ctx.check.expect(!(reply.kind === 'error' && reply.error.code === -32602), {
      expected: 'an elicitation without mode handled as a form (answered, or refused as a form may be, but not as an undeclared mode)',
      actual: describeReply(reply),
      frames: [replyFrame(reply)],
      replies: [reply],
    });
  },
});

const URL_REQUEST = { mode: 'url', message: 'mcpcheck asks you to open a page', url: 'https://mcpcheck.invalid/consent', elicitationId: 'mcpcheck-elicitation-1' };

export const clientElicitUrlUndeclared = clientScenario({
  id: 'client.elicitation.url-undeclared',
  title: 'An elicitation in a mode the client did not declare gets −32602',
  requirements: ['ELIC-ERR-03'],
  ...ASKED,
  async run(ctx) {
    const needs = (caps: Record<string, unknown>) => declared('elicitation')(caps) ?? (declared('elicitation.url')(caps) === undefined ? 'the client declared url mode' : undefined);
    const reply = await ask(ctx, needs, 'elicitation/create', URL_REQUEST);
    if (reply) ctx.check.errorCode(reply, [-32602], { what: 'elicitation/create in url mode, which the client did not declare' });
  },
});

export const clientElicitUrl = clientScenario({
  id: 'client.elicitation.url',
  title: 'A URL-mode accept carries no content',
  requirements: ['ELIC-URL-03', 'ELIC-CAP-01'],
  ...ASKED,
  async run(ctx) {
    const reply = await ask(ctx, declared('elicitation.url'), 'elicitation/create', URL_REQUEST);
    if (!reply) return;
    if (reply.kind === 'result' && reply.result.action !== 'accept') return ctx.check.skip(`the client answered ${String(reply.result.action)}: only an accept can carry content`, { requirements: ['ELIC-URL-03'] });
    judgeResult(ctx, 'elicitation/create', reply, 'ELIC-URL-03', 'an accept without content');
  },
});

const PAGED_TOOLS = [...DEFAULT_TOOLS, { name: 'third_tool', description: 'Lists on a page of its own.', inputSchema: { type: 'object', properties: {} } }];

export const clientCursorsOpaque = clientScenario({
  id: 'client.pagination.cursors',
  title: 'The client returns cursors unchanged, and follows nextCursor until it is absent',
  requirements: ['PAGE-04', 'PAGE-03'],
  carriedOver: true,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.tools = PAGED_TOOLS;
    session.toolsPageSize = 1;
  },
  async run(ctx) {
    const { check } = ctx;
    const pages = PAGED_TOOLS.length;
    const sent = await walked(ctx, pages);
    if (!sent) return;
    if (sent.length === 0) return check.skip('the client sent no cursor (it listed only the first page, or no tools at all)');
    const altered = expectCursorsUnchanged(check, sent, { key: 'unchanged', requirements: ['PAGE-04'], expected: 'every cursor sent back exactly as mcpcheck handed it out' });
    if (altered.length > 0) return check.skip('a cursor the client altered was refused, so it could not follow the pages to the end', { key: 'followed' });
    check.expect(sent.length >= pages - 1, {
      key: 'followed',
      requirements: ['PAGE-03'],
      expected: `all ${pages} pages of tools/list fetched (page size 1, the last without nextCursor)`,
      actual: `${sent.length + 1} page(s) fetched`,
      frames: [sent[sent.length - 1]!.frame],
    });
  },
});

/** Page sizes the server chooses, none the same as the one before: one, three, an empty page, then two. */
const VARIED_PAGES = [1, 3, 0, 2] as const;
const VARIED_TOOLS = Array.from({ length: VARIED_PAGES.reduce<number>((a, b) => a + b, 0) }, (_, i) =>
  i < DEFAULT_TOOLS.length ? DEFAULT_TOOLS[i]! : { name: `paged_tool_${i + 1}`, description: 'Lists on a page of a size of its own.', inputSchema: { type: 'object', properties: {} } },
);

export const clientPageSizes = clientScenario({
  id: 'client.pagination.page-size',
  title: 'The client assumes no fixed page size: it follows nextCursor past pages of 1, 3, 0 and 2 items to gather every tool',
  requirements: ['PAGE-02'],
  carriedOver: true,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.tools = VARIED_TOOLS;
    session.toolsPageSize = VARIED_PAGES;
  },
  async run(ctx) {
    const { check } = ctx;
    const pages = VARIED_PAGES.length;
    const sent = await walked(ctx, pages);
    if (!sent) return;
    // Not following the first cursor at all is PAGE-03's matter (client.pagination.cursors); page sizes only differ after it.
    if (sent.length === 0) return check.skip('the client sent no cursor (it listed only the first page, or no tools at all), so page sizes never mattered');
    if (sent.some((c) => !c.known)) return check.skip('the client altered a cursor (see client.pagination.cursors), so the walk could not go on');
    const fetched = sent.length + 1;
    check.expect(fetched >= pages, {
      expected: `all ${pages} pages of tools/list fetched (sizes ${VARIED_PAGES.join(', ')}; every page but the last with nextCursor)`,
      actual: fetched >= pages ? `${fetched} pages fetched, ${VARIED_TOOLS.length} tools` : `stopped after page ${fetched}, of ${VARIED_PAGES[fetched - 1]} item(s), though it carried nextCursor`,
      frames: [sent[sent.length - 1]!.frame],
    });
  },
});

export const clientEmptyCursor = clientScenario({
  id: 'client.pagination.empty-cursor',
  title: 'The client takes an empty-string nextCursor for a cursor, not for the end: it asks for the page after it with cursor ""',
  requirements: ['PAGE-07'],
  revisions: MODERN,
  steps: [{ do: 'list-tools' }],
  serve(session) {
    session.tools = PAGED_TOOLS;
    session.toolsPageSize = 1;
    // The second page's nextCursor is "" (the first page's is an ordinary one: a client that follows none shows nothing).
    const list = session.handler('tools/list');
    session.handle('tools/list', async (params, request) => {
      const out = await list(params, request);
      const page = typeof params.cursor === 'string' ? session.cursors.get(params.cursor)?.page : undefined;
      if (page !== 1 || !('result' in out) || typeof out.result.nextCursor !== 'string') return out;
      session.cursors.set('', session.cursors.get(out.result.nextCursor)!);
      return { result: { ...out.result, nextCursor: '' } };
    });
  },
  async run(ctx) {
    const { check } = ctx;
    const sent = await walked(ctx, PAGED_TOOLS.length);
    if (!sent) return;
    if (sent.length === 0) return check.skip('the client sent no cursor (it listed only the first page), so it never came to the empty one');
    if (sent.some((c) => !c.known)) return check.skip('the client altered a cursor (see client.pagination.cursors), so the walk could not go on');
    const empty = sent.find((c) => c.cursor === '');
    check.expect(empty !== undefined, {
      expected: 'tools/list asked again with cursor "" after the page whose nextCursor was "" (an empty string is a cursor, not the end)',
      actual: empty ? 'it did' : `it stopped after ${sent.length + 1} page(s), at the page whose nextCursor was ""`,
      frames: [empty?.frame ?? sent[sent.length - 1]!.frame],
    });
  },
});

export const clientFeatures: ClientScenario[] = [clientRoots, clientRootsUndeclared, clientSampling, clientSamplingToolsUndeclared, clientElicitForm, clientElicitModeless, clientElicitUrlUndeclared, clientElicitUrl, clientCursorsOpaque, clientPageSizes];

/** Pagination rules 2026-07-28 added. */
export const clientModernPagination: ClientScenario[] = [clientEmptyCursor];
